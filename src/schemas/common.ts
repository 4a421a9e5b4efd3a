/**
 * The field codecs shared by every record schema: numbers written as decimal or hex strings, flags, empty
 * fields, JSON numbers, addresses and hashes.
 *
 * Conventions (the contract's "data conventions"):
 * - the encoded side of every schema is exactly the server's JSON text; the decoded side is the useful type
 *   (`bigint` for amounts and gas, `number` for blocks, timestamps and small counters, `boolean` for flags);
 * - the numeric blocks accept only the *canonical* spelling the server writes (no leading zeros, lower-case
 *   hex), so that whatever decodes also encodes back to the very same text: `encode(decode(x)) === x`;
 * - `""` ↔ `null` is applied with {@link EmptyAsNull} only to typed fields (numbers, flags, addresses,
 *   hashes) that the server is known to send empty; free-text fields stay `string`, `""` included.
 *
 * The blocks are `Schema.transformOrFail` from `Schema.String` with one regular-expression test each, and
 * carry `arbitrary` annotations (so `Arbitrary.make(record)` yields valid records). Each also keeps its raw
 * codec (a {@link StringCodec}) for the fast path of record lists (fastPath.ts), which runs the blocks' own
 * checks in one plain loop. The response bodies are in envelope.ts, the validators of inputs in inputs.ts.
 *
 * @example
 * import { Schema } from "effect"
 * import { DecimalBigInt, HexInt } from "explorer-etl"
 * Schema.decodeUnknownSync(DecimalBigInt)("12345678901234567890") // 12345678901234567890n
 * Schema.decodeUnknownSync(HexInt)("0x")                           // 0 (getLogs writes zero as "0x")
 */
import * as Arbitrary from "effect/Arbitrary"
import * as ParseResult from "effect/ParseResult"
import * as Pretty from "effect/Pretty"
import * as Schema from "effect/Schema"
import { CodecId, INVALID, type StringCodec } from "./fastPath.js"

// ---------------------------------------------------------------------------------------------------------
// String codecs: one regular-expression test and one conversion per field, in a single transformation

const fromCodec = <A>(
  to: Schema.Schema<A>,
  codec: StringCodec<A>,
  identifier: string,
  arbitrary: Arbitrary.LazyArbitrary<A>
): Schema.Schema<A, string> =>
  Schema.transformOrFail(Schema.String, to, {
    strict: true,
    decode: (s, _, ast) => {
      const a = codec.decode(s)
      return a === INVALID
        ? ParseResult.fail(new ParseResult.Type(ast, s, `Expected ${codec.expected}, got ${JSON.stringify(s)}`))
        : ParseResult.succeed(a)
    },
    encode: (a, _, ast) => {
      const s = codec.encode(a)
      return s === INVALID
        ? ParseResult.fail(new ParseResult.Type(ast, a, `Cannot write ${String(a)} as ${codec.expected}`))
        : ParseResult.succeed(s)
    }
  }).annotations({ identifier, arbitrary: () => arbitrary, [CodecId]: codec })

const MAX_SAFE = Number.MAX_SAFE_INTEGER
const arbitrarySafeInt: Arbitrary.LazyArbitrary<number> = (fc) => fc.integer({ min: 0, max: MAX_SAFE })
const arbitraryBigInt: Arbitrary.LazyArbitrary<bigint> = (fc) =>
  fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 64n }), fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }))

// ---------------------------------------------------------------------------------------------------------
// Numbers written as decimal strings

const DECIMAL = /^(?:0|[1-9][0-9]*)$/
const SIGNED_DECIMAL = /^-?(?:0|[1-9][0-9]*)$/

const isSafeNatural = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0

/**
 * A non-negative integer written as a canonical decimal string (`"0"`, `"21000"`), decoded to a `number`.
 * For block numbers, timestamps (unix seconds), nonces, indexes, confirmations, decimals. A value past
 * `Number.MAX_SAFE_INTEGER` fails decoding: it is never rounded.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DecimalInt: Schema.Schema<number, string> = fromCodec(
  Schema.Number,
  {
    decode: (s) => {
      if (s.length > 16 || !DECIMAL.test(s)) return INVALID
      const n = Number(s)
      return Number.isSafeInteger(n) ? n : INVALID
    },
    encode: (n) => (isSafeNatural(n) ? String(n) : INVALID),
    decimalTarget: "safe",
    expected: "a decimal safe integer",
    plain: true
  },
  "DecimalInt",
  arbitrarySafeInt
)

/**
 * A non-negative integer of any size written as a canonical decimal string, decoded to a `bigint`.
 * For amounts in wei or raw token units, gas, gas prices, supplies, token ids.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DecimalBigInt: Schema.Schema<bigint, string> = fromCodec(
  Schema.BigIntFromSelf,
  {
    decode: (s) => (DECIMAL.test(s) ? BigInt(s) : INVALID),
    check: (s) => DECIMAL.test(s),
    encode: (n) => (typeof n === "bigint" && n >= 0n ? n.toString() : INVALID),
    decimalTarget: "any",
    expected: "a decimal integer",
    plain: true
  },
  "DecimalBigInt",
  arbitraryBigInt
)

// ---------------------------------------------------------------------------------------------------------
// Numbers written as hex strings

/** getLogs style: zero is the bare `"0x"`, other values have no leading zero. */
const HEX_BARE_ZERO = /^0x(?:[1-9a-f][0-9a-f]*)?$/
/** JSON-RPC quantity style: zero is `"0x0"`, other values have no leading zero. */
const HEX_QUANTITY = /^0x(?:0|[1-9a-f][0-9a-f]*)$/

/**
 * getLogs hex (`"0x"` is zero) to canonical decimal text, or INVALID: up to 13 hex digits (below 2^52)
 * through a number, longer ones through a bigint (HexBigInt: any size).
 */
const hexToDecimal = (s: string): string | typeof INVALID => {
  if (s.length <= 15) {
    const n = shortHex(s)
    return n === INVALID ? INVALID : String(n)
  }
  return HEX_BARE_ZERO.test(s) ? BigInt(s).toString() : INVALID
}

const decodeHexInt = (s: string): number | typeof INVALID => {
  if (s.length <= 15) return shortHex(s)
  if (!HEX_BARE_ZERO.test(s)) return INVALID
  const n = Number.parseInt(s.slice(2), 16)
  return Number.isSafeInteger(n) ? n : INVALID
}

/** Lower-case hex digits by character code (-1: not one). */
const HEX_VALUE = new Int8Array(128).fill(-1)
for (let i = 0; i < 16; i++) HEX_VALUE["0123456789abcdef".charCodeAt(i)] = i

/**
 * The value of getLogs hex of up to 13 digits (below 2^52), read in one pass — what {@link HEX_BARE_ZERO}
 * and `parseInt` give together, without the regular expression and the copy: every hot log field (block,
 * time, gas, indexes) is one of these.
 */
const shortHex = (s: string): number | typeof INVALID => {
  const length = s.length
  if (length < 2 || s.charCodeAt(0) !== 48 || s.charCodeAt(1) !== 120) return INVALID
  let n = 0
  for (let i = 2; i < length; i++) {
    const c = s.charCodeAt(i)
    const digit = c < 128 ? (HEX_VALUE[c] as number) : -1
    // No other digit than hex, and no leading zero ("0x" alone is zero).
    if (digit < 0 || (digit === 0 && i === 2)) return INVALID
    n = n * 16 + digit
  }
  return n
}

/**
 * A non-negative integer in getLogs hex (`"0x"` is zero, `"0x1a"` is 26), decoded to a `number` (safe
 * integer). Encodes 0 back to `"0x"`. `"0x0"`, upper-case digits and leading zeros are rejected, since they
 * could not be written back unchanged; JSON-RPC answers use {@link HexQuantity} instead.
 *
 * @since 0.1.0
 * @category schemas
 */
export const HexInt: Schema.Schema<number, string> = fromCodec(
  Schema.Number,
  {
    decode: decodeHexInt,
    encode: (n) => (isSafeNatural(n) ? (n === 0 ? "0x" : "0x" + n.toString(16)) : INVALID),
    decimal: {
      text: (s) => {
        const n = decodeHexInt(s)
        return n === INVALID ? INVALID : String(n)
      },
      safe: true
    },
    expected: "a hex safe integer (\"0x\" for zero)",
    plain: true
  },
  "HexInt",
  arbitrarySafeInt
)

/**
 * A non-negative integer of any size in getLogs hex (`"0x"` is zero), decoded to a `bigint`. For getLogs
 * `gasPrice` and `gasUsed` (Gnosis answers `gasPrice` `"0x"`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const HexBigInt: Schema.Schema<bigint, string> = fromCodec(
  Schema.BigIntFromSelf,
  {
    decode: (s) => (HEX_BARE_ZERO.test(s) ? (s.length === 2 ? 0n : BigInt(s)) : INVALID),
    check: (s) => HEX_BARE_ZERO.test(s),
    encode: (n) => (typeof n === "bigint" && n >= 0n ? (n === 0n ? "0x" : "0x" + n.toString(16)) : INVALID),
    decimal: { text: hexToDecimal, safe: false },
    expected: "a hex integer (\"0x\" for zero)",
    plain: true
  },
  "HexBigInt",
  arbitraryBigInt
)

/**
 * A JSON-RPC quantity (`"0x0"` is zero, `"0x1a"` is 26, no leading zeros), decoded to a `number` (safe
 * integer). For `module=proxy` answers (block numbers, indexes).
 *
 * @since 0.1.0
 * @category schemas
 */
export const HexQuantity: Schema.Schema<number, string> = fromCodec(
  Schema.Number,
  {
    decode: (s) => {
      if (!HEX_QUANTITY.test(s)) return INVALID
      const n = Number.parseInt(s.slice(2), 16)
      return Number.isSafeInteger(n) ? n : INVALID
    },
    encode: (n) => (isSafeNatural(n) ? "0x" + n.toString(16) : INVALID),
    expected: "a hex quantity (\"0x0\" for zero)",
    plain: true
  },
  "HexQuantity",
  arbitrarySafeInt
)

/**
 * A JSON-RPC quantity of any size (`"0x0"` is zero), decoded to a `bigint`. For wei amounts and gas in
 * `module=proxy` answers, e.g. `eth_gasPrice`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const HexQuantityBigInt: Schema.Schema<bigint, string> = fromCodec(
  Schema.BigIntFromSelf,
  {
    decode: (s) => (HEX_QUANTITY.test(s) ? BigInt(s) : INVALID),
    check: (s) => HEX_QUANTITY.test(s),
    encode: (n) => (typeof n === "bigint" && n >= 0n ? "0x" + n.toString(16) : INVALID),
    expected: "a hex quantity (\"0x0\" for zero)",
    plain: true
  },
  "HexQuantityBigInt",
  arbitraryBigInt
)

// ---------------------------------------------------------------------------------------------------------
// Flags, empties, JSON numbers

/**
 * `"1"` ↔ `true`, `"0"` ↔ `false` (e.g. `isError`, `Proxy`); any other text fails.
 *
 * @since 0.1.0
 * @category schemas
 */
export const BooleanFromDigit: Schema.Schema<boolean, string> = fromCodec(
  Schema.Boolean,
  {
    decode: (s) => (s === "1" ? true : s === "0" ? false : INVALID),
    encode: (b) => (b === true ? "1" : b === false ? "0" : INVALID),
    expected: "\"0\" or \"1\"",
    plain: true
  },
  "BooleanFromDigit",
  (fc) => fc.boolean()
)

/**
 * Wraps a string-encoded schema so that the empty string decodes to `null` (and `null` encodes to `""`).
 * For typed fields the API sometimes leaves empty: `nonce` and `blockHash` of GENESIS rows,
 * `txreceipt_status` before Byzantium, `to` of contract creations, `contractAddress` of plain calls.
 * Wrapping one of this module's blocks gives a single transformation (as fast as the block itself).
 *
 * @since 0.1.0
 * @category schemas
 */
export const EmptyAsNull = <A, I extends string>(inner: Schema.Schema<A, I>): Schema.Schema<A | null, string> => {
  const innerType = Schema.typeSchema(inner)
  const isInner = Schema.is(innerType)
  const arbitrary: Arbitrary.LazyArbitrary<A | null> = (fc) => fc.option(Arbitrary.make(innerType), { nil: null })
  // The decoded side as one guard rather than a `NullOr` union: one check per field instead of a union walk.
  const to = Schema.declare((u: unknown): u is A | null => u === null || isInner(u), {
    identifier: "NullOr",
    arbitrary: () => arbitrary,
    pretty: () => (a) => (a === null ? "null" : Pretty.make(innerType)(a)),
    equivalence: () => (x, y) => (x === null || y === null ? x === y : Schema.equivalence(innerType)(x, y))
  })
  const codec = inner.ast.annotations[CodecId] as StringCodec<A> | undefined
  if (codec !== undefined) {
    return fromCodec(
      to,
      {
        decode: (s) => (s === "" ? null : codec.decode(s)),
        encode: (a) => (a === null ? "" : codec.encode(a)),
        check: (s) => s === "" || (codec.check === undefined ? codec.decode(s) !== INVALID : codec.check(s)),
        expected: `"" or ${codec.expected}`,
        plain: codec.plain === true
      },
      "EmptyAsNull",
      arbitrary
    )
  }
  const decodeInner = ParseResult.decodeUnknown(inner)
  const encodeInner = ParseResult.encodeUnknown(inner)
  return Schema.transformOrFail(Schema.String, to, {
    strict: true,
    decode: (s, options) => (s === "" ? ParseResult.succeed(null) : decodeInner(s, options)),
    encode: (a, options) => (a === null ? ParseResult.succeed("") : encodeInner(a, options))
  }).annotations({ identifier: "EmptyAsNull", arbitrary: () => arbitrary })
}

/**
 * An integer the API sends as a JSON number (dailytx `transactionCount`, fundedby `block`, nametag
 * `reputation` and `lastupdatedtimestamp`). Also accepts the same value as a decimal string (as the
 * exportaddresstags CSV writes it); decodes to a safe integer `number` and always encodes to the JSON number.
 *
 * @since 0.1.0
 * @category schemas
 */
export const JsonInt: Schema.Schema<number, number | string> = Schema.transformOrFail(
  Schema.Union(Schema.Number, Schema.String),
  Schema.Number,
  {
    strict: true,
    decode: (u, _, ast) => {
      const n = typeof u === "number" ? u : SIGNED_DECIMAL.test(u) && u.length <= 17 ? Number(u) : Number.NaN
      return Number.isSafeInteger(n)
        ? ParseResult.succeed(n)
        : ParseResult.fail(new ParseResult.Type(ast, u, `Expected a safe integer, got ${JSON.stringify(u)}`))
    },
    encode: (n, _, ast) =>
      Number.isSafeInteger(n)
        ? ParseResult.succeed(n)
        : ParseResult.fail(new ParseResult.Type(ast, n, `Expected a safe integer, got ${n}`))
  }
).annotations({ identifier: "JsonInt", arbitrary: () => (fc) => fc.integer({ min: -MAX_SAFE, max: MAX_SAFE }) })

/**
 * Any finite number the API sends as a JSON number (or as a plain decimal string), decoded to a `number`
 * and encoded to the JSON number. For JSON-number fields that are not integers.
 *
 * @since 0.1.0
 * @category schemas
 */
export const JsonNumber: Schema.Schema<number, number | string> = Schema.transformOrFail(
  Schema.Union(Schema.Number, Schema.String),
  Schema.Number,
  {
    strict: true,
    decode: (u, _, ast) => {
      const n = typeof u === "number" ? u : /^-?[0-9]+(?:\.[0-9]+)?$/.test(u) ? Number(u) : Number.NaN
      return Number.isFinite(n)
        ? ParseResult.succeed(n)
        : ParseResult.fail(new ParseResult.Type(ast, u, `Expected a finite number, got ${JSON.stringify(u)}`))
    },
    encode: (n, _, ast) =>
      Number.isFinite(n)
        ? ParseResult.succeed(n)
        : ParseResult.fail(new ParseResult.Type(ast, n, `Expected a finite number, got ${n}`))
  }
).annotations({ identifier: "JsonNumber", arbitrary: () => (fc) => fc.double({ noNaN: true, noDefaultInfinity: true }) })

// ---------------------------------------------------------------------------------------------------------
// Addresses and hashes: permissive field schemas for records

const ADDRESS_FIELD = /^(?:0x[0-9a-fA-F]{40}|GENESIS)$/
const HASH_FIELD = /^(?:0x[0-9a-fA-F]{64}|GENESIS_[0-9a-fA-F]{40})$/
const HEX_DATA = /^0x[0-9a-fA-F]*$/
const HASH32 = /^0x[0-9a-fA-F]{64}$/

/**
 * Hex digits (either case) by character code, over every UTF-16 code unit (64 KB): one load per
 * character and no range test, about a quarter faster on the hot path than a 128-entry table behind
 * a `c > 127` test, and faster than the regular expression on long log data.
 */
const HEX_DIGIT = new Uint8Array(65536)
for (const c of "0123456789abcdefABCDEF") HEX_DIGIT[c.charCodeAt(0)] = 1

/** Whether `s` from index `from` on is made of hex digits only. */
const hexFrom = (s: string, from: number): boolean => {
  const length = s.length
  for (let i = from; i < length; i++) {
    if (HEX_DIGIT[s.charCodeAt(i)] === 0) return false
  }
  return true
}

/** `0x` followed by exactly `digits` hex digits. */
const isPrefixedHex = (s: string, digits: number): boolean =>
  s.length === digits + 2 && s.charCodeAt(0) === 48 && s.charCodeAt(1) === 120 && hexFrom(s, 2)

/**
 * The patterns of the record fields as the hot path of every export tests them: the fixed-length ones as
 * plain loops over a table of every code unit (about twice as fast here as a counted repetition `{64}`
 * in a regular expression, and faster than the regular expression on long hex data too). Each gives
 * exactly the verdict of the schema's own regular expression.
 *
 * @since 0.1.0
 * @category utils
 */
export const fieldTests = {
  address: (s: string): boolean => (s.length === 42 ? isPrefixedHex(s, 40) : s === "GENESIS"),
  hash: (s: string): boolean =>
    s.length === 66 ? isPrefixedHex(s, 64) : s.length === 48 && s.startsWith("GENESIS_") && hexFrom(s, 8),
  hexData: (s: string): boolean => s.length >= 2 && s.charCodeAt(0) === 48 && s.charCodeAt(1) === 120 && hexFrom(s, 2),
  hash32: (s: string): boolean => isPrefixedHex(s, 64)
} as const

/** The codec of a string checked by a pattern (lets {@link EmptyAsNull} test it in one step). */
const patternCodec = (test: (s: string) => boolean, expected: string): StringCodec<string> => {
  return {
    decode: (s) => (test(s) ? s : INVALID),
    encode: (s) => (typeof s === "string" && test(s) ? s : INVALID),
    check: test,
    expected,
    // Every pattern of this module accepts only 0x, hex digits and GENESIS(_).
    plain: true
  }
}

/**
 * An address *field* of a record: `0x` + 40 hex digits in any case, or the pseudo-sender `"GENESIS"` of
 * genesis allocations. Kept as the server's string (no checksumming, no lower-casing).
 *
 * @since 0.1.0
 * @category schemas
 */
export const AddressField = Schema.String.pipe(Schema.pattern(ADDRESS_FIELD)).annotations({
  identifier: "AddressField",
  [CodecId]: patternCodec(fieldTests.address, "an address or \"GENESIS\"")
})
/**
 * The type of the values of the `AddressField` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type AddressField = typeof AddressField.Type

/**
 * A transaction or block hash *field* of a record: `0x` + 64 hex digits in any case, or the pseudo-hash
 * `"GENESIS_<40 hex>"` of genesis allocations. Kept as the server's string.
 *
 * @since 0.1.0
 * @category schemas
 */
export const HashField = Schema.String.pipe(Schema.pattern(HASH_FIELD)).annotations({
  identifier: "HashField",
  [CodecId]: patternCodec(fieldTests.hash, "a 32-byte hash or \"GENESIS_<address>\"")
})
/**
 * The type of the values of the `HashField` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type HashField = typeof HashField.Type

/**
 * Hex bytes of any length (`"0x"` for none), e.g. log `data`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const HexData = Schema.String.pipe(Schema.pattern(HEX_DATA)).annotations({
  identifier: "HexData",
  [CodecId]: patternCodec(fieldTests.hexData, "hex bytes")
})
/**
 * The type of the values of the `HexData` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type HexData = typeof HexData.Type

/**
 * A 32-byte hash, `0x` + 64 hex digits (either case): the log topics of records, and the validator of the
 * hashes and topics a caller passes (inputs.ts).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Hash32 = Schema.String.pipe(Schema.pattern(HASH32)).annotations({
  identifier: "Hash32",
  [CodecId]: patternCodec(fieldTests.hash32, "a 32-byte hash")
})
/**
 * The type of the values of the `Hash32` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type Hash32 = typeof Hash32.Type
