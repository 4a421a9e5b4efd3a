/**
 * Results of the `module=proxy` operations (Ethereum JSON-RPC passed through the explorer). Their bodies are
 * JSON-RPC ({@link JsonRpcSuccess} / {@link JsonRpcFailure} in envelope.ts); gateway errors (key, rate,
 * chain) still come as an {@link Envelope}.
 *
 * @example
 * import { Schema } from "effect"
 * import { GasPriceResponse } from "explorer-etl"
 * Schema.decodeUnknownSync(GasPriceResponse)({ jsonrpc: "2.0", id: 73, result: "0x1d9d2db2" }).result // 496840114n
 */
import * as Schema from "effect/Schema"
import { Hash32, HexData, HexQuantity, HexQuantityBigInt } from "./common.js"
import { JsonRpcId } from "./envelope.js"
import { Address } from "./inputs.js"

/**
 * The `result` of `proxy/eth_gasPrice`: wei per gas as a JSON-RPC hex quantity, decoded to a `bigint`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const GasPrice = HexQuantityBigInt.annotations({ identifier: "GasPrice" })
/**
 * The type of the values of the `GasPrice` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type GasPrice = typeof GasPrice.Type

/**
 * A successful JSON-RPC body whose `result` is decoded with `result` (a typed {@link JsonRpcSuccess}).
 *
 * @since 0.1.0
 * @category schemas
 */
export const JsonRpcResult = <A, I, R>(result: Schema.Schema<A, I, R>) =>
  Schema.Struct({
    jsonrpc: Schema.String,
    id: JsonRpcId,
    result
  })

/**
 * The whole successful body of `proxy/eth_gasPrice`, `result` decoded with {@link GasPrice}.
 *
 * @since 0.1.0
 * @category schemas
 */
export const GasPriceResponse = JsonRpcResult(GasPrice).annotations({ identifier: "GasPriceResponse" })
/**
 * The type of the values of the `GasPriceResponse` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type GasPriceResponse = typeof GasPriceResponse.Type

/**
 * The `result` of `proxy/eth_blockNumber`: the latest block number.
 *
 * @since 0.1.0
 * @category schemas
 */
export const BlockNumberHex = HexQuantity.annotations({ identifier: "BlockNumberHex" })
/**
 * The type of the values of the `BlockNumberHex` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type BlockNumberHex = typeof BlockNumberHex.Type

/** An address of a JSON-RPC object (`0x` + 40 hex digits, kept as the node wrote it). */
const RpcAddress = Address

/**
 * A transaction as JSON-RPC writes it (`eth_getTransactionByHash`, `eth_getTransactionByBlockNumberAndIndex`,
 * full blocks): quantities decoded to numbers (block, index, nonce, type) or bigints (wei, gas, signature).
 * Fields of newer transaction types and of other chains (`blockTimestamp`, `yParity`, L2 fields) are
 * kept as the node wrote them.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RpcTransaction = Schema.Struct({
  /** `null` while pending. */
  blockHash: Schema.NullOr(Hash32),
  blockNumber: Schema.NullOr(HexQuantity),
  /** Unix seconds of the block (newer nodes only). */
  blockTimestamp: Schema.optional(HexQuantity),
  from: RpcAddress,
  /** The gas limit. */
  gas: HexQuantityBigInt,
  /** The effective gas price (wei). */
  gasPrice: Schema.optional(HexQuantityBigInt),
  maxFeePerGas: Schema.optional(HexQuantityBigInt),
  maxPriorityFeePerGas: Schema.optional(HexQuantityBigInt),
  hash: Hash32,
  /** Calldata, `"0x"` for none. */
  input: HexData,
  nonce: HexQuantity,
  /** `null` for a contract creation. */
  to: Schema.NullOr(RpcAddress),
  transactionIndex: Schema.NullOr(HexQuantity),
  /** Wei sent. */
  value: HexQuantityBigInt,
  /** 0 legacy, 1 access list, 2 EIP-1559, 3 blob, 4 set-code (absent on old answers). */
  type: Schema.optional(HexQuantity),
  accessList: Schema.optional(Schema.Array(Schema.Unknown)),
  chainId: Schema.optional(HexQuantityBigInt),
  v: Schema.optional(HexQuantityBigInt),
  r: Schema.optional(HexQuantityBigInt),
  s: Schema.optional(HexQuantityBigInt),
  yParity: Schema.optional(HexQuantity)
}).annotations({ identifier: "RpcTransaction" })
/**
 * The type of the values of the `RpcTransaction` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type RpcTransaction = typeof RpcTransaction.Type

/**
 * One withdrawal of a block (`eth_getBlockByNumber`, from Shanghai on).
 *
 * @since 0.1.0
 * @category schemas
 */
export const RpcWithdrawal = Schema.Struct({
  index: HexQuantity,
  validatorIndex: HexQuantity,
  address: RpcAddress,
  /** Gwei. */
  amount: HexQuantityBigInt
}).annotations({ identifier: "RpcWithdrawal" })
/**
 * The type of the values of the `RpcWithdrawal` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type RpcWithdrawal = typeof RpcWithdrawal.Type

/**
 * A block as JSON-RPC writes it (`eth_getBlockByNumber`; an uncle of `eth_getUncleByBlockNumberAndIndex`
 * has no `transactions`). `transactions` holds hashes, or whole {@link RpcTransaction}s when asked with
 * `boolean: true`. Fields of other forks and chains (`withdrawals`, `l1BlockNumber`…) are kept as written.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RpcBlock = Schema.Struct({
  /** Absent before London. */
  baseFeePerGas: Schema.optional(HexQuantityBigInt),
  /** From Cancun on. */
  blobGasUsed: Schema.optional(HexQuantityBigInt),
  difficulty: HexQuantityBigInt,
  /** From Cancun on. */
  excessBlobGas: Schema.optional(HexQuantityBigInt),
  extraData: HexData,
  gasLimit: HexQuantityBigInt,
  gasUsed: HexQuantityBigInt,
  /** `null` while pending. */
  hash: Schema.NullOr(Hash32),
  logsBloom: HexData,
  /** The fee recipient (the proposer's address after the merge). */
  miner: RpcAddress,
  mixHash: Schema.optional(Hash32),
  nonce: Schema.optional(HexData),
  number: HexQuantity,
  /** From Cancun on. */
  parentBeaconBlockRoot: Schema.optional(Hash32),
  parentHash: Hash32,
  receiptsRoot: Hash32,
  sha3Uncles: Hash32,
  size: HexQuantity,
  stateRoot: Hash32,
  timestamp: HexQuantity,
  /** Only before the merge, on some nodes. */
  totalDifficulty: Schema.optional(HexQuantityBigInt),
  transactions: Schema.optional(Schema.Array(Schema.Union(Hash32, RpcTransaction))),
  transactionsRoot: Hash32,
  uncles: Schema.Array(Hash32),
  /** The consensus-layer withdrawals of the block, from Shanghai on (`amount` in gwei). */
  withdrawals: Schema.optional(Schema.Array(RpcWithdrawal)),
  withdrawalsRoot: Schema.optional(Hash32)
}).annotations({ identifier: "RpcBlock" })
/**
 * The type of the values of the `RpcBlock` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type RpcBlock = typeof RpcBlock.Type

/**
 * A log of a receipt (`eth_getTransactionReceipt`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const RpcLog = Schema.Struct({
  address: RpcAddress,
  topics: Schema.Array(Hash32),
  data: HexData,
  blockNumber: HexQuantity,
  transactionHash: Hash32,
  transactionIndex: HexQuantity,
  blockHash: Hash32,
  blockTimestamp: Schema.optional(HexQuantity),
  logIndex: HexQuantity,
  removed: Schema.Boolean
}).annotations({ identifier: "RpcLog" })
/**
 * The type of the values of the `RpcLog` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type RpcLog = typeof RpcLog.Type

/**
 * A transaction receipt (`eth_getTransactionReceipt`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const RpcReceipt = Schema.Struct({
  blockHash: Hash32,
  blockNumber: HexQuantity,
  /** The created contract, or `null`. */
  contractAddress: Schema.NullOr(RpcAddress),
  cumulativeGasUsed: HexQuantityBigInt,
  effectiveGasPrice: Schema.optional(HexQuantityBigInt),
  from: RpcAddress,
  gasUsed: HexQuantityBigInt,
  logs: Schema.Array(RpcLog),
  logsBloom: HexData,
  /** The state root of a pre-Byzantium receipt (then there is no `status`). */
  root: Schema.optional(Hash32),
  /** 1 success, 0 failure (absent before Byzantium). */
  status: Schema.optional(HexQuantity),
  to: Schema.NullOr(RpcAddress),
  transactionHash: Hash32,
  transactionIndex: HexQuantity,
  type: Schema.optional(HexQuantity)
}).annotations({ identifier: "RpcReceipt" })
/**
 * The type of the values of the `RpcReceipt` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type RpcReceipt = typeof RpcReceipt.Type

/**
 * A count of JSON-RPC (`eth_getTransactionCount`, `eth_getBlockTransactionCountByNumber`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const RpcCount = HexQuantity.annotations({ identifier: "RpcCount" })
/**
 * The type of the values of the `RpcCount` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type RpcCount = typeof RpcCount.Type

/**
 * Bytes of JSON-RPC (`eth_call` return data, `eth_getCode`, `eth_getStorageAt`), kept as hex.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RpcData = HexData.annotations({ identifier: "RpcData" })
/**
 * The type of the values of the `RpcData` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type RpcData = typeof RpcData.Type

/**
 * Gas of JSON-RPC (`eth_estimateGas`), decoded to a `bigint`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RpcGas = HexQuantityBigInt.annotations({ identifier: "RpcGas" })
/**
 * The type of the values of the `RpcGas` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type RpcGas = typeof RpcGas.Type
