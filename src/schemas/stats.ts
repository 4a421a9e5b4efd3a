/**
 * Records of the `stats` module: supplies, prices, chain size and the daily statistics (one Struct per
 * series, each starting with `UTCDate` and `unixTimeStamp`).
 *
 * @example
 * import { Schema } from "effect"
 * import { DailyTxCount } from "explorer-etl"
 * Schema.decodeUnknown(Schema.Array(DailyTxCount))(envelope.result)
 */
import * as Schema from "effect/Schema"
import { DecimalBigInt, DecimalInt, JsonInt } from "./common.js"

/**
 * One row of `stats/dailygasused`: gas used on one UTC day.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DailyGasUsed = Schema.Struct({
  /** The day, `yyyy-MM-dd`. */
  UTCDate: Schema.String,
  /** Midnight UTC of that day, unix seconds. */
  unixTimeStamp: DecimalInt,
  gasUsed: DecimalBigInt
}).annotations({ identifier: "DailyGasUsed" })
/**
 * The type of the values of the `DailyGasUsed` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type DailyGasUsed = typeof DailyGasUsed.Type
/**
 * Wire form of {@link DailyGasUsed}.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace DailyGasUsed {
  /**
   * The record exactly as the server sends it.
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof DailyGasUsed.Encoded
}

/**
 * One row of `stats/dailytx`: transactions on one UTC day (`transactionCount` is a JSON number).
 *
 * @since 0.1.0
 * @category schemas
 */
export const DailyTxCount = Schema.Struct({
  /** The day, `yyyy-MM-dd`. */
  UTCDate: Schema.String,
  /** Midnight UTC of that day, unix seconds. */
  unixTimeStamp: DecimalInt,
  /** Sent as a JSON number. */
  transactionCount: JsonInt
}).annotations({ identifier: "DailyTxCount" })
/**
 * The type of the values of the `DailyTxCount` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type DailyTxCount = typeof DailyTxCount.Type
/**
 * Wire form of {@link DailyTxCount}.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace DailyTxCount {
  /**
   * The record exactly as the server sends it.
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof DailyTxCount.Encoded
}

/**
 * The `result` of `stats/ethsupply`: total ether supply in wei, a decimal string decoded to a `bigint`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const EtherSupply = DecimalBigInt.annotations({ identifier: "EtherSupply" })
/**
 * The type of the values of the `EtherSupply` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type EtherSupply = typeof EtherSupply.Type

/**
 * The `result` of `stats/ethprice`: the native coin's last price. Prices stay decimal strings (as sent:
 * "389.56"), the timestamps are unix seconds.
 *
 * @since 0.1.0
 * @category schemas
 */
export const EtherPrice = Schema.Struct({
  ethbtc: Schema.String,
  ethbtc_timestamp: DecimalInt,
  ethusd: Schema.String,
  ethusd_timestamp: DecimalInt
}).annotations({ identifier: "EtherPrice" })
/**
 * The type of the values of the `EtherPrice` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type EtherPrice = typeof EtherPrice.Type

/**
 * The `result` of `stats/tokensupplyhistory`: a token's raw total supply at a block.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TokenSupplyAt = DecimalBigInt.annotations({ identifier: "TokenSupplyAt" })
/**
 * The type of the values of the `TokenSupplyAt` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type TokenSupplyAt = typeof TokenSupplyAt.Type

/**
 * One row of `stats/chainsize`: the size of a node's chain data at the last block of a day.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ChainSize = Schema.Struct({
  blockNumber: DecimalInt,
  /** The day, `yyyy-MM-dd`. */
  chainTimeStamp: Schema.String,
  /** Bytes. */
  chainSize: DecimalBigInt,
  /** `"Geth"` or `"Parity"`. */
  clientType: Schema.String,
  /** `"Default"` or `"Archive"`. */
  syncMode: Schema.String
}).annotations({ identifier: "ChainSize" })
/**
 * The type of the values of the `ChainSize` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type ChainSize = typeof ChainSize.Type

/** The day fields every daily statistic starts with. */
const dayFields = {
  /** The day, `yyyy-MM-dd`. */
  UTCDate: Schema.String,
  /** Midnight UTC of that day, unix seconds. */
  unixTimeStamp: DecimalInt
}

/**
 * One row of `stats/dailyavgblocksize`: average block size per day.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DailyAvgBlockSize = Schema.Struct({
  ...dayFields,
  /** Bytes; a JSON number. */
  blockSize_bytes: JsonInt
}).annotations({ identifier: "DailyAvgBlockSize" })
/**
 * The type of the values of the `DailyAvgBlockSize` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type DailyAvgBlockSize = typeof DailyAvgBlockSize.Type

/**
 * One row of `stats/dailyavgblocktime`: average seconds between blocks per day.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DailyAvgBlockTime = Schema.Struct({
  ...dayFields,
  /** Seconds as decimal text ("17.67"). */
  blockTime_sec: Schema.String
}).annotations({ identifier: "DailyAvgBlockTime" })
/**
 * The type of the values of the `DailyAvgBlockTime` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type DailyAvgBlockTime = typeof DailyAvgBlockTime.Type

/**
 * One row of `stats/dailyavggaslimit`: average block gas limit per day.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DailyAvgGasLimit = Schema.Struct({
  ...dayFields,
  /** Gas. */
  gasLimit: DecimalBigInt
}).annotations({ identifier: "DailyAvgGasLimit" })
/**
 * The type of the values of the `DailyAvgGasLimit` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type DailyAvgGasLimit = typeof DailyAvgGasLimit.Type

/**
 * One row of `stats/dailyavggasprice`: highest, lowest and average gas price per day.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DailyAvgGasPrice = Schema.Struct({
  ...dayFields,
  /** Wei per gas. */
  maxGasPrice_Wei: DecimalBigInt,
  /** Wei per gas. */
  minGasPrice_Wei: DecimalBigInt,
  /** Wei per gas. */
  avgGasPrice_Wei: DecimalBigInt
}).annotations({ identifier: "DailyAvgGasPrice" })
/**
 * The type of the values of the `DailyAvgGasPrice` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type DailyAvgGasPrice = typeof DailyAvgGasPrice.Type

/**
 * One row of `stats/dailyavghashrate`: network hash rate per day (GH/s; zero after the merge).
 *
 * @since 0.1.0
 * @category schemas
 */
export const DailyAvgHashRate = Schema.Struct({
  ...dayFields,
  /** Decimal text ("143116.0140"). */
  networkHashRate: Schema.String
}).annotations({ identifier: "DailyAvgHashRate" })
/**
 * The type of the values of the `DailyAvgHashRate` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type DailyAvgHashRate = typeof DailyAvgHashRate.Type

/**
 * One row of `stats/dailyavgnetdifficulty`: network difficulty per day (TH; zero after the merge).
 *
 * @since 0.1.0
 * @category schemas
 */
export const DailyAvgNetDifficulty = Schema.Struct({
  ...dayFields,
  /** Decimal text with thousands separators ("2,408.028"). */
  networkDifficulty: Schema.String
}).annotations({ identifier: "DailyAvgNetDifficulty" })
/**
 * The type of the values of the `DailyAvgNetDifficulty` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type DailyAvgNetDifficulty = typeof DailyAvgNetDifficulty.Type

/**
 * One row of `stats/dailyblkcount`: blocks and their rewards per day.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DailyBlockCount = Schema.Struct({
  ...dayFields,
  /** A JSON number. */
  blockCount: JsonInt,
  /** Ether as decimal text. */
  blockRewards_Eth: Schema.String
}).annotations({ identifier: "DailyBlockCount" })
/**
 * The type of the values of the `DailyBlockCount` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type DailyBlockCount = typeof DailyBlockCount.Type

/**
 * One row of `stats/dailyblockrewards`: block rewards per day.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DailyBlockRewards = Schema.Struct({
  ...dayFields,
  /** Ether as decimal text. */
  blockRewards_Eth: Schema.String
}).annotations({ identifier: "DailyBlockRewards" })
/**
 * The type of the values of the `DailyBlockRewards` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type DailyBlockRewards = typeof DailyBlockRewards.Type

/**
 * One row of `stats/dailynetutilization`: gas used over the gas limit per day.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DailyNetUtilization = Schema.Struct({
  ...dayFields,
  /** A ratio as decimal text ("0.8464"). */
  networkUtilization: Schema.String
}).annotations({ identifier: "DailyNetUtilization" })
/**
 * The type of the values of the `DailyNetUtilization` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type DailyNetUtilization = typeof DailyNetUtilization.Type

/**
 * One row of `stats/dailynewaddress`: new addresses per day.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DailyNewAddress = Schema.Struct({
  ...dayFields,
  /** A JSON number. */
  newAddressCount: JsonInt
}).annotations({ identifier: "DailyNewAddress" })
/**
 * The type of the values of the `DailyNewAddress` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type DailyNewAddress = typeof DailyNewAddress.Type

/**
 * One row of `stats/dailytxnfee`: transaction fees per day.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DailyTxnFee = Schema.Struct({
  ...dayFields,
  /** Ether as decimal text. */
  transactionFee_Eth: Schema.String
}).annotations({ identifier: "DailyTxnFee" })
/**
 * The type of the values of the `DailyTxnFee` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type DailyTxnFee = typeof DailyTxnFee.Type

/**
 * One row of `stats/dailyuncleblkcount`: uncle blocks and their rewards per day.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DailyUncleBlockCount = Schema.Struct({
  ...dayFields,
  /** A JSON number. */
  uncleBlockCount: JsonInt,
  /** Ether as decimal text. */
  uncleBlockRewards_Eth: Schema.String
}).annotations({ identifier: "DailyUncleBlockCount" })
/**
 * The type of the values of the `DailyUncleBlockCount` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type DailyUncleBlockCount = typeof DailyUncleBlockCount.Type

/**
 * One row of `stats/ethdailymarketcap`: ether supply, market cap and price per day.
 *
 * @since 0.1.0
 * @category schemas
 */
export const EthDailyMarketCap = Schema.Struct({
  ...dayFields,
  /** Ether as decimal text. */
  supply: Schema.String,
  /** Millions of USD as decimal text. */
  marketCap: Schema.String,
  /** USD as decimal text. */
  price: Schema.String
}).annotations({ identifier: "EthDailyMarketCap" })
/**
 * The type of the values of the `EthDailyMarketCap` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type EthDailyMarketCap = typeof EthDailyMarketCap.Type

/**
 * One row of `stats/ethdailyprice`: ether price per day.
 *
 * @since 0.1.0
 * @category schemas
 */
export const EthDailyPrice = Schema.Struct({
  ...dayFields,
  /** USD as decimal text ("107.03"). */
  value: Schema.String
}).annotations({ identifier: "EthDailyPrice" })
/**
 * The type of the values of the `EthDailyPrice` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type EthDailyPrice = typeof EthDailyPrice.Type

/**
 * The `result` of `stats/nodecount`: the nodes of the network on the latest day.
 *
 * @since 0.1.0
 * @category schemas
 */
export const NodeCount = Schema.Struct({
  /** The day, `yyyy-MM-dd`. */
  UTCDate: Schema.String,
  TotalNodeCount: DecimalInt
}).annotations({ identifier: "NodeCount" })
/**
 * The type of the values of the `NodeCount` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type NodeCount = typeof NodeCount.Type

/**
 * The `result` of `getapilimit`: the key's credits (calls) used and left in the current interval.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ApiLimit = Schema.Struct({
  creditsUsed: JsonInt,
  creditsAvailable: JsonInt,
  creditLimit: JsonInt,
  /** `"daily"`. */
  limitInterval: Schema.String,
  /** Time until the interval ends, `HH:MM:SS`. */
  intervalExpiryTimespan: Schema.String
}).annotations({ identifier: "ApiLimit" })
/**
 * The type of the values of the `ApiLimit` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type ApiLimit = typeof ApiLimit.Type

/**
 * The `result` of `stats/ethsupply2`: the native supply and its parts, all in wei — the supply (as
 * `ethsupply`), the ether staked on the beacon chain, the fees burnt, and the total withdrawn from staking.
 *
 * @since 0.1.0
 * @category schemas
 */
export const EtherSupply2 = Schema.Struct({
  EthSupply: DecimalBigInt,
  Eth2Staking: DecimalBigInt,
  BurntFees: DecimalBigInt,
  WithdrawnTotal: DecimalBigInt
}).annotations({ identifier: "EtherSupply2" })
/**
 * The type of the values of the `EtherSupply2` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type EtherSupply2 = typeof EtherSupply2.Type
