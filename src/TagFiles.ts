/**
 * The files of the `nametag` module: the bulk export of address tags (`exportaddresstags`) and the label
 * master list (`getlabelmasterlist`), CSV text behind a download URL. Read with csv-parse and written with
 * csv-stringify; the records and their cells are described in `schemas/nametag.ts`.
 *
 * The files are RFC-4180 CSV with `;` as delimiter, every cell double-quoted, `""` for a quote inside a
 * cell, CRLF line ends, header first. Reading also takes LF line ends, a byte-order mark, unquoted cells
 * and reordered or extra columns. The simulator writes its own files (simulator/tagFiles.ts), so this
 * reader is checked against another writer, not against itself. The public names are reached through
 * `Schemas` (`Schemas.parseAddressTagsCsv`, …).
 *
 * @example
 * import { Schemas } from "explorer-etl"
 * const text = Schemas.formatAddressTagsCsv(tags)   // the file's text
 * const back = Schemas.parseAddressTagsCsv(text)    // Effect<ReadonlyArray<AddressTag>, ParseError>, deep-equals tags
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import { parse } from "csv-parse/sync"
import { stringify } from "csv-stringify/sync"
import type * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import {
  type AddressTag,
  addressTagColumns,
  AddressTagCsvRow,
  formatListCell,
  type LabelMaster,
  labelMasterColumns,
  LabelMasterCsvRow
} from "./schemas/nametag.js"

/** Splits `;`-delimited CSV text into records of cells, or says where it is malformed. */
const splitCsv = (text: string): { readonly records: Array<Array<string>> } | { readonly error: string } => {
  try {
    // the cell count of each record is checked against the header's by the caller, with its own message
    const records: Array<Array<string>> = parse(text, {
      delimiter: ";",
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true
    })
    return { records }
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) }
  }
}

const joinCsv = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string =>
  stringify([header, ...rows], { delimiter: ";", record_delimiter: "\r\n", quoted: true, quoted_empty: true })

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
