/**
 * Records of the `account` module: transaction lists, token transfers, balances.
 *
 * Field order is the order of the current docs (the sinks use it as the CSV column order); the server's own
 * key order varies between chains and years, and decoding does not depend on it. Fields absent from older
 * or some chains' answers are optional (e.g. `methodId`/`functionName`, absent before 2021 and on Gnosis).
 *
 * @example
 * import { Schema } from "effect"
 * import { NormalTransaction } from "explorer-etl"
 * const rows = Schema.decodeUnknown(Schema.Array(NormalTransaction))(envelope.result)
 */
import * as Schema from "effect/Schema"
import {
  AddressField,
  BooleanFromDigit,
  DecimalBigInt,
  DecimalInt,
  EmptyAsNull,
  HashField,
  JsonInt
} from "./common.js"

/**
 * One row of `account/txlist` (normal transactions).
 *
 * GENESIS allocation rows have `hash` `"GENESIS_<address>"`, `from` `"GENESIS"`, empty `nonce`, `blockHash`
 * and `input`; pre-Byzantium rows have an empty `txreceipt_status`; contract creations have an empty `to`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const NormalTransaction = Schema.Struct({
  blockNumber: DecimalInt,
  /** `null` on GENESIS rows (the server sends `""`). */
  blockHash: EmptyAsNull(HashField),
  /** Unix seconds. */
  timeStamp: DecimalInt,
  /** Transaction hash, or `"GENESIS_<address>"` for genesis allocations. */
  hash: HashField,
  /** `null` on GENESIS rows. */
  nonce: EmptyAsNull(DecimalInt),
  transactionIndex: DecimalInt,
  /** Sender, or `"GENESIS"`. */
  from: AddressField,
  /** Recipient; `null` for a contract creation (the server sends `""`). */
  to: EmptyAsNull(AddressField),
  /** Wei. */
  value: DecimalBigInt,
  /** Gas limit. */
  gas: DecimalBigInt,
  /** Wei per gas. */
  gasPrice: DecimalBigInt,
  /** Call data as sent (`""` on GENESIS rows). */
  input: Schema.String,
  /** 4-byte selector of `input` (`"0x"` for a plain transfer); absent in answers before 2021. */
  methodId: Schema.optional(Schema.String),
  /** Decoded signature of the called function, often `""`; absent in answers before 2021. */
  functionName: Schema.optional(Schema.String),
  /** Created contract; `null` unless the transaction created one (the server sends `""`). */
  contractAddress: EmptyAsNull(AddressField),
  cumulativeGasUsed: DecimalBigInt,
  /** Receipt status: `true` success, `false` failure, `null` before Byzantium (the server sends `""`). */
  txreceipt_status: EmptyAsNull(BooleanFromDigit),
  gasUsed: DecimalBigInt,
  /** Blocks on top of this one when the answer was made (changes between calls). */
  confirmations: DecimalInt,
  /** `"1"` ↔ `true` when execution failed. */
  isError: BooleanFromDigit
}).annotations({ identifier: "NormalTransaction" })
/**
 * The type of the values of the `NormalTransaction` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type NormalTransaction = typeof NormalTransaction.Type
/**
 * Wire form of {@link NormalTransaction}.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace NormalTransaction {
  /**
   * The record exactly as the server sends it.
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof NormalTransaction.Encoded
}

/**
 * One row of `account/txlistinternal` (internal transactions), in all three variants: by address, by block
 * range, and by transaction hash (which has no `hash` and no `traceId`). HyperEVM (chain 999) adds
 * `transactionIndex`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const InternalTransaction = Schema.Struct({
  blockNumber: DecimalInt,
  /** Only on some chains (HyperEVM, 999). */
  transactionIndex: Schema.optional(DecimalInt),
  /** Unix seconds. */
  timeStamp: DecimalInt,
  /** Parent transaction hash; absent in the by-txhash variant. */
  hash: Schema.optional(HashField),
  from: AddressField,
  /** `null` for a creation (the server sends `""`). */
  to: EmptyAsNull(AddressField),
  /** Wei. */
  value: DecimalBigInt,
  /** Created contract; `null` unless `type` is a creation. */
  contractAddress: EmptyAsNull(AddressField),
  /** Usually `""` (the server does not return internal call data). */
  input: Schema.String,
  /** `"call"`, `"create"`, `"create2"`, … as sent. */
  type: Schema.String,
  gas: DecimalBigInt,
  gasUsed: DecimalBigInt,
  /**
   * Position in the call tree, as sent: `"0"`, `"1"`, or a path like `"0_1_1_1"` (so a string, not a
   * number). Absent in the by-txhash variant.
   */
  traceId: Schema.optional(Schema.String),
  isError: BooleanFromDigit,
  /** Free-text failure reason (`"Out of gas"`, `"Bad jump destination"`), `""` when none. */
  errCode: Schema.String
}).annotations({ identifier: "InternalTransaction" })
/**
 * The type of the values of the `InternalTransaction` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type InternalTransaction = typeof InternalTransaction.Type
/**
 * Wire form of {@link InternalTransaction}.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace InternalTransaction {
  /**
   * The record exactly as the server sends it.
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof InternalTransaction.Encoded
}

/**
 * One row of `account/tokentx` (ERC-20 transfer events). `input` is the literal `"deprecated"`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Erc20Transfer = Schema.Struct({
  blockNumber: DecimalInt,
  /** Unix seconds. */
  timeStamp: DecimalInt,
  hash: HashField,
  nonce: DecimalInt,
  blockHash: HashField,
  from: AddressField,
  /** The token contract. */
  contractAddress: AddressField,
  to: AddressField,
  /** Raw token units (divide by 10^tokenDecimal). */
  value: DecimalBigInt,
  /** As the token reports it; may be `""` or arbitrary (spam) text. */
  tokenName: Schema.String,
  tokenSymbol: Schema.String,
  tokenDecimal: DecimalInt,
  transactionIndex: DecimalInt,
  gas: DecimalBigInt,
  gasPrice: DecimalBigInt,
  gasUsed: DecimalBigInt,
  cumulativeGasUsed: DecimalBigInt,
  /** Always `"deprecated"`. */
  input: Schema.String,
  /** Absent before 2021 and on some chains (Gnosis). */
  methodId: Schema.optional(Schema.String),
  /** Absent before 2021 and on some chains (Gnosis). */
  functionName: Schema.optional(Schema.String),
  confirmations: DecimalInt
}).annotations({ identifier: "Erc20Transfer" })
/**
 * The type of the values of the `Erc20Transfer` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type Erc20Transfer = typeof Erc20Transfer.Type
/**
 * Wire form of {@link Erc20Transfer}.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace Erc20Transfer {
  /**
   * The record exactly as the server sends it.
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof Erc20Transfer.Encoded
}

/**
 * One row of `account/tokennfttx` (ERC-721 transfer events): `tokenID` instead of `value`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Erc721Transfer = Schema.Struct({
  blockNumber: DecimalInt,
  /** Unix seconds. */
  timeStamp: DecimalInt,
  hash: HashField,
  nonce: DecimalInt,
  blockHash: HashField,
  from: AddressField,
  /** The token contract. */
  contractAddress: AddressField,
  to: AddressField,
  /** The token id (a uint256). */
  tokenID: DecimalBigInt,
  tokenName: Schema.String,
  tokenSymbol: Schema.String,
  /** `0` for ERC-721. */
  tokenDecimal: DecimalInt,
  transactionIndex: DecimalInt,
  gas: DecimalBigInt,
  gasPrice: DecimalBigInt,
  gasUsed: DecimalBigInt,
  cumulativeGasUsed: DecimalBigInt,
  /** Always `"deprecated"`. */
  input: Schema.String,
  /** Absent before 2021. */
  methodId: Schema.optional(Schema.String),
  /** Absent before 2021. */
  functionName: Schema.optional(Schema.String),
  confirmations: DecimalInt
}).annotations({ identifier: "Erc721Transfer" })
/**
 * The type of the values of the `Erc721Transfer` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type Erc721Transfer = typeof Erc721Transfer.Type
/**
 * Wire form of {@link Erc721Transfer}.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace Erc721Transfer {
  /**
   * The record exactly as the server sends it.
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof Erc721Transfer.Encoded
}

/**
 * One row of `account/token1155tx` (ERC-1155 transfer events): `tokenID` and `tokenValue`, no `value`, no
 * `tokenDecimal`. Shape from the docs (no recorded answer exists).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Erc1155Transfer = Schema.Struct({
  blockNumber: DecimalInt,
  /** Unix seconds. */
  timeStamp: DecimalInt,
  hash: HashField,
  nonce: DecimalInt,
  blockHash: HashField,
  transactionIndex: DecimalInt,
  gas: DecimalBigInt,
  gasPrice: DecimalBigInt,
  gasUsed: DecimalBigInt,
  cumulativeGasUsed: DecimalBigInt,
  /** Always `"deprecated"`. */
  input: Schema.String,
  methodId: Schema.optional(Schema.String),
  /** May be `""`. */
  functionName: Schema.optional(Schema.String),
  /** The token contract. */
  contractAddress: AddressField,
  from: AddressField,
  to: AddressField,
  /** The token id (a uint256). */
  tokenID: DecimalBigInt,
  /** Quantity of that id transferred. */
  tokenValue: DecimalBigInt,
  tokenName: Schema.String,
  tokenSymbol: Schema.String,
  confirmations: DecimalInt
}).annotations({ identifier: "Erc1155Transfer" })
/**
 * The type of the values of the `Erc1155Transfer` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type Erc1155Transfer = typeof Erc1155Transfer.Type
/**
 * Wire form of {@link Erc1155Transfer}.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace Erc1155Transfer {
  /**
   * The record exactly as the server sends it.
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof Erc1155Transfer.Encoded
}

/**
 * One row of `account/addresstokenbalance` (ERC-20 holdings of an address).
 *
 * @since 0.1.0
 * @category schemas
 */
export const TokenBalance = Schema.Struct({
  TokenAddress: AddressField,
  TokenName: Schema.String,
  TokenSymbol: Schema.String,
  /** Raw token units. */
  TokenQuantity: DecimalBigInt,
  /** The token's decimals (e.g. 18). */
  TokenDivisor: DecimalInt,
  /** USD price as a decimal string (`"0.000891470000000000"`), kept as text to keep every digit. */
  TokenPriceUSD: Schema.String
}).annotations({ identifier: "TokenBalance" })
/**
 * The type of the values of the `TokenBalance` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type TokenBalance = typeof TokenBalance.Type
/**
 * Wire form of {@link TokenBalance}.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace TokenBalance {
  /**
   * The record exactly as the server sends it.
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof TokenBalance.Encoded
}

/**
 * One row of `account/addresstokennftbalance` (NFT holdings of an address, per collection).
 *
 * @since 0.1.0
 * @category schemas
 */
export const NftBalance = Schema.Struct({
  TokenAddress: AddressField,
  TokenName: Schema.String,
  TokenSymbol: Schema.String,
  /** Number of tokens of that collection held. */
  TokenQuantity: DecimalBigInt
}).annotations({ identifier: "NftBalance" })
/**
 * The type of the values of the `NftBalance` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type NftBalance = typeof NftBalance.Type
/**
 * Wire form of {@link NftBalance}.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace NftBalance {
  /**
   * The record exactly as the server sends it.
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof NftBalance.Encoded
}

/**
 * The `result` object of `account/fundedby`: who first funded an EOA. `block` is a JSON number.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FundedBy = Schema.Struct({
  /** Block of the funding transaction (sent as a JSON number). */
  block: JsonInt,
  /** Unix seconds. */
  timeStamp: DecimalInt,
  fundingAddress: AddressField,
  fundingTxn: HashField,
  /** Wei. */
  value: DecimalBigInt
}).annotations({ identifier: "FundedBy" })
/**
 * The type of the values of the `FundedBy` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type FundedBy = typeof FundedBy.Type
/**
 * Wire form of {@link FundedBy}.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace FundedBy {
  /**
   * The record exactly as the server sends it.
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof FundedBy.Encoded
}

/**
 * The `result` string of `account/balance`, `account/balancehistory` (wei) and
 * `account/tokenbalancehistory` (raw token units): a decimal string decoded to a `bigint`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const WeiAmount = DecimalBigInt.annotations({ identifier: "WeiAmount" })
/**
 * The type of the values of the `WeiAmount` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type WeiAmount = typeof WeiAmount.Type

/**
 * One row of `account/balancemulti`: an address and its wei.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AccountBalance = Schema.Struct({
  /** The address as the server echoes it. */
  account: Schema.String,
  /** Wei, a decimal string decoded to a `bigint`. */
  balance: DecimalBigInt
}).annotations({ identifier: "AccountBalance" })
/**
 * The type of the values of the `AccountBalance` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type AccountBalance = typeof AccountBalance.Type
/**
 * Wire form of {@link AccountBalance}.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace AccountBalance {
  /**
   * The record exactly as the server sends it.
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof AccountBalance.Encoded
}

/**
 * The `result` of `account/tokenbalance` and `stats/tokensupply`: a raw token quantity (no decimals applied).
 *
 * @since 0.1.0
 * @category schemas
 */
export const TokenAmount = DecimalBigInt.annotations({ identifier: "TokenAmount" })
/**
 * The type of the values of the `TokenAmount` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type TokenAmount = typeof TokenAmount.Type

/**
 * One row of `account/getminedblocks`: a block the address proposed (mined, before the merge) and its
 * reward. The server lists them newest first.
 *
 * @since 0.1.0
 * @category schemas
 */
export const MinedBlock = Schema.Struct({
  blockNumber: DecimalInt,
  /** Unix seconds. */
  timeStamp: DecimalInt,
  /** Wei: the block reward before the merge, the priority fees after it. */
  blockReward: DecimalBigInt
}).annotations({ identifier: "MinedBlock" })
/**
 * The type of the values of the `MinedBlock` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type MinedBlock = typeof MinedBlock.Type

/**
 * One row of `account/txsBeaconWithdrawal`: a consensus-layer withdrawal to the address. Note the
 * lower-case `timestamp` (every other record spells it `timeStamp`) and `amount` in **gwei**.
 *
 * @since 0.1.0
 * @category schemas
 */
export const BeaconWithdrawal = Schema.Struct({
  /** The withdrawal's global index. */
  withdrawalIndex: DecimalInt,
  /** The validator withdrawn from. */
  validatorIndex: DecimalInt,
  /** The withdrawal address credited. */
  address: AddressField,
  /** Gwei (10⁹ wei). */
  amount: DecimalBigInt,
  blockNumber: DecimalInt,
  /** Unix seconds. */
  timestamp: DecimalInt
}).annotations({ identifier: "BeaconWithdrawal" })
/**
 * The type of the values of the `BeaconWithdrawal` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type BeaconWithdrawal = typeof BeaconWithdrawal.Type
