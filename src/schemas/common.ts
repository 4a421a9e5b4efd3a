/**
 * Building blocks shared by every record schema, the response envelopes, and the small validators the
 * client runs on its inputs before it sends a request.
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
 * carry `arbitrary` annotations (so `Arbitrary.make(record)` yields valid records). Record decoding is on the
 * hot path of every export: {@link decodeRecords} / {@link encodeRecords} give exactly what
 * `Schema.decodeUnknown(Schema.Array(row))` / `Schema.encode(…)` give, several times faster, by running the
 * blocks' own checks in one plain loop (and deferring to the schema on anything unusual).
 *
 * @example
 * import { Schema } from "effect"
 * import { DecimalBigInt, HexInt } from "explorer-etl"
 * Schema.decodeUnknownSync(DecimalBigInt)("12345678901234567890") // 12345678901234567890n
 * Schema.decodeUnknownSync(HexInt)("0x")                           // 0 (getLogs writes zero as "0x")
 */
import * as Arbitrary from "effect/Arbitrary"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Pretty from "effect/Pretty"
import * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"

// ---------------------------------------------------------------------------------------------------------
// String codecs: one regular-expression test and one conversion per field, in a single transformation

/** What a codec returns for text (or a value) it does not accept. */
const INVALID: unique symbol = Symbol.for("explorer-etl/schemas/Invalid")

/** The raw functions of a string-encoded building block (also used by {@link EmptyAsNull}). */
interface StringCodec<A> {
  readonly decode: (s: string) => A | typeof INVALID
  /** Checks the value's type itself, so that the record codecs can call it on unchecked input. */
  readonly encode: (a: unknown) => string | typeof INVALID
  /** Words for error messages: "a decimal safe integer". */
  readonly expected: string
  /**
   * Every text `encode` returns is made of `[0-9A-Za-z_]` only (decimal or hex numbers, addresses,
   * hashes, flags): a file writes it as is, without CSV quoting, formula guard or JSON escaping.
   */
  readonly plain?: boolean
  /** A cheaper test with `decode`'s verdict, for callers that keep the text (no conversion). */
  readonly check?: (s: string) => boolean
  /**
   * Hex blocks: the value of an accepted text written in canonical decimal, straight from the text
   * (`"0x1a"` → `"26"`), INVALID for what `decode` refuses; `safe`: every value is a safe integer.
   */
  readonly decimal?: { readonly text: (s: string) => string | typeof INVALID; readonly safe: boolean }
  /** Decimal blocks: which values they write (`"safe"`: safe integers only). */
  readonly decimalTarget?: "safe" | "any"
}

/** Annotation under which a building block keeps its codec. */
const CodecId: unique symbol = Symbol.for("explorer-etl/schemas/StringCodec")

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

/** `"1"` ↔ `true`, `"0"` ↔ `false` (e.g. `isError`, `Proxy`); any other text fails. */
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
// Addresses and hashes: permissive field schemas for records, strict validators for inputs

const ADDRESS_FIELD = /^(?:0x[0-9a-fA-F]{40}|GENESIS)$/
const HASH_FIELD = /^(?:0x[0-9a-fA-F]{64}|GENESIS_[0-9a-fA-F]{40})$/
const HEX_DATA = /^0x[0-9a-fA-F]*$/
const HASH32 = /^0x[0-9a-fA-F]{64}$/

/** Hex digits (either case) by character code. */
const HEX_DIGIT = new Uint8Array(128)
for (const c of "0123456789abcdefABCDEF") HEX_DIGIT[c.charCodeAt(0)] = 1

/** Whether `s` from index `from` on is made of hex digits only. */
const hexFrom = (s: string, from: number): boolean => {
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c > 127 || HEX_DIGIT[c] === 0) return false
  }
  return true
}

/** `0x` followed by exactly `digits` hex digits. */
const isPrefixedHex = (s: string, digits: number): boolean =>
  s.length === digits + 2 && s.charCodeAt(0) === 48 && s.charCodeAt(1) === 120 && hexFrom(s, 2)

/**
 * The patterns of the record fields as the hot path of every export tests them: the fixed-length ones as
 * plain loops (about twice as fast here as a counted repetition `{64}` in a regular expression), the
 * open-ended hex data with its regular expression (faster than a loop on long texts). Each gives exactly
 * the verdict of the schema's own regular expression (test/schemas checks the two agree).
 */
export const fieldTests = {
  address: (s: string): boolean => (s.length === 42 ? isPrefixedHex(s, 40) : s === "GENESIS"),
  hash: (s: string): boolean =>
    s.length === 66 ? isPrefixedHex(s, 64) : s.length === 48 && s.startsWith("GENESIS_") && hexFrom(s, 8),
  hexData: (s: string): boolean => HEX_DATA.test(s),
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
 */
export const AddressField = Schema.String.pipe(Schema.pattern(ADDRESS_FIELD)).annotations({
  identifier: "AddressField",
  [CodecId]: patternCodec(fieldTests.address, "an address or \"GENESIS\"")
})
/** @see AddressField */
export type AddressField = typeof AddressField.Type

/**
 * A transaction or block hash *field* of a record: `0x` + 64 hex digits in any case, or the pseudo-hash
 * `"GENESIS_<40 hex>"` of genesis allocations. Kept as the server's string.
 */
export const HashField = Schema.String.pipe(Schema.pattern(HASH_FIELD)).annotations({
  identifier: "HashField",
  [CodecId]: patternCodec(fieldTests.hash, "a 32-byte hash or \"GENESIS_<address>\"")
})
/** @see HashField */
export type HashField = typeof HashField.Type

/** Hex bytes of any length (`"0x"` for none), e.g. log `data`. */
export const HexData = Schema.String.pipe(Schema.pattern(HEX_DATA)).annotations({
  identifier: "HexData",
  [CodecId]: patternCodec(fieldTests.hexData, "hex bytes")
})
/** @see HexData */
export type HexData = typeof HexData.Type

/** Input validator: an address, `0x` + 40 hex digits (either case; the checksum is not verified). */
export const Address = Schema.String.pipe(Schema.pattern(/^0x[0-9a-fA-F]{40}$/)).annotations({ identifier: "Address" })
/** @see Address */
export type Address = typeof Address.Type

/** Input validator: a 32-byte hash, `0x` + 64 hex digits (either case). Also the log topics of records. */
export const Hash32 = Schema.String.pipe(Schema.pattern(HASH32)).annotations({
  identifier: "Hash32",
  [CodecId]: patternCodec(fieldTests.hash32, "a 32-byte hash")
})
/** @see Hash32 */
export type Hash32 = typeof Hash32.Type

/** Input validator: a transaction hash (a {@link Hash32}). */
export const TxHash = Hash32.annotations({ identifier: "TxHash" })
/** @see TxHash */
export type TxHash = typeof TxHash.Type

/** Input validator: a log topic (a {@link Hash32}). */
export const Topic = Hash32.annotations({ identifier: "Topic" })
/** @see Topic */
export type Topic = typeof Topic.Type

// ---------------------------------------------------------------------------------------------------------
// Other input validators

const isLeapYear = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const

/** Whether `s` is a real calendar date written `yyyy-MM-dd` (proleptic Gregorian, years 0001–9999). */
export const isIsoDate = (s: string): boolean => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s)
  if (m === null) return false
  const year = Number(m[1])
  const month = Number(m[2])
  const day = Number(m[3])
  if (year < 1 || month < 1 || month > 12 || day < 1) return false
  const days = month === 2 && isLeapYear(year) ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0)
  return day <= days
}

/** Input validator: a calendar date `yyyy-MM-dd` (startdate/enddate of the daily stats); `2026-02-30` fails. */
export const IsoDate = Schema.String.pipe(
  Schema.filter(isIsoDate, { description: "a real calendar date written yyyy-MM-dd" })
).annotations({
  identifier: "IsoDate",
  arbitrary: () => (fc) =>
    fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10))
})
/** @see IsoDate */
export type IsoDate = typeof IsoDate.Type

/** Input validator: a block number the client may send (a non-negative safe integer). */
export const BlockNumberInput = Schema.NonNegativeInt.annotations({ identifier: "BlockNumberInput" })
/** @see BlockNumberInput */
export type BlockNumberInput = typeof BlockNumberInput.Type

/** Input validator: the `sort` parameter of the list operations. */
export const Sort = Schema.Literal("asc", "desc").annotations({ identifier: "Sort" })
/** @see Sort */
export type Sort = typeof Sort.Type

/** Input validator: the `closest` parameter of getblocknobytime. */
export const Closest = Schema.Literal("before", "after").annotations({ identifier: "Closest" })
/** @see Closest */
export type Closest = typeof Closest.Type

/** Input validator: a getLogs topic operator (`topic0_1_opr` …). */
export const TopicOperator = Schema.Literal("and", "or").annotations({ identifier: "TopicOperator" })
/** @see TopicOperator */
export type TopicOperator = typeof TopicOperator.Type

// ---------------------------------------------------------------------------------------------------------
// Response bodies

/**
 * The envelope of every non-proxy answer (and of gateway errors on proxy calls): `status` `"1"`/`"0"`,
 * `message` (`"OK"`, `"NOTOK"`, `"No transactions found"` …) and `result`, whose shape depends on the
 * operation and on success (records, a string, an error text, `[]`, `null`). The client classifies it and
 * then decodes `result` with the operation's record schema.
 */
export const Envelope = Schema.Struct({
  status: Schema.String,
  message: Schema.String,
  result: Schema.Unknown
}).annotations({ identifier: "Envelope" })
/** @see Envelope */
export type Envelope = typeof Envelope.Type

/** The `id` of a JSON-RPC body (the server sends numbers such as 1, 73, 83). */
export const JsonRpcId = Schema.Union(Schema.Number, Schema.String, Schema.Null).annotations({ identifier: "JsonRpcId" })
/** @see JsonRpcId */
export type JsonRpcId = typeof JsonRpcId.Type

/** The `error` object of a failed JSON-RPC answer; `code` is a JSON number, `data` the revert bytes if any. */
export const JsonRpcError = Schema.Struct({
  code: Schema.Number,
  message: Schema.String,
  data: Schema.optional(Schema.String)
}).annotations({ identifier: "JsonRpcError" })
/** @see JsonRpcError */
export type JsonRpcError = typeof JsonRpcError.Type

/**
 * A successful `module=proxy` answer: `{ jsonrpc, id, result }`. `result` is usually a hex string or an
 * object, and `null` for a missing object (unknown transaction hash).
 */
export const JsonRpcSuccess = Schema.Struct({
  jsonrpc: Schema.String,
  id: JsonRpcId,
  result: Schema.Unknown
}).annotations({ identifier: "JsonRpcSuccess" })
/** @see JsonRpcSuccess */
export type JsonRpcSuccess = typeof JsonRpcSuccess.Type

/** A failed `module=proxy` answer: `{ jsonrpc, id, error: { code, message, data? } }`. */
export const JsonRpcFailure = Schema.Struct({
  jsonrpc: Schema.String,
  id: JsonRpcId,
  error: JsonRpcError
}).annotations({ identifier: "JsonRpcFailure" })
/** @see JsonRpcFailure */
export type JsonRpcFailure = typeof JsonRpcFailure.Type

/**
 * Either JSON-RPC form (the failure is tried first, as it is the one with a required `error` key). A proxy
 * call can also be answered with an {@link Envelope} (rate limit, key, chain errors): tell them apart by
 * the presence of `jsonrpc`.
 */
export const JsonRpcResponse = Schema.Union(JsonRpcFailure, JsonRpcSuccess).annotations({ identifier: "JsonRpcResponse" })
/** @see JsonRpcResponse */
export type JsonRpcResponse = typeof JsonRpcResponse.Type

// ---------------------------------------------------------------------------------------------------------
// Fast paths for lists of records

/**
 * One field of a record compiled for the fast path: its conversions return the value, or INVALID
 * whenever the fast path is not sure (the whole list then goes through the schema).
 */
interface FastField {
  readonly key: string
  readonly optional: boolean
  readonly decode: (u: unknown) => unknown
  readonly encode: (a: unknown) => unknown
  /** The encoded value only ever holds text made of `[0-9A-Za-z_]` (see `StringCodec.plain`). */
  readonly plain: boolean
  /**
   * What the field's text means: `"string"` (any text), its building block's codec, or `undefined` (a
   * schema of another kind). Two fields with the same meaning, and the same `list`, read the same text to
   * the same value and write it back unchanged: a transcoder passes such a field through as it is.
   */
  readonly meaning: StringCodec<unknown> | "string" | undefined
  /** A list of such values (`Schema.Array(block)`). */
  readonly list: boolean
}

const isString = (u: unknown): u is string => typeof u === "string"

const stringField = (u: unknown): unknown => (typeof u === "string" ? u : INVALID)

const codecArray = (convert: (item: unknown) => unknown) => (u: unknown): unknown => {
  if (!Array.isArray(u)) return INVALID
  const items: Array<unknown> = new Array(u.length)
  for (let i = 0; i < u.length; i++) {
    const x = convert(u[i])
    if (x === INVALID) return INVALID
    items[i] = x
  }
  return items
}

const fromEither = (f: (u: unknown) => Either.Either<unknown, ParseResult.ParseIssue>) => (u: unknown): unknown => {
  const e = f(u)
  return Either.isLeft(e) ? INVALID : e.right
}

/**
 * Compiles the fields of a struct, or `undefined` when one of them is of a kind the fast path leaves to
 * the schema (optional fields with defaults or renaming, …). `preserve`: nested schemas keep unknown keys.
 */
const compileFields = (fields: Schema.Struct.Fields, preserve: boolean): ReadonlyArray<FastField> | undefined => {
  const options: SchemaAST.ParseOptions = { onExcessProperty: preserve ? "preserve" : "ignore" }
  const out: Array<FastField> = []
  for (const key of Object.keys(fields)) {
    const field = fields[key]
    let schema: Schema.Schema.Any
    let optional = false
    if (Schema.isSchema(field)) {
      schema = field
    } else if (
      Schema.isPropertySignature(field) && "from" in field && Schema.isSchema(field.from) &&
      field.ast._tag === "PropertySignatureDeclaration" && field.ast.isOptional && field.ast.defaultValue === undefined
    ) {
      // Schema.optional(x): the key may be missing (variants with defaults or renaming are left to the schema)
      schema = field.from
      optional = true
    } else {
      return undefined
    }
    const ast = schema.ast
    const codec = ast.annotations[CodecId] as StringCodec<unknown> | undefined
    // Schema.Array(block): no fixed elements, one rest element
    const elementCodec = ast._tag === "TupleType" && ast.elements.length === 0 && ast.rest.length === 1
      ? (ast.rest[0]?.type.annotations[CodecId] as StringCodec<unknown> | undefined)
      : undefined
    if (ast._tag === "StringKeyword") {
      out.push({ key, optional, decode: stringField, encode: stringField, plain: false, meaning: "string", list: false })
    } else if (codec !== undefined) {
      const decode = codec.decode
      out.push({
        key,
        optional,
        decode: (u) => (isString(u) ? decode(u) : INVALID),
        encode: codec.encode,
        plain: codec.plain === true,
        meaning: codec,
        list: false
      })
    } else if (elementCodec !== undefined) {
      const decode = elementCodec.decode
      out.push({
        key,
        optional,
        decode: codecArray((item) => (isString(item) ? decode(item) : INVALID)),
        encode: codecArray(elementCodec.encode),
        plain: elementCodec.plain === true,
        meaning: elementCodec,
        list: true
      })
    } else {
      const decode = ParseResult.decodeUnknownEither(schema as Schema.Schema<unknown, unknown>)
      const encode = ParseResult.encodeUnknownEither(schema as Schema.Schema<unknown, unknown>)
      out.push({
        key,
        optional,
        decode: fromEither((u) => decode(u, options)),
        encode: fromEither((u) => encode(u, options)),
        plain: false,
        meaning: undefined,
        list: false
      })
    }
  }
  return out
}

const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key)

/**
 * Maps every element of `input` field by field, or gives up with FALLBACK at the first doubt. With
 * `excess` (the declared keys), keys the struct does not declare are copied first, as the schema does
 * with `onExcessProperty: "preserve"`; without it they are dropped.
 */
const runFields = (
  fields: ReadonlyArray<FastField>,
  input: unknown,
  decoding: boolean,
  excess: ReadonlySet<string> | undefined
): Array<Record<string, unknown>> | typeof FALLBACK => {
  if (!Array.isArray(input)) return FALLBACK
  const n = fields.length
  const out: Array<Record<string, unknown>> = new Array(input.length)
  for (let r = 0; r < input.length; r++) {
    const row: unknown = input[r]
    if (typeof row !== "object" || row === null || Array.isArray(row)) return FALLBACK
    const record = row as Record<string, unknown>
    const result: Record<string, unknown> = {}
    if (excess !== undefined) {
      for (const key in record) {
        if (excess.has(key)) continue
        // Inherited keys, and `__proto__` (an assignment would set the prototype), are the schema's business.
        if (key === "__proto__" || !hasOwn(record, key)) return FALLBACK
        result[key] = record[key]
      }
    }
    for (let i = 0; i < n; i++) {
      const field = fields[i] as FastField
      const v = record[field.key]
      if (v === undefined) {
        if (field.optional && !hasOwn(record, field.key)) continue
        return FALLBACK
      }
      const x = decoding ? field.decode(v) : field.encode(v)
      if (x === INVALID) return FALLBACK
      result[field.key] = x
    }
    out[r] = result
  }
  return out
}

/** Sentinel of the fast path: "not sure, let the schema do it". */
const FALLBACK: unique symbol = Symbol.for("explorer-etl/schemas/Fallback")

/** Options of {@link recordsFastPath} and {@link decodeRecords}. */
export interface FastPathOptions {
  /**
   * Keys of an input record the struct does not declare: dropped (`"ignore"`, the default) or kept
   * (`"preserve"`, as the client decodes), exactly as the schema's own option. Records are read as
   * `JSON.parse` makes them (own enumerable string keys).
   */
  readonly onExcessProperty?: "ignore" | "preserve" | undefined
}

/**
 * The fast path of {@link decodeRecords} / {@link encodeRecords} on its own: plain functions that return
 * the decoded (or encoded) list, or `undefined` whenever they leave the work to the schema (unusual input,
 * invalid values, fields of kinds they do not know). What they return equals what the schema gives
 * (decoding with the same `onExcessProperty`; encoding drops undeclared keys, as the schema does).
 */
export const recordsFastPath = <Fields extends Schema.Struct.Fields>(row: Schema.Struct<Fields>, options: FastPathOptions = {}): {
  readonly decode: (input: unknown) => ReadonlyArray<Schema.Struct<Fields>["Type"]> | undefined
  readonly encode: (records: ReadonlyArray<Schema.Struct<Fields>["Type"]>) => ReadonlyArray<Schema.Struct<Fields>["Encoded"]> | undefined
} => {
  const preserve = options.onExcessProperty === "preserve"
  const fields = compileFields(row.fields, preserve)
  const encodeFields = preserve ? compileFields(row.fields, false) : fields
  const declared = preserve && fields !== undefined ? new Set(fields.map((f) => f.key)) : undefined
  return {
    decode: (input) => {
      const out = fields === undefined ? FALLBACK : runFields(fields, input, true, declared)
      // Every value was checked by the very building block the schema would have used.
      return out === FALLBACK ? undefined : (out as unknown as ReadonlyArray<Schema.Struct<Fields>["Type"]>)
    },
    encode: (records) => {
      const out = encodeFields === undefined ? FALLBACK : runFields(encodeFields, records, false, undefined)
      return out === FALLBACK ? undefined : (out as unknown as ReadonlyArray<Schema.Struct<Fields>["Encoded"]>)
    }
  }
}

/**
 * The fields of a struct whose encoded value only ever holds text made of `[0-9A-Za-z_]` — numbers written
 * in decimal or hex, addresses, hashes, flags, and lists of them —, so that a file can write them without
 * CSV quoting, formula guard or JSON escaping. Empty when the struct is not one the fast path knows.
 */
export const plainTextFields = <Fields extends Schema.Struct.Fields>(row: Schema.Struct<Fields>): ReadonlySet<string> => {
  const fields = compileFields(row.fields, false)
  return new Set(fields === undefined ? [] : fields.filter((f) => f.plain).map((f) => f.key))
}

/**
 * The decoder of a list of records (`result` of a list operation): the same as
 * `Schema.decodeUnknown(Schema.Array(row), options)`, same values, same errors, several times faster.
 * Each field is read with its building block's own check and conversion in one plain loop; on any value
 * the fast path is not sure of, the whole list goes through the schema, which then gives the usual
 * `ParseError`.
 *
 * @example
 * const decodeTransactions = decodeRecords(NormalTransaction)
 * const rows = yield* decodeTransactions(envelope.result)   // ReadonlyArray<NormalTransaction>
 */
export const decodeRecords = <Fields extends Schema.Struct.Fields>(row: Schema.Struct<Fields>, options: FastPathOptions = {}) => {
  const fast = recordsFastPath(row, options)
  const slow = Schema.decodeUnknown(Schema.Array(row), { onExcessProperty: options.onExcessProperty ?? "ignore" })
  return (
    input: unknown
  ): Effect.Effect<ReadonlyArray<Schema.Struct<Fields>["Type"]>, ParseResult.ParseError, Schema.Struct.Context<Fields>> => {
    const out = fast.decode(input)
    return out === undefined ? slow(input) : Effect.succeed(out)
  }
}

/**
 * The encoder of a list of records back to the server's JSON form: the same as
 * `Schema.encode(Schema.Array(row))`, with the fast path of {@link decodeRecords}.
 */
export const encodeRecords = <Fields extends Schema.Struct.Fields>(row: Schema.Struct<Fields>) => {
  const fast = recordsFastPath(row)
  const slow = Schema.encode(Schema.Array(row))
  return (
    records: ReadonlyArray<Schema.Struct<Fields>["Type"]>
  ): Effect.Effect<ReadonlyArray<Schema.Struct<Fields>["Encoded"]>, ParseResult.ParseError, Schema.Struct.Context<Fields>> => {
    const out = fast.encode(records)
    return out === undefined ? slow(records) : Effect.succeed(out)
  }
}

/** Whether a codec accepts a text, without keeping the value (the cheaper `check` when it has one). */
const accepts = (codec: StringCodec<unknown>): ((s: string) => boolean) => {
  const check = codec.check
  if (check !== undefined) return check
  const decode = codec.decode
  return (s) => decode(s) !== INVALID
}

/**
 * The conversion of one field from the wire's text to the file's: the text itself when both sides mean
 * the same (after checking it), else the file's writing of the wire's reading; INVALID on any doubt.
 */
/** Whether two fields read the same text to the same value and write it back unchanged. */
const sameMeaning = (wire: FastField, file: FastField): boolean =>
  wire.meaning !== undefined && wire.meaning === file.meaning && wire.list === file.list

const transcodeField = (wire: FastField, file: FastField): (u: unknown) => unknown => {
  if (sameMeaning(wire, file) && wire.meaning !== undefined) {
    if (wire.meaning === "string") return stringField
    const ok = accepts(wire.meaning)
    if (!wire.list) return (u) => (typeof u === "string" && ok(u) ? u : INVALID)
    return (u) => {
      if (!Array.isArray(u)) return INVALID
      for (let i = 0; i < u.length; i++) {
        const item: unknown = u[i]
        if (typeof item !== "string" || !ok(item)) return INVALID
      }
      return u
    }
  }
  // Hex to decimal (getLogs numbers in a file): straight from text to text, when every value fits.
  const decimal = typeof wire.meaning === "object" && !wire.list ? wire.meaning.decimal : undefined
  const target = typeof file.meaning === "object" && !file.list ? file.meaning.decimalTarget : undefined
  if (decimal !== undefined && (target === "any" || (target === "safe" && decimal.safe))) {
    const text = decimal.text
    return (u) => (typeof u === "string" ? text(u) : INVALID)
  }
  const decode = wire.decode
  const encode = file.encode
  return (u) => {
    const a = decode(u)
    return a === INVALID ? INVALID : encode(a)
  }
}

/**
 * A transcoder of lists of records: from the wire's encoding (`wire`, as the API answers) straight to a
 * file's encoding (`file`, e.g. `LogFileRow` for getLogs, or the same struct), without building the
 * decoded records in between. It accepts exactly what `Schema.decodeUnknown(Schema.Array(wire))` accepts
 * and gives the fields of `Schema.encode(Schema.Array(file))` of that, or `undefined` whenever it is not
 * sure — invalid values, unusual input — and the caller then goes through the schemas, which give the
 * usual errors. The transcoder itself is `undefined` when a field of `file` is missing from `wire` or of
 * a kind the fast path does not know.
 *
 * It works **in place**: the records it returns are the input's own objects (and array), every field of
 * `file` checked and, where the two encodings differ, rewritten (getLogs hex `"0x1a"` → `"26"`); fields
 * that mean the same on both sides (same building block: addresses, hashes, the account lists' decimal
 * amounts) are left as the server wrote them. Keys `file` does not declare stay, so read the records
 * by `file`'s fields (a file writes only those). Nothing is changed unless every record passes, so the
 * input is intact for the schemas when it returns `undefined`. Meant for freshly parsed answers.
 *
 * @example
 * const toFileRows = transcodeRecords(Log, LogFileRow)
 * toFileRows?.(JSON.parse(body).result) // [{ address, topics, data, blockNumber: "12878196", … }] or undefined
 */
export const transcodeRecords = <WireFields extends Schema.Struct.Fields, FileFields extends Schema.Struct.Fields>(
  wire: Schema.Struct<WireFields>,
  file: Schema.Struct<FileFields>
): ((input: unknown) => ReadonlyArray<Schema.Struct<FileFields>["Encoded"]> | undefined) | undefined => {
  const wireFields = compileFields(wire.fields, false)
  const fileFields = compileFields(file.fields, false)
  if (wireFields === undefined || fileFields === undefined) return undefined
  const byKey = new Map(wireFields.map((f) => [f.key, f]))
  const keys: Array<string> = []
  const optional: Array<boolean> = []
  const checks: Array<(u: unknown) => unknown> = []
  /** Positions (in `keys`) of the fields whose text changes, and their number. */
  const rewritten: Array<number> = []
  /** For each field, its rank among the rewritten ones, or -1 when its text stays. */
  const rank: Array<number> = []
  for (const f of fileFields) {
    const w = byKey.get(f.key)
    // An assignment to `__proto__` would set the prototype: such a record is the schemas' business.
    if (w === undefined || f.key === "__proto__") return undefined
    const same = sameMeaning(w, f)
    rank.push(same ? -1 : rewritten.length)
    if (!same) rewritten.push(keys.length)
    keys.push(f.key)
    optional.push(w.optional)
    checks.push(transcodeField(w, f))
  }
  const n = keys.length
  const m = rewritten.length
  return (input) => {
    if (!Array.isArray(input)) return undefined
    // First every record is checked and its new texts kept aside; only then are they written, so that
    // an answer the transcoder gives up on is left as it came.
    const texts: Array<unknown> = m === 0 ? [] : new Array(input.length * m)
    for (let r = 0; r < input.length; r++) {
      const row: unknown = input[r]
      if (typeof row !== "object" || row === null || Array.isArray(row)) return undefined
      const record = row as Record<string, unknown>
      for (let i = 0; i < n; i++) {
        const key = keys[i] as string
        const v = record[key]
        if (v === undefined) {
          // Absent where the wire allows it: absent from the file record too (the file then says if it minds).
          if (optional[i] === true && !hasOwn(record, key)) continue
          return undefined
        }
        const x = (checks[i] as (u: unknown) => unknown)(v)
        if (x === INVALID) return undefined
        const k = rank[i] as number
        if (k >= 0) texts[r * m + k] = x
      }
    }
    for (let r = 0; r < input.length && m > 0; r++) {
      const record = input[r] as Record<string, unknown>
      for (let k = 0; k < m; k++) {
        const x = texts[r * m + k]
        // An optional field the record leaves out stays out.
        if (x !== undefined) record[keys[rewritten[k] as number] as string] = x
      }
    }
    return input as ReadonlyArray<Schema.Struct<FileFields>["Encoded"]>
  }
}
