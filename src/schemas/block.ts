/**
 * Results of the `block` module.
 *
 * @example
 * import { Schema } from "effect"
 * import { BlockNumberResult } from "explorer-etl"
 * Schema.decodeUnknownSync(BlockNumberResult)("9251482") // 9251482
 */
import * as Schema from "effect/Schema"
import { DecimalInt } from "./common.js"

/** The `result` of `block/getblocknobytime`: a block number as a decimal string, decoded to a `number`. */
export const BlockNumberResult = DecimalInt.annotations({ identifier: "BlockNumberResult" })
/** @see BlockNumberResult */
export type BlockNumberResult = typeof BlockNumberResult.Type

/**
 * The `result` of `block/getblockcountdown`. `EstimateTimeInSec` keeps the server's decimal text
 * (real answers carry a fraction: "1163998654.8").
 */
export const BlockCountdown = Schema.Struct({
  CurrentBlock: DecimalInt,
  CountdownBlock: DecimalInt,
  RemainingBlock: DecimalInt,
  EstimateTimeInSec: Schema.String
}).annotations({ identifier: "BlockCountdown" })
/** @see BlockCountdown */
export type BlockCountdown = typeof BlockCountdown.Type
