/**
 * Results of the `transaction` module.
 *
 * @example
 * import { Schema } from "effect"
 * import { TxExecutionStatus } from "explorer-etl"
 * Schema.decodeUnknownSync(TxExecutionStatus)({ isError: "1", errDescription: "Bad jump destination" })
 */
import * as Schema from "effect/Schema"
import { BooleanFromDigit, EmptyAsNull } from "./common.js"

/**
 * The `result` of `transaction/getstatus`: `isError` "0"/"1" decoded to a boolean, the reason as sent ("" if none).
 *
 * @since 0.1.0
 * @category schemas
 */
export const TxExecutionStatus = Schema.Struct({
  isError: BooleanFromDigit,
  errDescription: Schema.String
}).annotations({ identifier: "TxExecutionStatus" })
/**
 * The type of the values of the `TxExecutionStatus` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type TxExecutionStatus = typeof TxExecutionStatus.Type

/**
 * The `result` of `transaction/gettxreceiptstatus`: "1" success, "0" failure, "" (→ `null`) pre-Byzantium or unknown.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TxReceiptStatus = Schema.Struct({
  status: EmptyAsNull(BooleanFromDigit)
}).annotations({ identifier: "TxReceiptStatus" })
/**
 * The type of the values of the `TxReceiptStatus` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type TxReceiptStatus = typeof TxReceiptStatus.Type
