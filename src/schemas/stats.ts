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

/** The `result` of `stats/tokensupplyhistory`: a token's raw total supply at a block. */
export const TokenSupplyAt = DecimalBigInt.annotations({ identifier: "TokenSupplyAt" })
/** @see TokenSupplyAt */
export type TokenSupplyAt = typeof TokenSupplyAt.Type

/** One row of `stats/chainsize`: the size of a node's chain data at the last block of a day. */
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
/** @see ChainSize */
export type ChainSize = typeof ChainSize.Type

/** The day fields every daily statistic starts with. */
const dayFields = {
  /** The day, `yyyy-MM-dd`. */
  UTCDate: Schema.String,
  /** Midnight UTC of that day, unix seconds. */
  unixTimeStamp: DecimalInt
}

/** One row of `stats/dailyavgblocksize`: average block size per day. */
export const DailyAvgBlockSize = Schema.Struct({
  ...dayFields,
  /** Bytes; a JSON number. */
  blockSize_bytes: JsonInt
}).annotations({ identifier: "DailyAvgBlockSize" })
/** @see DailyAvgBlockSize */
export type DailyAvgBlockSize = typeof DailyAvgBlockSize.Type

/** One row of `stats/dailyavgblocktime`: average seconds between blocks per day. */
export const DailyAvgBlockTime = Schema.Struct({
  ...dayFields,
  /** Seconds as decimal text ("17.67"). */
  blockTime_sec: Schema.String
}).annotations({ identifier: "DailyAvgBlockTime" })
/** @see DailyAvgBlockTime */
export type DailyAvgBlockTime = typeof DailyAvgBlockTime.Type

/** One row of `stats/dailyavggaslimit`: average block gas limit per day. */
export const DailyAvgGasLimit = Schema.Struct({
  ...dayFields,
  /** Gas. */
  gasLimit: DecimalBigInt
}).annotations({ identifier: "DailyAvgGasLimit" })
/** @see DailyAvgGasLimit */
export type DailyAvgGasLimit = typeof DailyAvgGasLimit.Type

/** One row of `stats/dailyavggasprice`: highest, lowest and average gas price per day. */
export const DailyAvgGasPrice = Schema.Struct({
  ...dayFields,
  /** Wei per gas. */
  maxGasPrice_Wei: DecimalBigInt,
  /** Wei per gas. */
  minGasPrice_Wei: DecimalBigInt,
  /** Wei per gas. */
  avgGasPrice_Wei: DecimalBigInt
}).annotations({ identifier: "DailyAvgGasPrice" })
/** @see DailyAvgGasPrice */
export type DailyAvgGasPrice = typeof DailyAvgGasPrice.Type

/** One row of `stats/dailyavghashrate`: network hash rate per day (GH/s; zero after the merge). */
export const DailyAvgHashRate = Schema.Struct({
  ...dayFields,
  /** Decimal text ("143116.0140"). */
  networkHashRate: Schema.String
}).annotations({ identifier: "DailyAvgHashRate" })
/** @see DailyAvgHashRate */
export type DailyAvgHashRate = typeof DailyAvgHashRate.Type

/** One row of `stats/dailyavgnetdifficulty`: network difficulty per day (TH; zero after the merge). */
export const DailyAvgNetDifficulty = Schema.Struct({
  ...dayFields,
  /** Decimal text with thousands separators ("2,408.028"). */
  networkDifficulty: Schema.String
}).annotations({ identifier: "DailyAvgNetDifficulty" })
/** @see DailyAvgNetDifficulty */
export type DailyAvgNetDifficulty = typeof DailyAvgNetDifficulty.Type

/** One row of `stats/dailyblkcount`: blocks and their rewards per day. */
export const DailyBlockCount = Schema.Struct({
  ...dayFields,
  /** A JSON number. */
  blockCount: JsonInt,
  /** Ether as decimal text. */
  blockRewards_Eth: Schema.String
}).annotations({ identifier: "DailyBlockCount" })
/** @see DailyBlockCount */
export type DailyBlockCount = typeof DailyBlockCount.Type

/** One row of `stats/dailyblockrewards`: block rewards per day. */
export const DailyBlockRewards = Schema.Struct({
  ...dayFields,
  /** Ether as decimal text. */
  blockRewards_Eth: Schema.String
}).annotations({ identifier: "DailyBlockRewards" })
/** @see DailyBlockRewards */
export type DailyBlockRewards = typeof DailyBlockRewards.Type

/** One row of `stats/dailynetutilization`: gas used over the gas limit per day. */
export const DailyNetUtilization = Schema.Struct({
  ...dayFields,
  /** A ratio as decimal text ("0.8464"). */
  networkUtilization: Schema.String
}).annotations({ identifier: "DailyNetUtilization" })
/** @see DailyNetUtilization */
export type DailyNetUtilization = typeof DailyNetUtilization.Type

/** One row of `stats/dailynewaddress`: new addresses per day. */
export const DailyNewAddress = Schema.Struct({
  ...dayFields,
  /** A JSON number. */
  newAddressCount: JsonInt
}).annotations({ identifier: "DailyNewAddress" })
/** @see DailyNewAddress */
export type DailyNewAddress = typeof DailyNewAddress.Type

/** One row of `stats/dailytxnfee`: transaction fees per day. */
export const DailyTxnFee = Schema.Struct({
  ...dayFields,
  /** Ether as decimal text. */
  transactionFee_Eth: Schema.String
}).annotations({ identifier: "DailyTxnFee" })
/** @see DailyTxnFee */
export type DailyTxnFee = typeof DailyTxnFee.Type

/** One row of `stats/dailyuncleblkcount`: uncle blocks and their rewards per day. */
export const DailyUncleBlockCount = Schema.Struct({
  ...dayFields,
  /** A JSON number. */
  uncleBlockCount: JsonInt,
  /** Ether as decimal text. */
  uncleBlockRewards_Eth: Schema.String
}).annotations({ identifier: "DailyUncleBlockCount" })
/** @see DailyUncleBlockCount */
export type DailyUncleBlockCount = typeof DailyUncleBlockCount.Type

/** One row of `stats/ethdailymarketcap`: ether supply, market cap and price per day. */
export const EthDailyMarketCap = Schema.Struct({
  ...dayFields,
  /** Ether as decimal text. */
  supply: Schema.String,
  /** Millions of USD as decimal text. */
  marketCap: Schema.String,
  /** USD as decimal text. */
  price: Schema.String
}).annotations({ identifier: "EthDailyMarketCap" })
/** @see EthDailyMarketCap */
export type EthDailyMarketCap = typeof EthDailyMarketCap.Type

/** One row of `stats/ethdailyprice`: ether price per day. */
export const EthDailyPrice = Schema.Struct({
  ...dayFields,
  /** USD as decimal text ("107.03"). */
  value: Schema.String
}).annotations({ identifier: "EthDailyPrice" })
/** @see EthDailyPrice */
export type EthDailyPrice = typeof EthDailyPrice.Type

/** The `result` of `stats/nodecount`: the nodes of the network on the latest day. */
export const NodeCount = Schema.Struct({
  /** The day, `yyyy-MM-dd`. */
  UTCDate: Schema.String,
  TotalNodeCount: DecimalInt
}).annotations({ identifier: "NodeCount" })
/** @see NodeCount */
export type NodeCount = typeof NodeCount.Type

/** The `result` of `getapilimit`: the key's credits (calls) used and left in the current interval. */
export const ApiLimit = Schema.Struct({
  creditsUsed: JsonInt,
  creditsAvailable: JsonInt,
  creditLimit: JsonInt,
  /** `"daily"`. */
  limitInterval: Schema.String,
  /** Time until the interval ends, `HH:MM:SS`. */
  intervalExpiryTimespan: Schema.String
}).annotations({ identifier: "ApiLimit" })
/** @see ApiLimit */
export type ApiLimit = typeof ApiLimit.Type

/**
 * The `result` of `stats/ethsupply2`: the native supply and its parts, all in wei — the supply (as
 * `ethsupply`), the ether staked on the beacon chain, the fees burnt, and the total withdrawn from staking.
 */
export const EtherSupply2 = Schema.Struct({
  EthSupply: DecimalBigInt,
  Eth2Staking: DecimalBigInt,
  BurntFees: DecimalBigInt,
  WithdrawnTotal: DecimalBigInt
}).annotations({ identifier: "EtherSupply2" })
/** @see EtherSupply2 */
export type EtherSupply2 = typeof EtherSupply2.Type
