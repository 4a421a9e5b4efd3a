/**
 * Results of the `block` module.
 *
 * @example
 * import { Schema } from "effect"
 * import { BlockNumberResult } from "explorer-etl"
 * Schema.decodeUnknownSync(BlockNumberResult)("9251482") // 9251482
 */
import { DecimalInt } from "./common.js"

/** The `result` of `block/getblocknobytime`: a block number as a decimal string, decoded to a `number`. */
export const BlockNumberResult = DecimalInt.annotations({ identifier: "BlockNumberResult" })
/** @see BlockNumberResult */
export type BlockNumberResult = typeof BlockNumberResult.Type
