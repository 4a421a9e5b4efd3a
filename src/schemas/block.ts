/**
 * Results of the `block` module.
 *
 * @example
 * import { Schema } from "effect"
 * import { BlockNumberResult } from "explorer-etl"
 * Schema.decodeUnknownSync(BlockNumberResult)("9251482") // 9251482
 */
import * as Schema from "effect/Schema"
import { AddressField, DecimalBigInt, DecimalInt, JsonInt } from "./common.js"

/**
 * The `result` of `block/getblocknobytime`: a block number as a decimal string, decoded to a `number`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const BlockNumberResult = DecimalInt.annotations({ identifier: "BlockNumberResult" })
/**
 * The type of the values of the `BlockNumberResult` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type BlockNumberResult = typeof BlockNumberResult.Type

/**
 * The `result` of `block/getblockcountdown`. `EstimateTimeInSec` keeps the server's decimal text
 * (real answers carry a fraction: "1163998654.8").
 *
 * @since 0.1.0
 * @category schemas
 */
export const BlockCountdown = Schema.Struct({
  CurrentBlock: DecimalInt,
  CountdownBlock: DecimalInt,
  RemainingBlock: DecimalInt,
  EstimateTimeInSec: Schema.String
}).annotations({ identifier: "BlockCountdown" })
/**
 * The type of the values of the `BlockCountdown` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type BlockCountdown = typeof BlockCountdown.Type

/**
 * One uncle of a `block/getblockreward` answer (pre-merge blocks only).
 *
 * @since 0.1.0
 * @category schemas
 */
export const UncleReward = Schema.Struct({
  miner: AddressField,
  unclePosition: DecimalInt,
  /** Wei. */
  blockreward: DecimalBigInt
}).annotations({ identifier: "UncleReward" })
/**
 * The type of the values of the `UncleReward` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type UncleReward = typeof UncleReward.Type

/**
 * The `result` of `block/getblockreward`: who proposed (mined) a block and what it earned, in wei.
 *
 * @since 0.1.0
 * @category schemas
 */
export const BlockReward = Schema.Struct({
  blockNumber: DecimalInt,
  /** Unix seconds. */
  timeStamp: DecimalInt,
  blockMiner: AddressField,
  /** Wei: the block reward before the merge, the priority fees after it. */
  blockReward: DecimalBigInt,
  uncles: Schema.Array(UncleReward),
  /** Wei. */
  uncleInclusionReward: DecimalBigInt
}).annotations({ identifier: "BlockReward" })
/**
 * The type of the values of the `BlockReward` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type BlockReward = typeof BlockReward.Type

/**
 * The `result` of `block/getblocktxnscount`: how many transactions a block holds, and how many internal
 * transactions and ERC-20, ERC-721 and ERC-1155 transfers they made (JSON numbers).
 *
 * @since 0.1.0
 * @category schemas
 */
export const BlockTxnsCount = Schema.Struct({
  block: JsonInt,
  txsCount: JsonInt,
  internalTxsCount: JsonInt,
  erc20TransfersCount: JsonInt,
  erc721TransfersCount: JsonInt,
  erc1155TransfersCount: JsonInt
}).annotations({ identifier: "BlockTxnsCount" })
/**
 * The type of the values of the `BlockTxnsCount` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type BlockTxnsCount = typeof BlockTxnsCount.Type
