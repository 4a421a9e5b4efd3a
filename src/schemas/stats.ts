/**
 * Records of the `stats` module that have a named schema. The other daily statistics (block size, block
 * time, gas price …) are reached through the client's generic `request` with a schema of the caller's.
 *
 * @example
 * import { Schema } from "effect"
 * import { DailyTxCount } from "explorer-etl"
 * Schema.decodeUnknown(Schema.Array(DailyTxCount))(envelope.result)
 */
import * as Schema from "effect/Schema"
import { DecimalBigInt, DecimalInt, JsonInt } from "./common.js"

/** One row of `stats/dailygasused`: gas used on one UTC day. */
export const DailyGasUsed = Schema.Struct({
  /** The day, `yyyy-MM-dd`. */
  UTCDate: Schema.String,
  /** Midnight UTC of that day, unix seconds. */
  unixTimeStamp: DecimalInt,
  gasUsed: DecimalBigInt
}).annotations({ identifier: "DailyGasUsed" })
/** @see DailyGasUsed */
export type DailyGasUsed = typeof DailyGasUsed.Type
/** Wire form of {@link DailyGasUsed}. */
export declare namespace DailyGasUsed {
  /** The record exactly as the server sends it. */
  export type Encoded = typeof DailyGasUsed.Encoded
}

/** One row of `stats/dailytx`: transactions on one UTC day (`transactionCount` is a JSON number). */
export const DailyTxCount = Schema.Struct({
  /** The day, `yyyy-MM-dd`. */
  UTCDate: Schema.String,
  /** Midnight UTC of that day, unix seconds. */
  unixTimeStamp: DecimalInt,
  /** Sent as a JSON number. */
  transactionCount: JsonInt
}).annotations({ identifier: "DailyTxCount" })
/** @see DailyTxCount */
export type DailyTxCount = typeof DailyTxCount.Type
/** Wire form of {@link DailyTxCount}. */
export declare namespace DailyTxCount {
  /** The record exactly as the server sends it. */
  export type Encoded = typeof DailyTxCount.Encoded
}

/** The `result` of `stats/ethsupply`: total ether supply in wei, a decimal string decoded to a `bigint`. */
export const EtherSupply = DecimalBigInt.annotations({ identifier: "EtherSupply" })
/** @see EtherSupply */
export type EtherSupply = typeof EtherSupply.Type

/**
 * The `result` of `stats/ethprice`: the native coin's last price. Prices stay decimal strings (as sent:
 * "389.56"), the timestamps are unix seconds.
 */
export const EtherPrice = Schema.Struct({
  ethbtc: Schema.String,
  ethbtc_timestamp: DecimalInt,
  ethusd: Schema.String,
  ethusd_timestamp: DecimalInt
}).annotations({ identifier: "EtherPrice" })
/** @see EtherPrice */
export type EtherPrice = typeof EtherPrice.Type
