/**
 * Records of the `logs` module.
 *
 * @example
 * import { Schema } from "effect"
 * import { Log } from "explorer-etl"
 * Schema.decodeUnknown(Schema.Array(Log))(envelope.result)
 */
import * as Schema from "effect/Schema"
import { AddressField, DecimalBigInt, DecimalInt, Hash32, HashField, HexBigInt, HexData, HexInt } from "./common.js"

/**
 * One row of `logs/getLogs`. Unlike the account lists, every number is hex and zero is the bare `"0x"`
 * (`logIndex`, `transactionIndex`, even `gasPrice` on Gnosis); they decode to numbers / bigints and encode
 * back to the same text.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Log = Schema.Struct({
  /** The emitting contract. */
  address: AddressField,
  /** 0 to 4 topics, 32 bytes each; `topics[0]` is the event signature hash. */
  topics: Schema.Array(Hash32),
  /** Non-indexed event data, hex (`"0x"` when none). */
  data: HexData,
  blockNumber: HexInt,
  /** Absent in V1 answers (before the V2 API). */
  blockHash: Schema.optional(HashField),
  /** Unix seconds (hex on the wire). */
  timeStamp: HexInt,
  /** Wei per gas of the emitting transaction. */
  gasPrice: HexBigInt,
  /** Gas used by the emitting transaction. */
  gasUsed: HexBigInt,
  /** Position of the log in the block. */
  logIndex: HexInt,
  transactionHash: HashField,
  transactionIndex: HexInt
}).annotations({ identifier: "Log" })
/**
 * The type of the values of the `Log` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type Log = typeof Log.Type
/**
 * Wire form of {@link Log}.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace Log {
  /**
   * The record exactly as the server sends it.
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof Log.Encoded
}

/**
 * A {@link Log} as explorer-etl writes it to CSV/JSONL files: the same record, with every number in
 * decimal (`"0x"` → `"0"`, `"0xc48174"` → `"12878196"`) so files of logs read like every other file.
 * Decoding a file row gives back the same `Log` value the API answer decoded to.
 *
 * @since 0.1.0
 * @category schemas
 */
export const LogFileRow = Schema.Struct({
  address: AddressField,
  topics: Schema.Array(Hash32),
  data: HexData,
  blockNumber: DecimalInt,
  blockHash: Schema.optional(HashField),
  timeStamp: DecimalInt,
  gasPrice: DecimalBigInt,
  gasUsed: DecimalBigInt,
  logIndex: DecimalInt,
  transactionHash: HashField,
  transactionIndex: DecimalInt
}).annotations({ identifier: "LogFileRow" })
/**
 * The type of the values of the `LogFileRow` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type LogFileRow = typeof LogFileRow.Type
