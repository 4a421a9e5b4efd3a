/**
 * @internal The columns of a Parquet file: their description, the Parquet schema element of each type,
 * the conversion of a row's cell to the value the column stores, and the derivation of the columns from
 * a record schema.
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import type { schemaPathResolver } from "hyparquet-writer/src/schema.js"
import * as Registry from "../../streams/datasets/index.js"
import { SinkError } from "../SinkError.js"

/** A Parquet schema element, as hyparquet-writer takes it. */
export type SchemaElement = Parameters<typeof schemaPathResolver>[0][number]

/**
 * What a column stores:
 * - `int64`: a signed 64-bit integer (block numbers, indexes, nonces, gas of a block);
 * - `timestamp`: unix seconds in the row, stored as a Parquet `TIMESTAMP(MILLIS, UTC)` (Parquet has no
 *   seconds unit), so DuckDB, pandas and polars read an instant;
 * - `string`: UTF-8 text as it is in the row (addresses, hashes, hex data, names);
 * - `decimalString`: an exact decimal number as UTF-8 text (`"1000000000000000000000"`, `"2.5"`): every
 *   amount that can pass 2^63, which no Parquet integer or DECIMAL(38) holds; hex cells are written in
 *   decimal. Cast in SQL (`value::HUGEINT`, `value::DOUBLE`) or read the `float64` companion;
 * - `float64`: a double (a companion of an amount: the nearest double, not exact);
 * - `bool`: a boolean (`"1"`/`"0"`, `"true"`/`"false"` in the row).
 *
 * @since 0.1.0
 * @category models
 */
export type ColumnType = "int64" | "timestamp" | "string" | "decimalString" | "float64" | "bool"

/**
 * Every {@link ColumnType}, for the schema of a column description.
 *
 * @since 0.1.0
 * @category constants
 */
export const columnTypes = ["int64", "timestamp", "string", "decimalString", "float64", "bool"] as const

/**
 * One column of a Parquet file. Every column is OPTIONAL (nullable): a cell that is absent, `null`, or
 * `""` in a column that is not text is written as NULL.
 *
 * @since 0.1.0
 * @category models
 */
export interface Column {
  /** The column's name in the file. */
  readonly name: string
  readonly type: ColumnType
  /** The row's field the cell comes from (default: `name`); a `float64` companion reads its amount's field. */
  readonly field?: string | undefined
  /** For an array field: which element (the `topics` of a log give `topic0`..`topic3`). */
  readonly index?: number | undefined
  /** Text columns: `""` is written as NULL (fields the API leaves empty for "none", like `to` of a creation). */
  readonly emptyAsNull?: boolean | undefined
}

/**
 * A cell of a row: what the encoded side of the library's record schemas holds.
 *
 * @since 0.1.0
 * @category models
 */
export type Cell = string | number | bigint | boolean | null | undefined

/**
 * A row to write: the encoded form of a record (field → cell, or a list of cells such as `topics`).
 *
 * @since 0.1.0
 * @category models
 */
export type Row = Readonly<Record<string, Cell | ReadonlyArray<Cell>>>

/**
 * The Parquet schema element of a column. Every column is OPTIONAL. Text is `BYTE_ARRAY` + `UTF8`;
 * timestamps carry both the logical type and the legacy converted type, for older readers.
 */
export const schemaElementOf = (column: Column): SchemaElement => {
  const { name } = column
  switch (column.type) {
    case "int64":
      return { name, type: "INT64", repetition_type: "OPTIONAL" }
    case "timestamp":
      return {
        name,
        type: "INT64",
        repetition_type: "OPTIONAL",
        converted_type: "TIMESTAMP_MILLIS",
        logical_type: { type: "TIMESTAMP", isAdjustedToUTC: true, unit: "MILLIS" }
      }
    case "string":
    case "decimalString":
      return { name, type: "BYTE_ARRAY", repetition_type: "OPTIONAL", converted_type: "UTF8" }
    case "float64":
      return { name, type: "DOUBLE", repetition_type: "OPTIONAL" }
    case "bool":
      return { name, type: "BOOLEAN", repetition_type: "OPTIONAL" }
  }
}

/**
 * Whether a column keeps min/max statistics. Numbers and flags do (readers skip row groups by block or
 * time). Text does not: the bounds of random addresses and hashes rarely let a reader skip anything,
 * decimal strings compare as text rather than as numbers, and text bounds would make every row group's
 * checkpoint entry grow with the text; they also cost a quarter of the writing time.
 */
export const hasStatistics = (type: ColumnType): boolean =>
  type === "int64" || type === "timestamp" || type === "float64" || type === "bool"

// ---------------------------------------------------------------------------------------------------------
// Cells → stored values

/** A cell that does not fit its column, in words. */
export class CellError {
  constructor(readonly detail: string) {}
}

/** The value a column stores for a cell (bigint, number, boolean or string), or null. */
export type Stored = bigint | number | boolean | string | null

const SIGNED_DECIMAL = /^-?(?:0|[1-9][0-9]*)$/
const DECIMAL_TEXT = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/
const HEX = /^0x[0-9a-fA-F]*$/
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

const describe = (value: unknown): string =>
  typeof value === "string" ? JSON.stringify(value.length > 80 ? value.slice(0, 80) + "…" : value) : String(value)

/** A decimal or hex (`"0x"` is zero, as getLogs writes it) integer cell as a bigint. */
const bigintOf = (value: Cell): bigint | CellError => {
  if (typeof value === "bigint") return value
  if (typeof value === "number") {
    return Number.isSafeInteger(value) ? BigInt(value) : new CellError(`${value} is not a safe integer`)
  }
  if (typeof value === "string") {
    if (SIGNED_DECIMAL.test(value)) return BigInt(value)
    if (HEX.test(value)) return value.length === 2 ? 0n : BigInt(value)
  }
  return new CellError(`${describe(value)} is not an integer`)
}

const int64Of = (value: Cell): bigint | CellError => {
  const n = bigintOf(value)
  if (n instanceof CellError) return n
  return n < INT64_MIN || n > INT64_MAX ? new CellError(`${value} does not fit a 64-bit integer`) : n
}

const isEmpty = (value: unknown): value is null | undefined | "" =>
  value === undefined || value === null || value === ""

const bigintReplacer = (_key: string, value: unknown): unknown =>
  typeof value === "bigint" ? value.toString() : value

/** The converter of one column: a cell to the value it stores. */
export type Converter = (value: Cell | ReadonlyArray<Cell>) => Stored | CellError

/** The converter of cells of a column type (see {@link ColumnType}). */
export const converterOf = (column: Column): Converter => {
  switch (column.type) {
    case "int64":
      return (value) => (isEmpty(value) ? null : Array.isArray(value) ? notScalar(value) : int64Of(value as Cell))
    case "timestamp":
      return (value) => {
        if (isEmpty(value)) return null
        if (Array.isArray(value)) return notScalar(value)
        const seconds = int64Of(value as Cell)
        if (seconds instanceof CellError) return seconds
        const millis = seconds * 1000n
        return millis < INT64_MIN || millis > INT64_MAX ? new CellError(`${seconds} s is out of range`) : millis
      }
    case "decimalString":
      return (value) => {
        if (isEmpty(value)) return null
        if (typeof value === "string") {
          if (DECIMAL_TEXT.test(value)) return value
          if (HEX.test(value)) return value.length === 2 ? "0" : BigInt(value).toString()
          return new CellError(`${describe(value)} is not a decimal number`)
        }
        if (typeof value === "bigint") return value.toString()
        if (typeof value === "number" && Number.isSafeInteger(value)) return String(value)
        return new CellError(`${describe(value)} is not an exact decimal number`)
      }
    case "float64":
      return (value) => {
        if (isEmpty(value)) return null
        let n: number
        if (typeof value === "number") n = value
        else if (typeof value === "bigint") n = Number(value)
        else if (typeof value === "string" && DECIMAL_TEXT.test(value)) n = Number(value)
        else if (typeof value === "string" && HEX.test(value)) n = value.length === 2 ? 0 : Number(BigInt(value))
        else return new CellError(`${describe(value)} is not a number`)
        return Number.isFinite(n) ? n : new CellError(`${describe(value)} is not a finite number`)
      }
    case "bool":
      return (value) => {
        if (isEmpty(value)) return null
        if (value === true || value === "1" || value === "true") return true
        if (value === false || value === "0" || value === "false") return false
        return new CellError(`${describe(value)} is not a flag ("1"/"0", "true"/"false")`)
      }
    case "string": {
      const emptyAsNull = column.emptyAsNull === true
      return (value) => {
        if (typeof value === "string") return value === "" && emptyAsNull ? null : value
        if (value === undefined || value === null) return null
        // Lists and other values without a text form of their own are written as JSON text, as in CSV.
        if (typeof value === "object") return JSON.stringify(value, bigintReplacer)
        return String(value)
      }
    }
  }
}

const notScalar = (value: ReadonlyArray<Cell>): CellError =>
  new CellError(`a list (${describe(JSON.stringify(value, bigintReplacer))}) is not a single value`)

/** Whether a column stores UTF-8 text. */
export const isText = (type: ColumnType): boolean => type === "string" || type === "decimalString"

/**
 * The UTF-8 bytes of a text column's values: one buffer for the whole column and a view of it per value
 * (null stays null), where hyparquet-writer would encode each string into a buffer of its own.
 */
export const utf8Views = (values: ReadonlyArray<Stored>): Array<Uint8Array | null> => {
  let units = 0
  for (const value of values) if (typeof value === "string") units += value.length
  // A UTF-16 code unit takes at most 3 bytes of UTF-8 (a surrogate pair: 2 units, 4 bytes).
  const bytes = Buffer.allocUnsafe(units * 3)
  const views = new Array<Uint8Array | null>(values.length)
  let at = 0
  for (let i = 0; i < values.length; i++) {
    const value = values[i]
    if (typeof value !== "string") {
      views[i] = null
      continue
    }
    const written = bytes.write(value, at, "utf8")
    views[i] = bytes.subarray(at, at + written)
    at += written
  }
  return views
}

/** The cell of a column in a row: its field, or an element of its array field. */
export const cellOf = (column: Column): (row: Row) => Cell | ReadonlyArray<Cell> | CellError => {
  const field = column.field ?? column.name
  const index = column.index
  if (index === undefined) return (row) => row[field]
  return (row) => {
    const value = row[field]
    if (value === undefined || value === null) return undefined
    if (!Array.isArray(value)) return new CellError(`${field} is not a list`)
    return (value as ReadonlyArray<Cell>)[index]
  }
}

// ---------------------------------------------------------------------------------------------------------
// Record schema → columns

/**
 * Options of `deriveColumns`.
 *
 * @since 0.1.0
 * @category models
 */
export interface DeriveOptions {
  /** Types by field name, over the derived ones (and over the built-in table). */
  readonly overrides?: Readonly<Record<string, ColumnType>> | undefined
  /** Adds a `float64` companion `<name>_float` after every `decimalString` column (default false). */
  readonly floats?: boolean | undefined
  /** Adds an `int64` `chainid` column first, as CSV/JSONL do for exports over several chains. */
  readonly chainId?: boolean | undefined
}

/** The Parquet types the data sets of the registry give (`Dataset.parquet`), by their record's identifier. */
const datasetOverrides = (): Array<readonly [string, Readonly<Record<string, ColumnType>>]> =>
  Registry.list(Registry.library).flatMap((dataset) => {
    const { parquet, schema } = dataset
    if (parquet === undefined || schema === undefined || !Schema.isSchema(schema)) return []
    const identifier = Option.getOrUndefined(SchemaAST.getIdentifierAnnotation(schema.ast))
    return identifier === undefined ? [] : [[identifier, parquet] as const]
  })

/**
 * Types the schema alone cannot tell, by record identifier (the `identifier` annotation of the record
 * schemas in src/schemas): text fields that hold decimal numbers or flags. The data sets' come from
 * the registry (streams/datasets/); tokeninfo's record is read by one call, not a data set.
 *
 * @since 0.1.0
 * @category constants
 */
export const knownOverrides: Readonly<Record<string, Readonly<Record<string, ColumnType>>>> = {
  ...Object.fromEntries(datasetOverrides()),
  TokenInfo: { tokenPriceUSD: "decimalString", blueCheckmark: "bool" }
}

/** How many `topicN` columns a log's `topics` gives (an EVM log has at most 4), as in CSV. */
const topicColumns = 4

const unwrapEncoded = (ast: SchemaAST.AST): SchemaAST.AST => {
  switch (ast._tag) {
    case "Suspend":
      return unwrapEncoded(ast.f())
    case "Refinement":
    case "Transformation":
      return unwrapEncoded(ast.from)
    case "Union": {
      // An optional field's encoded side is `X | undefined`.
      const defined = ast.types.filter((t) => t._tag !== "UndefinedKeyword")
      return defined.length === 1 ? unwrapEncoded(defined[0] as SchemaAST.AST) : ast
    }
    default:
      return ast
  }
}

const timestampName = /timestamp$/i

/**
 * The library's building blocks whose numbers are integers although their decoded side is a plain
 * `Schema.Number` (src/schemas/common.ts); `EmptyAsNull` only ever wraps one of them around a number.
 */
const integerBlocks = new Set(["DecimalInt", "HexInt", "HexQuantity", "JsonInt", "EmptyAsNull"])

/** The identifier of a field's schema (of the defined member, for an optional field). */
const identifierOf = (field: SchemaAST.AST): string | undefined => {
  const defined = field._tag === "Union" ? field.types.filter((t) => t._tag !== "UndefinedKeyword") : [field]
  const only = defined.length === 1 ? defined[0] : undefined
  return only === undefined ? undefined : Option.getOrUndefined(SchemaAST.getIdentifierAnnotation(only))
}

/**
 * The type of a field from its decoded side, probed with one value of each kind: a guard that accepts a
 * boolean is a flag, a bigint an exact amount, a number an integer when it refuses 0.5 or is one of the
 * library's integer blocks (else a float), anything else text. A decoded side that accepts `null` is a
 * field the API leaves `""` for "none".
 */
const probe = (name: string, field: SchemaAST.AST): { type: ColumnType; emptyAsNull: boolean } => {
  const is = Schema.is(Schema.make(SchemaAST.typeAST(field)))
  const emptyAsNull = is(null)
  // A field of any value (`Schema.Unknown`: an event's `args` object, its arrays and tuples) is text:
  // its JSON, as in CSV. Probed before the kinds below, which such a guard accepts too.
  if (is("text") && is(1) && is(true) && is({})) return { type: "string", emptyAsNull: false }
  if (is(true) && is(false)) return { type: "bool", emptyAsNull }
  if (is(1n)) return { type: "decimalString", emptyAsNull }
  if (is(1)) {
    const integer = !is(0.5) || integerBlocks.has(identifierOf(field) ?? "")
    if (!integer) return { type: "float64", emptyAsNull }
    return { type: timestampName.test(name) ? "timestamp" : "int64", emptyAsNull }
  }
  return { type: "string", emptyAsNull }
}

/**
 * The columns of a record schema, in the order of its fields (the order of the CSV columns): see
 * `Parquet.columnsOf` for the rules. Fails when the schema is not a struct.
 */
export const deriveColumns = <A, I>(
  schema: Schema.Schema<A, I, never>,
  options: DeriveOptions = {}
): Either.Either<ReadonlyArray<Column>, SinkError> => {
  const encoded = unwrapEncoded(SchemaAST.encodedAST(schema.ast))
  if (encoded._tag !== "TypeLiteral") {
    return Either.left(
      new SinkError({
        reason: "InvalidInput",
        path: "<schema>",
        detail: `a Parquet file needs a record schema that is a struct (${String(schema.ast)})`
      })
    )
  }
  const identifier = Option.getOrUndefined(SchemaAST.getIdentifierAnnotation(schema.ast))
  const table = { ...(identifier === undefined ? {} : knownOverrides[identifier]), ...options.overrides }
  // The fields' own schemas (their identifiers and guards): the struct itself, the struct a Schema.Class
  // is made from, or else the decoded side when it is a struct.
  const decoded = SchemaAST.typeAST(schema.ast)
  const struct = unwrapStruct(schema.ast) ?? (decoded._tag === "TypeLiteral" ? decoded : undefined)
  const fields = new Map<PropertyKey, SchemaAST.AST>()
  for (const ps of struct?.propertySignatures ?? []) fields.set(ps.name, ps.type)
  const columns: Array<Column> = options.chainId === true ? [{ name: "chainid", type: "int64" }] : []
  for (const ps of encoded.propertySignatures) {
    if (typeof ps.name !== "string") continue
    const name = ps.name
    const shape = unwrapEncoded(ps.type)
    if (shape._tag === "TupleType") {
      if (name === "topics") {
        for (let i = 0; i < topicColumns; i++) columns.push({ name: `topic${i}`, type: "string", field: name, index: i })
      } else {
        columns.push({ name, type: table[name] ?? "string" })
      }
      continue
    }
    const field = fields.get(name)
    const probed = field === undefined ? { type: "string" as const, emptyAsNull: false } : probe(name, field)
    const type = table[name] ?? probed.type
    columns.push(type === "string" && probed.emptyAsNull ? { name, type, emptyAsNull: true } : { name, type })
    if (type === "decimalString" && options.floats === true) {
      columns.push({ name: `${name}_float`, type: "float64", field: name })
    }
  }
  return Either.right(columns)
}

/** The struct behind a record schema (a `Schema.Class`'s is the `from` of its transformation). */
const unwrapStruct = (ast: SchemaAST.AST): SchemaAST.TypeLiteral | undefined => {
  if (ast._tag === "TypeLiteral") return ast
  if (ast._tag === "Transformation") return unwrapStruct(ast.from)
  if (ast._tag === "Refinement") return unwrapStruct(ast.from)
  return undefined
}
