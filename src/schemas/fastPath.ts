/**
 * The fast path of record lists, the hot path of every export: a compiler that reads a record struct's
 * fields — the building blocks of common.ts, which carry their raw {@link StringCodec} — and gives plain
 * loops that decode, encode or transcode a whole list exactly as the schemas would, several times faster.
 * On anything they are not sure of (unusual input, invalid values, fields of kinds they do not know)
 * they give up with `undefined`, and the caller goes through the schemas, which give the usual errors.
 *
 * - {@link recordsFastPath}: decode and encode on their own; {@link decodeRecords} / {@link encodeRecords}
 *   with the schema as fallback (the same values and errors as `Schema.decodeUnknown(Schema.Array(row))`);
 * - {@link transcodeRecords}: from the wire's encoding straight to a file's, without the decoded records;
 * - {@link plainTextFields}: the fields a file may write without quoting or escaping.
 *
 * @example
 * import { Schemas } from "explorer-etl"
 * const decodeTransactions = Schemas.decodeRecords(Schemas.NormalTransaction)
 * const toFileRows = Schemas.transcodeRecords(Schemas.Log, Schemas.LogFileRow)
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"

// ---------------------------------------------------------------------------------------------------------
// What a building block tells the fast path

/** What a codec returns for text (or a value) it does not accept. */
export const INVALID: unique symbol = Symbol.for("explorer-etl/schemas/Invalid")

/**
 * The raw functions of a string-encoded building block (common.ts), kept on its schema under
 * {@link CodecId}: what the fast path runs in place of the schema's transformation.
 */
export interface StringCodec<A> {
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
export const CodecId: unique symbol = Symbol.for("explorer-etl/schemas/StringCodec")

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

/**
 * Options of {@link recordsFastPath} and {@link decodeRecords}.
 *
 * @since 0.1.0
 * @category models
 */
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
 *
 * @since 0.1.0
 * @category decoding
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
 *
 * @since 0.1.0
 * @category decoding
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
 *
 * @since 0.1.0
 * @category decoding
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
 *
 * @since 0.1.0
 * @category decoding
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

/** Whether two fields read the same text to the same value and write it back unchanged. */
const sameMeaning = (wire: FastField, file: FastField): boolean =>
  wire.meaning !== undefined && wire.meaning === file.meaning && wire.list === file.list

/**
 * The conversion of one field from the wire's text to the file's: the text itself when both sides mean
 * the same (after checking it), else the file's writing of the wire's reading; INVALID on any doubt.
 */
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
 *
 * @since 0.1.0
 * @category decoding
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
