/**
 * CSV as every export writes it, through csv-stringify's sync `stringify`: RFC 4180 quoting, LF after
 * every record, the `cast` option writing each kind of value, the formula guard on text cells, and the
 * cutting of a chunk's text back into its records' lines. The columns and rows come from Format.ts.
 */
import { type CastingContext, type Options as CsvOptions, stringify } from "csv-stringify/sync"
import { SinkError } from "./SinkError.js"

/** The CSV record delimiter (LF), used for the header and every row alike. */
export const csvRecordDelimiter = "\n"

const formulaStart = new Set(["=", "+", "-", "@", "\t", "\r"])

/**
 * The formula-injection guard on one text cell: `'` before a cell starting with = + - @ tab or CR,
 * every other cell unchanged.
 */
export const guardFormula = (cell: string): string =>
  cell.length > 0 && formulaStart.has(cell[0] as string) ? `'${cell}` : cell

const bigintReplacer = (_key: string, value: unknown): unknown =>
  typeof value === "bigint" ? value.toString() : value

/** The JSON text of a value; bigints nested anywhere become exact decimal strings. */
export const jsonText = (value: unknown): string => {
  try {
    return JSON.stringify(value)
  } catch {
    // Only a nested bigint makes JSON.stringify throw on encoded data: retry with the slower replacer.
    return JSON.stringify(value, bigintReplacer)
  }
}

/** A number in plain decimal notation (no exponent, even past 1e21). */
const decimal = (n: number): string =>
  Number.isInteger(n) && Math.abs(n) >= 1e21 ? BigInt(n).toString() : String(n)

/**
 * csv-stringify's options for every CSV of this module: RFC 4180 quoting, LF after every record (CR
 * and LF inside a cell quoted), no header, no BOM; the casts write each kind of value, the text ones
 * through the formula guard from cell `guardFrom` on (`undefined`: no guard).
 */
export const csvOptions = (guardFrom: number | undefined): CsvOptions => {
  const text = guardFrom === undefined
    ? (value: string): string => value
    : (value: string, context: CastingContext): string => (context.index >= guardFrom ? guardFormula(value) : value)
  return {
    delimiter: ",",
    quote: "\"",
    escape: "\"",
    record_delimiter: csvRecordDelimiter,
    quote_record_delimiter: true,
    eof: true,
    header: false,
    bom: false,
    escape_formulas: false,
    // Every kind is given: csv-stringify fills the missing ones into this object (booleans as "1"/"").
    cast: {
      string: text,
      number: decimal,
      bigint: (value) => value.toString(),
      boolean: (value) => (value ? "true" : "false"),
      date: (value) => value.toISOString(),
      object: (value, context) => text(jsonText(value), context)
    }
  }
}

/** The options of cells written verbatim (the header, {@link csvCell}, {@link csvRecord}). */
const verbatim = csvOptions(undefined)

/** One CSV record: the cells as csv-stringify quotes them (RFC 4180), joined by commas, ended by LF. */
export const csvRecord = (cells: ReadonlyArray<string>): string => stringify([cells], verbatim)

/**
 * One CSV cell as csv-stringify writes it (RFC 4180): quoted when it holds a comma, a double quote, CR
 * or LF, with its quotes doubled; as is otherwise (the empty cell too).
 */
export const csvCell = (cell: string): string => csvRecord([cell]).slice(0, -csvRecordDelimiter.length)

/**
 * The records of csv-stringify's text, each with its LF. An LF ends a record unless it is inside a
 * quoted cell, i.e. after an odd number of quotes since the record began (a quote inside a cell is
 * doubled, and only quoted cells hold quotes). `undefined` if the text does not hold `count` records.
 */
export const splitRecords = (text: string, count: number): Array<string> | undefined => {
  const records: Array<string> = new Array(count)
  let n = 0
  let start = 0
  let inQuotes = false
  let quote = text.indexOf("\"")
  for (let end = text.indexOf(csvRecordDelimiter); end !== -1; end = text.indexOf(csvRecordDelimiter, end + 1)) {
    for (; quote !== -1 && quote < end; quote = text.indexOf("\"", quote + 1)) inQuotes = !inQuotes
    if (inQuotes) continue
    if (n === count) return undefined
    records[n++] = text.slice(start, end + 1)
    start = end + 1
  }
  return n === count && start === text.length ? records : undefined
}

/** A chunk csv-stringify could not write (a value no cast writes: a function, an invalid date). */
export const csvFailure = (error: unknown): SinkError =>
  new SinkError({
    reason: "Encode",
    path: "<record>",
    detail: `a record of the chunk does not write as CSV: ${error instanceof Error ? error.message : String(error)}`
  })

