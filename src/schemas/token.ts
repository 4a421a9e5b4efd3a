/**
 * Records of the `token` module: token metadata and holder lists.
 *
 * @example
 * import { Schema } from "effect"
 * import { TokenInfo } from "explorer-etl"
 * const infos = Schema.decodeUnknown(Schema.Array(TokenInfo))(envelope.result) // Effect<ReadonlyArray<TokenInfo>, ParseError>
 */
import * as Schema from "effect/Schema"
import { AddressField, DecimalBigInt, DecimalInt } from "./common.js"

/**
 * The one row of `token/tokeninfo`. All values are strings on the wire; social links are `""` when unset.
 * Note `symbol`/`divisor` here against `tokenSymbol`/`tokenDecimal` in transfer lists.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TokenInfo = Schema.Struct({
  contractAddress: AddressField,
  tokenName: Schema.String,
  symbol: Schema.String,
  /** The token's decimals (`0` for NFTs). */
  divisor: DecimalInt,
  /** `"ERC20"`, `"ERC721"`, `"ERC1155"` as sent. */
  tokenType: Schema.String,
  /** Raw token units. */
  totalSupply: DecimalBigInt,
  /** `"true"`/`"false"` as sent (kept as text). */
  blueCheckmark: Schema.String,
  description: Schema.String,
  website: Schema.String,
  email: Schema.String,
  blog: Schema.String,
  reddit: Schema.String,
  slack: Schema.String,
  facebook: Schema.String,
  twitter: Schema.String,
  bitcointalk: Schema.String,
  github: Schema.String,
  telegram: Schema.String,
  wechat: Schema.String,
  linkedin: Schema.String,
  discord: Schema.String,
  whitepaper: Schema.String,
  /** USD price as a decimal string (`"0.000000000000000000"`); absent in 2020 answers. */
  tokenPriceUSD: Schema.optional(Schema.String),
  /** Logo URL; in the current docs, absent in 2020 answers. */
  image: Schema.optional(Schema.String)
}).annotations({ identifier: "TokenInfo" })
/**
 * The type of the values of the `TokenInfo` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type TokenInfo = typeof TokenInfo.Type
/**
 * Wire form of {@link TokenInfo}.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace TokenInfo {
  /**
   * The record exactly as the server sends it.
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof TokenInfo.Encoded
}

/**
 * One row of `token/topholders` (the largest holders, up to 1,000).
 *
 * @since 0.1.0
 * @category schemas
 */
export const TopHolder = Schema.Struct({
  TokenHolderAddress: AddressField,
  /**
   * Balance **already divided by the token's decimals**, as a decimal string (`"2696124.3026660371030000"`),
   * kept as text so that no digit is lost (contrast {@link TokenHolder}).
   */
  TokenHolderQuantity: Schema.String,
  /** `"C"` contract, `"E"` externally owned account (only `"C"` is attested), kept as sent. */
  TokenHolderAddressType: Schema.String
}).annotations({ identifier: "TopHolder" })
/**
 * The type of the values of the `TopHolder` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type TopHolder = typeof TopHolder.Type
/**
 * Wire form of {@link TopHolder}.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace TopHolder {
  /**
   * The record exactly as the server sends it.
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof TopHolder.Encoded
}

/**
 * One row of `token/tokenholderlist` (paged list of every holder).
 *
 * @since 0.1.0
 * @category schemas
 */
export const TokenHolder = Schema.Struct({
  TokenHolderAddress: AddressField,
  /** Raw token units. */
  TokenHolderQuantity: DecimalBigInt
}).annotations({ identifier: "TokenHolder" })
/**
 * The type of the values of the `TokenHolder` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type TokenHolder = typeof TokenHolder.Type
/**
 * Wire form of {@link TokenHolder}.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace TokenHolder {
  /**
   * The record exactly as the server sends it.
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof TokenHolder.Encoded
}
