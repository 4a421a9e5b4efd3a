/**
 * Records of the `nametag` module: address metadata (`getaddresstag`, JSON), the bulk export of the same
 * records (`exportaddresstags`, a `;`-delimited CSV file behind a download URL) and the label master list.
 *
 * CSV files (RFC-4180 quoting with `;` as delimiter, every cell double-quoted, `""` for a quote inside a
 * cell, CRLF line ends, header first) are read with {@link parseAddressTagsCsv} and written with
 * {@link formatAddressTagsCsv} (the simulator writes its own with simulator/tagFiles.ts, so this parser is
 * checked against another writer, not against itself). The column order is the field
 * order of {@link AddressTag}, which is the header of the docs.
 *
 * List cells (`labels`, `labels_slug`, `other_attributes`) hold, as the docs' sample file shows
 * (`"Phish / Hack";"phish-hack";"2";""`), the items joined with `,` (`""` for none). A list that cannot be
 * written that way without ambiguity (an item that is empty, contains a `,`, or a first item starting with
 * `[`) is written as JSON array text (`["a,b","c"]`); a cell starting with `[` that parses as a JSON array of
 * strings is read that way. So `parse(format(rows))` gives back `rows` exactly.
 *
 * @example
 * import { Schemas } from "explorer-etl"
 * const text = Schemas.formatAddressTagsCsv(tags)   // the file's text
 * const back = Schemas.parseAddressTagsCsv(text)    // Effect<ReadonlyArray<AddressTag>, ParseError>, deep-equals tags
 */
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { AddressField, JsonInt } from "./common.js"

// ---------------------------------------------------------------------------------------------------------
// JSON records

/**
 * One row of `nametag/getaddresstag`: the public name tag and labels of an address. `labels`,
 * `labels_slug` and `other_attributes` are JSON arrays; `reputation` and `lastupdatedtimestamp` JSON numbers.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AddressTag = Schema.Struct({
  address: AddressField,
  /** Public name tag (`"Coinbase 10"`), `""` when none. */
  nametag: Schema.String,
  /** Etherscan's internal name tag, usually `""`. */
  internal_nametag: Schema.String,
  /** Website of the entity, `""` when none. */
  url: Schema.String,
  shortdescription: Schema.String,
  /** Free-text notes (warnings such as phishing reports). */
  notes_1: Schema.String,
  notes_2: Schema.String,
  /** Label names (`["Coinbase", "Exchange"]`). */
  labels: Schema.Array(Schema.String),
  /** Label slugs, same order as `labels` (`["coinbase", "exchange"]`). */
  labels_slug: Schema.Array(Schema.String),
  /** Reputation score (a JSON number; `0` neutral, `2` in phishing exports). */
  reputation: JsonInt,
  /** Extra attributes; the docs only show an empty array, items assumed to be strings. */
  other_attributes: Schema.Array(Schema.String),
  /** Last update, unix seconds (a JSON number). */
  lastupdatedtimestamp: JsonInt
}).annotations({ identifier: "AddressTag" })
/**
 * The type of the values of the `AddressTag` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type AddressTag = typeof AddressTag.Type
/**
 * Wire form of {@link AddressTag}.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace AddressTag {
  /**
   * The record exactly as the server sends it.
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof AddressTag.Encoded
}

/**
 * One row of `nametag/getlabelmasterlist`: a label (category) that addresses can carry.
 *
 * @since 0.1.0
 * @category schemas
 */
export const LabelMaster = Schema.Struct({
  /** Display name (`"Axelar"`). */
  labelname: Schema.String,
  /** Slug, the `label` parameter of exportaddresstags (`"axelar"`). */
  labelslug: Schema.String,
  shortdescription: Schema.String,
  notes: Schema.String,
  /** Last update, unix seconds (a JSON number). */
  lastupdatedtimestamp: JsonInt
}).annotations({ identifier: "LabelMaster" })
/**
 * The type of the values of the `LabelMaster` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type LabelMaster = typeof LabelMaster.Type
/**
 * Wire form of {@link LabelMaster}.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace LabelMaster {
  /**
   * The record exactly as the server sends it.
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof LabelMaster.Encoded
}

// ---------------------------------------------------------------------------------------------------------
// CSV cells

/**
 * Writes a list into one CSV cell (see the module comment for the rules).
 *
 * @since 0.1.0
 * @category csv
 */
export const formatListCell = (items: ReadonlyArray<string>): string => {
  if (items.length === 0) return ""
  const plain = !(items[0] ?? "").startsWith("[") && items.every((item) => item !== "" && !item.includes(","))
  return plain ? items.join(",") : JSON.stringify(items)
}

const parseJsonStringArray = (cell: string): ReadonlyArray<string> | undefined => {
  try {
    const value: unknown = JSON.parse(cell)
    return Array.isArray(value) && value.every((item): item is string => typeof item === "string") ? value : undefined
  } catch {
    return undefined
  }
}

/**
 * Reads a list from one CSV cell: `""` → `[]`, JSON array text → its items, otherwise split on `,`.
 *
 * @since 0.1.0
 * @category csv
 */
export const parseListCell = (cell: string): ReadonlyArray<string> =>
  cell === "" ? [] : (cell.startsWith("[") ? parseJsonStringArray(cell) : undefined) ?? cell.split(",")

/**
 * A CSV cell holding a list of strings (see the module comment).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListCell: Schema.Schema<ReadonlyArray<string>, string> = Schema.transform(
  Schema.String,
  Schema.Array(Schema.String),
  { strict: true, decode: parseListCell, encode: formatListCell }
).annotations({ identifier: "ListCell" })

const SIGNED_DECIMAL = /^-?(?:0|[1-9][0-9]*)$/

/**
 * A CSV cell holding an integer in decimal (`"2"`, `"1728292621"`), decoded to a safe integer.
 *
 * @since 0.1.0
 * @category schemas
 */
export const IntCell: Schema.Schema<number, string> = Schema.transformOrFail(Schema.String, Schema.Number, {
  strict: true,
  decode: (s, _, ast) => {
    const n = SIGNED_DECIMAL.test(s) && s.length <= 17 ? Number(s) : Number.NaN
    return Number.isSafeInteger(n)
      ? ParseResult.succeed(n)
      : ParseResult.fail(new ParseResult.Type(ast, s, `Expected a decimal integer, got ${JSON.stringify(s)}`))
  },
  encode: (n) => ParseResult.succeed(String(n))
}).annotations({
  identifier: "IntCell",
  arbitrary: () => (fc) => fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER })
})

/**
 * One row of the exportaddresstags CSV file: the same record as {@link AddressTag} (same decoded type, same
 * column order), with every cell a string on the encoded side.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AddressTagCsvRow = Schema.Struct({
  address: AddressField,
  nametag: Schema.String,
  internal_nametag: Schema.String,
  url: Schema.String,
  shortdescription: Schema.String,
  notes_1: Schema.String,
  notes_2: Schema.String,
  labels: ListCell,
  labels_slug: ListCell,
  reputation: IntCell,
  other_attributes: ListCell,
  lastupdatedtimestamp: IntCell
}).annotations({ identifier: "AddressTagCsvRow" })
/**
 * The type of the values of the `AddressTagCsvRow` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type AddressTagCsvRow = typeof AddressTagCsvRow.Type
/**
 * Wire form of {@link AddressTagCsvRow}: one object of CSV cells keyed by header name.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace AddressTagCsvRow {
  /**
   * The row's cells as written in the file.
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof AddressTagCsvRow.Encoded
}

/**
 * One row of the getlabelmasterlist CSV file: a {@link LabelMaster} with every cell a string.
 *
 * @since 0.1.0
 * @category schemas
 */
export const LabelMasterCsvRow = Schema.Struct({
  labelname: Schema.String,
  labelslug: Schema.String,
  shortdescription: Schema.String,
  notes: Schema.String,
  lastupdatedtimestamp: IntCell
}).annotations({ identifier: "LabelMasterCsvRow" })
/**
 * The type of the values of the `LabelMasterCsvRow` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type LabelMasterCsvRow = typeof LabelMasterCsvRow.Type
/**
 * Wire form of {@link LabelMasterCsvRow}.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace LabelMasterCsvRow {
  /**
   * The row's cells as written in the file.
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof LabelMasterCsvRow.Encoded
}

// ---------------------------------------------------------------------------------------------------------
// CSV text

const DELIMITER = ";"
const LINE_END = "\r\n"

/** Splits `;`-delimited CSV text into records of cells, or says where it is malformed. */
const splitCsv = (text: string): { readonly records: Array<Array<string>> } | { readonly error: string } => {
  const records: Array<Array<string>> = []
  let record: Array<string> = []
  let line = 1
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0
  const n = text.length
  // An empty text or a trailing line end ends the file without an empty record.
  while (i < n) {
    let cell: string
    if (text[i] === "\"") {
      let value = ""
      let j = i + 1
      for (;;) {
        const q = text.indexOf("\"", j)
        if (q === -1) return { error: `line ${line}: unterminated quoted cell` }
        const chunk = text.slice(j, q)
        for (let k = 0; k < chunk.length; k++) if (chunk[k] === "\n") line++
        value += chunk
        if (text[q + 1] === "\"") {
          value += "\""
          j = q + 2
        } else {
          i = q + 1
          break
        }
      }
      cell = value
      const next = text[i]
      if (next !== undefined && next !== DELIMITER && next !== "\r" && next !== "\n") {
        return { error: `line ${line}: unexpected character after a quoted cell` }
      }
    } else {
      let j = i
      while (j < n && text[j] !== DELIMITER && text[j] !== "\r" && text[j] !== "\n") j++
      cell = text.slice(i, j)
      if (cell.includes("\"")) return { error: `line ${line}: quote inside an unquoted cell` }
      i = j
    }
    record.push(cell)
    const c = text[i]
    if (c === DELIMITER) {
      i++
      if (i === n) record.push("")
      continue
    }
    // end of record: CRLF, LF or end of text
    if (c === "\r" && text[i + 1] === "\n") i += 2
    else if (c === "\r" || c === "\n") i++
    line++
    records.push(record)
    record = []
    // blank lines between records are skipped
    while (i < n && (text[i] === "\n" || (text[i] === "\r" && text[i + 1] === "\n"))) {
      i += text[i] === "\r" ? 2 : 1
      line++
    }
  }
  if (record.length > 0) records.push(record)
  return { records }
}

const quoteCell = (cell: string): string => "\"" + cell.replaceAll("\"", "\"\"") + "\""

const joinCsv = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  let out = header.map(quoteCell).join(DELIMITER) + LINE_END
  for (const row of rows) out += row.map(quoteCell).join(DELIMITER) + LINE_END
  return out
}

/**
 * Builds the schema of a whole CSV file (text ↔ decoded records) from the schema of one row; `columns` (the
 * row's field order) is the header. Decoding maps cells by header name (extra columns are ignored, a
 * missing one fails) and fails on malformed text or on a record whose cell count differs from the header's.
 */
const csvFile = <A, I extends Readonly<Record<string, string>>>(row: Schema.Schema<A, I>, columns: ReadonlyArray<string>) =>
  Schema.transformOrFail(Schema.String, Schema.Array(row), {
    strict: false,
    decode: (text, _, ast) => {
      const split = splitCsv(text)
      if ("error" in split) return ParseResult.fail(new ParseResult.Type(ast, text, `Malformed CSV, ${split.error}`))
      const [header, ...body] = split.records
      if (header === undefined) return ParseResult.fail(new ParseResult.Type(ast, text, "Malformed CSV, no header"))
      const missing = columns.filter((c) => !header.includes(c))
      if (missing.length > 0) {
        return ParseResult.fail(new ParseResult.Type(ast, text, `Malformed CSV, missing columns: ${missing.join(", ")}`))
      }
      const out: Array<Record<string, string>> = []
      for (let r = 0; r < body.length; r++) {
        const cells = body[r] ?? []
        if (cells.length !== header.length) {
          return ParseResult.fail(
            new ParseResult.Type(ast, text, `Malformed CSV, record ${r + 1} has ${cells.length} cells, the header ${header.length}`)
          )
        }
        const obj: Record<string, string> = {}
        for (let c = 0; c < header.length; c++) obj[header[c] ?? ""] = cells[c] ?? ""
        out.push(obj)
      }
      return ParseResult.succeed(out)
    },
    encode: (rows) => ParseResult.succeed(joinCsv(columns, rows.map((r) => columns.map((c) => r[c] ?? ""))))
  })

/**
 * The column order of the exportaddresstags file: the header of the docs, the fields of {@link AddressTag}.
 *
 * @since 0.1.0
 * @category constants
 */
export const addressTagColumns: ReadonlyArray<string> = Object.keys(AddressTagCsvRow.fields)

/**
 * The column order of the getlabelmasterlist file: the fields of {@link LabelMaster}.
 *
 * @since 0.1.0
 * @category constants
 */
export const labelMasterColumns: ReadonlyArray<string> = Object.keys(LabelMasterCsvRow.fields)

/**
 * A whole exportaddresstags CSV file: text ↔ `ReadonlyArray<AddressTag>`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AddressTagsCsv = csvFile(AddressTagCsvRow, addressTagColumns).annotations({ identifier: "AddressTagsCsv" })

/**
 * A whole getlabelmasterlist CSV file: text ↔ `ReadonlyArray<LabelMaster>`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const LabelMasterCsv = csvFile(LabelMasterCsvRow, labelMasterColumns).annotations({ identifier: "LabelMasterCsv" })

/**
 * Reads an exportaddresstags CSV file (the text behind the download URL) into records.
 *
 * @since 0.1.0
 * @category csv
 */
export const parseAddressTagsCsv = (text: string): Effect.Effect<ReadonlyArray<AddressTag>, ParseResult.ParseError> =>
  Schema.decode(AddressTagsCsv)(text)

/**
 * Reads a getlabelmasterlist CSV file into records.
 *
 * @since 0.1.0
 * @category csv
 */
export const parseLabelMasterCsv = (text: string): Effect.Effect<ReadonlyArray<LabelMaster>, ParseResult.ParseError> =>
  Schema.decode(LabelMasterCsv)(text)

const addressTagCells = (t: AddressTag): ReadonlyArray<string> => [
  t.address,
  t.nametag,
  t.internal_nametag,
  t.url,
  t.shortdescription,
  t.notes_1,
  t.notes_2,
  formatListCell(t.labels),
  formatListCell(t.labels_slug),
  String(t.reputation),
  formatListCell(t.other_attributes),
  String(t.lastupdatedtimestamp)
]

/**
 * Writes records as an exportaddresstags CSV file: header, then one line per record, every cell quoted,
 * `;` between cells, CRLF after each line. Total (never fails); {@link parseAddressTagsCsv} reads it back.
 *
 * @since 0.1.0
 * @category csv
 */
export const formatAddressTagsCsv = (rows: ReadonlyArray<AddressTag>): string =>
  joinCsv(addressTagColumns, rows.map(addressTagCells))

/**
 * Writes records as a getlabelmasterlist CSV file (same conventions as {@link formatAddressTagsCsv}).
 *
 * @since 0.1.0
 * @category csv
 */
export const formatLabelMasterCsv = (rows: ReadonlyArray<LabelMaster>): string =>
  joinCsv(
    labelMasterColumns,
    rows.map((l) => [l.labelname, l.labelslug, l.shortdescription, l.notes, String(l.lastupdatedtimestamp)])
  )
