/**
 * File formats of an export: one record Schema drives both the decoding of the API's answers and the
 * columns and cells of the file, so the file cannot drift from the record.
 *
 * - Columns are the fields of the schema's *encoded* side, in the schema's field order.
 * - A row is `Schema.encode(schema)(record)`, written cell by cell:
 *   - CSV: written by csv-stringify (its sync `stringify`, a batch of rows per call) with RFC 4180
 *     quoting (a cell is quoted only when it holds a comma, a double quote, CR or LF; quotes are
 *     doubled), records ended by LF (`\n`) — the last one too —, UTF-8 without BOM, a header row of the
 *     column names. Its `cast` option writes the values: strings as they are, numbers in decimal,
 *     bigints as exact integers, booleans as `true`/`false`, dates in ISO 8601, any other array or
 *     object as its JSON text; null and absent fields are an empty cell; an array field named `topics`
 *     is the four columns `topic0..topic3` (missing topics empty).
 *   - JSONL: one JSON object per line, keys in column order, `\n` after every line; absent optional
 *     fields are left out, null stays null, bigints become exact decimal strings, `topics` stays an array.
 * - A `chainid` column (a `chainid` key in JSONL) comes first when the export spans several chains.
 * - Formula guard (CSV only, on by default; the `cast` of text cells): a text cell starting with `=`,
 *   `+`, `-`, `@`, tab or CR is prefixed with a single quote `'` so spreadsheets do not evaluate it; the
 *   rest of the cell is kept whole. Token names and symbols are chosen by whoever deploys the token.
 *   Cells written from numbers and bigints are not text and are never prefixed, nor is the chain id.
 *   `formulaGuard: false` writes every cell verbatim. (csv-stringify's own `escape_formulas` is not
 *   used: it also prefixes the full-width ＝ ＋ － ＠, which would change the files.)
 *
 * Speed: encoding is on the hot path of every export. Exports of the block-ordered data sets hand the
 * rows over already encoded ({@link encodedEncoder}: the client checked them on the wire and never built
 * the decoded values); otherwise, for a `Schema.Struct` record, the rows of a chunk are encoded by the
 * schemas' fast path (`recordsFastPath`: the same building blocks' checks in one loop, falling back to
 * `Schema.encode` row by row on anything unusual, which then reports the failing row). A CSV chunk is
 * written line by line: its rows of text cells (numbers, hex, addresses, names: nearly all) each by
 * one `join`, the others by one csv-stringify call (its options are read once per call, not per row),
 * the same bytes either way (`Csv.csvWriter`); `encode` joins the lines, `lines` gives them. A JSONL
 * line is written key by key, as JSON.stringify would write it, the cells the schema says are plain
 * text (`plainTextFields`: numbers, addresses, hashes, flags) as they are, without JSON escaping.
 *
 * @example
 * const encoder = yield* Format.encoder(Erc20Transfer, { format: "csv" })
 * const text = encoder.header + (yield* encoder.encode(rows))
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"
import { plainTextFields, recordsFastPath } from "../schemas/fastPath.js"
import { csvFailure, csvRecord, csvWriter, jsonText } from "./Csv.js"
import { SinkError } from "./SinkError.js"

/** The CSV text of cells and records, as every CSV of an export writes them. */
export { csvCell, csvRecord, csvRecordDelimiter, guardFormula } from "./Csv.js"

/**
 * The text formats the encoders of this module write.
 *
 * @since 0.1.0
 * @category models
 */
export type TextFormat = "csv" | "jsonl"

/**
 * The file formats an export can write (Parquet through `Parquet`, from the JSONL encoder's rows).
 *
 * @since 0.1.0
 * @category models
 */
export type FileFormat = TextFormat | "parquet"

/**
 * The name of the chain id column, first when the export spans several chains.
 *
 * @since 0.1.0
 * @category constants
 */
export const chainIdColumn = "chainid"

/**
 * The array field written as `topic0..topic3` in CSV.
 *
 * @since 0.1.0
 * @category constants
 */
export const topicsField = "topics"

/**
 * How many topic columns a `topics` field gets in CSV (an EVM log has at most 4).
 *
 * @since 0.1.0
 * @category constants
 */
export const topicColumns = 4

/**
 * The format of a file: the explicit one if given, else from the extension (`.csv`; `.jsonl` or
 * `.ndjson`; `.parquet`, case-insensitive). Any other extension is refused before anything runs.
 *
 * @since 0.1.0
 * @category encoding
 */
export const formatOf = (out: string, explicit?: FileFormat): Effect.Effect<FileFormat, SinkError> => {
  if (explicit !== undefined) return Effect.succeed(explicit)
  const lower = out.toLowerCase()
  if (lower.endsWith(".csv")) return Effect.succeed("csv")
  if (lower.endsWith(".jsonl") || lower.endsWith(".ndjson")) return Effect.succeed("jsonl")
  if (lower.endsWith(".parquet")) return Effect.succeed("parquet")
  return Effect.fail(
    new SinkError({
      reason: "InvalidInput",
      path: out,
      detail: "cannot tell the format from the file name: use a .csv, .jsonl, .ndjson or .parquet extension, or pass format"
    })
  )
}

/**
 * One field of a record's encoded side, as the file writes it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Field {
  readonly name: string
  /** Written as `topic0..topic3` in CSV. */
  readonly topics: boolean
}

const unwrap = (ast: SchemaAST.AST): SchemaAST.AST => {
  switch (ast._tag) {
    case "Suspend":
      return unwrap(ast.f())
    case "Refinement":
      return unwrap(ast.from)
    case "Transformation":
      return unwrap(ast.from)
    default:
      return ast
  }
}

const isArrayAst = (ast: SchemaAST.AST): boolean => {
  const node = unwrap(ast)
  if (node._tag === "TupleType") return true
  if (node._tag === "Union") return node.types.some(isArrayAst)
  return false
}

/** The property signatures of a struct-like encoded side (a union of structs merges its fields in order). */
const propertiesOf = (ast: SchemaAST.AST): Option.Option<ReadonlyArray<SchemaAST.PropertySignature>> => {
  const node = unwrap(ast)
  if (node._tag === "TypeLiteral") return Option.some(node.propertySignatures)
  if (node._tag === "Union") {
    const out: Array<SchemaAST.PropertySignature> = []
    const seen = new Set<PropertyKey>()
    for (const member of node.types) {
      const inner = unwrap(member)
      // `undefined`/`null` members (an optional record) add no column.
      if (inner._tag === "UndefinedKeyword" || (inner._tag === "Literal" && inner.literal === null)) continue
      const props = propertiesOf(inner)
      if (Option.isNone(props)) return Option.none()
      for (const ps of props.value) {
        if (!seen.has(ps.name)) {
          seen.add(ps.name)
          out.push(ps)
        }
      }
    }
    return out.length === 0 ? Option.none() : Option.some(out)
  }
  return Option.none()
}

/**
 * The fields of a record schema's encoded side, in the schema's order: what a file's columns derive from.
 * Fails (`InvalidInput`) when the encoded side is not a struct.
 *
 * @since 0.1.0
 * @category encoding
 */
export const fieldsOf = <A, I>(schema: Schema.Schema<A, I, never>): Either.Either<ReadonlyArray<Field>, string> => {
  const props = propertiesOf(Schema.encodedSchema(schema).ast)
  if (Option.isNone(props)) {
    return Either.left(`the record schema's encoded side is not a struct (${String(schema.ast)})`)
  }
  const fields: Array<Field> = []
  for (const ps of props.value) {
    if (typeof ps.name !== "string") continue
    fields.push({ name: ps.name, topics: ps.name === topicsField && isArrayAst(ps.type) })
  }
  return Either.right(fields)
}

/**
 * What an encoder needs: the format, whether rows carry a chain id, and the CSV formula guard.
 *
 * @since 0.1.0
 * @category models
 */
export interface EncoderOptions<A> {
  /** `parquet` is refused: Parquet rows are the JSONL encoder's objects, written by `Parquet`. */
  readonly format: FileFormat
  /** The chain of a row, when the export spans several chains: adds the `chainid` column. */
  readonly chainIdOf?: ((row: A) => number) | undefined
  /** CSV only: prefix `'` to text cells starting with = + - @ tab CR (default true). */
  readonly formulaGuard?: boolean | undefined
}

/**
 * Turns records into the text of a file: the header (CSV) and rows, chunk by chunk.
 *
 * @since 0.1.0
 * @category models
 */
export interface RowEncoder<A> {
  readonly format: TextFormat
  /** The file's columns, in order (CSV: after the `topics` expansion; JSONL: the keys). */
  readonly columns: ReadonlyArray<string>
  /** The first bytes of a new file: the CSV header row, or "" for JSONL. */
  readonly header: string
  /** The text of some rows, each ending with `\n`; "" for none. Fails on a record that does not encode. */
  readonly encode: (rows: Iterable<A>) => Effect.Effect<string, SinkError>
  /**
   * The same text row by row: each row's line (ending with `\n`) as a string of its own, compact enough
   * to be held (exports keep a page's lines, not its records, until the page's last block is known).
   * Joined, the lines are what `encode` gives. Fails on a record that does not encode.
   */
  readonly lines: (rows: ReadonlyArray<A>) => Either.Either<ReadonlyArray<string>, SinkError>
  /**
   * JSONL only: each row as the object its line reads back as (`JSON.parse` of the line), built without
   * the text: what a Parquet file takes (its rows are the JSONL export's), with no encode-then-parse.
   */
  readonly objects?: ((rows: ReadonlyArray<A>) => Either.Either<ReadonlyArray<Record<string, unknown>>, SinkError>) | undefined
}

/**
 * A value as `JSON.parse` reads back the JSON text the JSONL line writes for it; undefined when the line
 * leaves the key out (a function). Plain values are their own; only objects go through their JSON text.
 */
const jsonValue = (value: unknown): unknown => {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value
    case "bigint":
      return value.toString()
    case "number":
      // JSON writes -0 as 0 and NaN/±Infinity as null.
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : null
    case "object":
      if (value === null) return null
      if (isPlainList(value)) return value
      return JSON.parse(jsonText(value)) as unknown
    default:
      return undefined
  }
}

const encodeFailure = (index: number, error: ParseResult.ParseError): SinkError =>
  new SinkError({
    reason: "Encode",
    path: "<record>",
    detail: `record ${index} of the chunk does not encode with the record schema: ${error.message}`
  })

const topicsFailure = (index: number, value: unknown): SinkError =>
  new SinkError({
    reason: "Encode",
    path: "<record>",
    detail: `record ${index} of the chunk has ${
      Array.isArray(value) ? `${value.length} topics` : "topics that are not an array"
    }; CSV has the columns topic0..topic${topicColumns - 1}`
  })

/** The struct behind a record schema, when it is one (the fast path's case). */
const structOf = <A, I>(schema: Schema.Schema<A, I, never>): Schema.Struct<Schema.Struct.Fields> | undefined =>
  "fields" in schema && schema.ast._tag === "TypeLiteral" ? (schema as unknown as Schema.Struct<Schema.Struct.Fields>) : undefined

const isPlainList = (value: unknown): value is ReadonlyArray<string> =>
  Array.isArray(value) && value.every((item) => typeof item === "string")

/**
 * An encoder for a record schema: derives the columns from the schema's encoded side and writes rows
 * as described in this module's header. Fails (`InvalidInput`) when the schema has no struct form.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encoder = <A, I>(
  schema: Schema.Schema<A, I, never>,
  options: EncoderOptions<A>
): Effect.Effect<RowEncoder<A>, SinkError> => make<A, I, A>(schema, options, false)

/**
 * An encoder of rows already in the schema's encoded form, as `ExplorerClient.fileRecords` and
 * `fileRecordsMapped` deliver them (`Sources` `lineBatches` hands them to this encoder's `lines`): every
 * field the schema declares holds its encoded value, checked by the schema (keys it does not declare
 * are never read). The file is the same as {@link encoder} writes from the decoded rows; the rows are
 * written as they are, without encoding them again.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodedEncoder = <A, I>(
  schema: Schema.Schema<A, I, never>,
  options: EncoderOptions<I>
): Effect.Effect<RowEncoder<I>, SinkError> => make<A, I, I>(schema, options, true)

const make = <A, I, Row>(
  schema: Schema.Schema<A, I, never>,
  options: EncoderOptions<Row>,
  rowsEncoded: boolean
): Effect.Effect<RowEncoder<Row>, SinkError> =>
  Effect.gen(function*() {
    if (options.format === "parquet") {
      return yield* new SinkError({
        reason: "InvalidInput",
        path: "<schema>",
        detail: "a text encoder writes csv or jsonl; Parquet files are written by Parquet.open from the jsonl rows"
      })
    }
    const format: TextFormat = options.format
    const fields = yield* Either.mapLeft(
      fieldsOf(schema),
      (detail) => new SinkError({ reason: "InvalidInput", path: "<schema>", detail })
    )
    const names = fields.map((f) => f.name)
    if (options.chainIdOf !== undefined && names.includes(chainIdColumn)) {
      return yield* new SinkError({
        reason: "InvalidInput",
        path: "<schema>",
        detail: `the record already has a "${chainIdColumn}" field; it cannot take the chain id column too`
      })
    }
    const encodeRow = Schema.encodeEither(schema)
    const struct = structOf(schema)
    const fast = struct === undefined ? undefined : recordsFastPath(struct)
    const plainNames = struct === undefined ? new Set<string>() : plainTextFields(struct)
    const plain = fields.map((f) => plainNames.has(f.name))
    const chainIdOf = options.chainIdOf
    const guard = options.formulaGuard ?? true

    /**
     * The encoded form of every row of a chunk (rows given encoded are their own), or the failure of the
     * first row that does not encode.
     */
    const encodeAll = (rows: ReadonlyArray<Row>): ReadonlyArray<unknown> | SinkError => {
      if (rowsEncoded) return rows
      const quick = fast?.encode(rows as unknown as ReadonlyArray<Schema.Struct.Type<Schema.Struct.Fields>>)
      if (quick !== undefined) return quick
      const out: Array<unknown> = new Array(rows.length)
      for (let i = 0; i < rows.length; i++) {
        const encoded = encodeRow(rows[i] as unknown as A)
        if (Either.isLeft(encoded)) return encodeFailure(i, encoded.left)
        out[i] = encoded.right
      }
      return out
    }

    /** Encodes a chunk and writes each row with `line` (JSONL); "" for none. */
    const encodeWith = (line: (row: Row, source: Record<string, unknown>, index: number) => string | SinkError) =>
    (rows: Iterable<Row>): Effect.Effect<string, SinkError> =>
      Effect.suspend(() => {
        const list: ReadonlyArray<Row> = Array.isArray(rows) ? rows : Array.from(rows)
        const sources = encodeAll(list)
        if (sources instanceof SinkError) return Effect.fail(sources)
        // Appended line after line: the text is flattened once, when it is written (joining an array of
        // lines flattens each line first, then copies it again).
        let text = ""
        for (let i = 0; i < list.length; i++) {
          const out = line(list[i] as Row, sources[i] as Record<string, unknown>, i)
          if (typeof out !== "string") return Effect.fail(out)
          text += out
        }
        return Effect.succeed(text)
      })

    /** Encodes a chunk and gives each row's line on its own (JSONL). */
    const linesWith = (line: (row: Row, source: Record<string, unknown>, index: number) => string | SinkError) =>
    (list: ReadonlyArray<Row>): Either.Either<ReadonlyArray<string>, SinkError> => {
      const sources = encodeAll(list)
      if (sources instanceof SinkError) return Either.left(sources)
      const lines: Array<string> = new Array(list.length)
      for (let i = 0; i < list.length; i++) {
        const out = line(list[i] as Row, sources[i] as Record<string, unknown>, i)
        if (typeof out !== "string") return Either.left(out)
        // Text added piece by piece is a tree of its pieces until something reads it; reading one
        // character makes it one flat string (V8), far lighter to hold by the thousand.
        out.charCodeAt(0)
        lines[i] = out
      }
      return Either.right(lines)
    }

    const columns: Array<string> = chainIdOf !== undefined ? [chainIdColumn] : []
    if (format === "jsonl") {
      columns.push(...names)
      // `"name":` of every key, as JSON.stringify of the whole line writes it.
      const keys = names.map((name) => `${JSON.stringify(name)}:`)
      const chainIdKey = `${JSON.stringify(chainIdColumn)}:`
      // The line is written key by key (what JSON.stringify of the whole record would write, twice as
      // fast): plain-text values and lists of them need no escaping, and keys the record holds beyond
      // the columns are never read.
      const line = (row: Row, source: Record<string, unknown>): string => {
        let text = "{"
        let first = true
        if (chainIdOf !== undefined) {
          text += chainIdKey + jsonText(chainIdOf(row))
          first = false
        }
        for (let j = 0; j < names.length; j++) {
          const value = source[names[j] as string]
          if (value === undefined) continue
          const json: string | undefined = plain[j] !== true
            ? jsonText(typeof value === "bigint" ? value.toString() : value)
            : typeof value === "string"
            ? `"${value}"`
            : isPlainList(value)
            ? (value.length === 0 ? "[]" : `["${value.join("\",\"")}"]`)
            : jsonText(typeof value === "bigint" ? value.toString() : value)
          // A value JSON cannot write (a function): JSON.stringify of the whole line would leave the key out.
          if (json === undefined) continue
          text += (first ? "" : ",") + (keys[j] as string) + json
          first = false
        }
        return text + "}\n"
      }
      /** The row as `JSON.parse(line(row, source))` reads it (the same keys, in the same order, the same values). */
      const object = (row: Row, source: Record<string, unknown>): Record<string, unknown> => {
        const out: Record<string, unknown> = {}
        if (chainIdOf !== undefined) out[chainIdColumn] = jsonValue(chainIdOf(row))
        for (let j = 0; j < names.length; j++) {
          const name = names[j] as string
          const value = source[name]
          if (value === undefined) continue
          const json = jsonValue(value)
          if (json !== undefined) out[name] = json
        }
        return out
      }
      const objects = (list: ReadonlyArray<Row>): Either.Either<ReadonlyArray<Record<string, unknown>>, SinkError> => {
        const sources = encodeAll(list)
        if (sources instanceof SinkError) return Either.left(sources)
        const out: Array<Record<string, unknown>> = new Array(list.length)
        for (let i = 0; i < list.length; i++) out[i] = object(list[i] as Row, sources[i] as Record<string, unknown>)
        return Either.right(out)
      }
      return { format: "jsonl", columns, header: "", encode: encodeWith(line), lines: linesWith(line), objects } satisfies RowEncoder<Row>
    }
    for (const field of fields) {
      if (field.topics) for (let i = 0; i < topicColumns; i++) columns.push(`topic${i}`)
      else columns.push(field.name)
    }
    // The chain id is not text: the guard starts after it.
    const write = csvWriter(guard ? (chainIdOf !== undefined ? 1 : 0) : undefined)

    /**
     * The lines of a chunk: each row's cells (the chain id, then the fields, `topics` spread over four
     * cells), written as csv-stringify writes them (`csvWriter`).
     */
    const csvLines = (list: ReadonlyArray<Row>): Array<string> | SinkError => {
      const sources = encodeAll(list)
      if (sources instanceof SinkError) return sources
      const records: Array<Array<unknown>> = new Array(list.length)
      for (let r = 0; r < list.length; r++) {
        const source = sources[r] as Record<string, unknown>
        const cells: Array<unknown> = chainIdOf !== undefined ? [String(chainIdOf(list[r] as Row))] : []
        for (const field of fields) {
          const value = source[field.name]
          if (!field.topics) {
            cells.push(value)
            continue
          }
          const topics: ReadonlyArray<unknown> = Array.isArray(value) ? value : []
          if (topics.length > topicColumns || (value !== undefined && value !== null && !Array.isArray(value))) {
            return topicsFailure(r, value)
          }
          for (let i = 0; i < topicColumns; i++) cells.push(topics[i])
        }
        records[r] = cells
      }
      try {
        return write(records)
      } catch (error) {
        // A value no cast writes (a function, an invalid date): csv-stringify throws.
        return csvFailure(error)
      }
    }

    return {
      format: "csv",
      columns,
      header: csvRecord(columns),
      encode: (rows) =>
        Effect.suspend(() => {
          const lines = csvLines(Array.isArray(rows) ? rows : Array.from(rows))
          return lines instanceof SinkError ? Effect.fail(lines) : Effect.succeed(lines.join(""))
        }),
      lines: (list) => {
        const lines = csvLines(list)
        return lines instanceof SinkError ? Either.left(lines) : Either.right(lines)
      }
    } satisfies RowEncoder<Row>
  })
