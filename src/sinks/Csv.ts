/**
 * CSV as every export writes it, csv-stringify's sync `stringify` to the byte (records of text cells
 * are written here, `csvWriter`): RFC 4180 quoting, LF after every record, the `cast` option writing
 * each kind of value, the formula guard on text cells, and the cutting of a chunk's text back into its
 * records' lines. The columns and rows come from Format.ts.
 */
import { type CastingContext, type Options as CsvOptions, stringify } from "csv-stringify/sync"
import { SinkError } from "./SinkError.js"

/**
 * The CSV record delimiter (LF), used for the header and every row alike.
 *
 * @since 0.1.0
 * @category constants
 */
export const csvRecordDelimiter = "\n"

const formulaStart = new Set(["=", "+", "-", "@", "\t", "\r"])

/**
 * The formula-injection guard on one text cell: `'` before a cell starting with = + - @ tab or CR,
 * every other cell unchanged.
 *
 * @since 0.1.0
 * @category encoding
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

/** Text csv-stringify writes as it is under any of {@link csvOptions}: nothing to quote, no formula start. */
const PLAIN_CELL = /^[\w.]*$/

/** What makes csv-stringify quote a cell under {@link csvOptions}: the delimiter, the quote, CR or LF. */
const QUOTED_CELL = /[,"\r\n]/

/** A text cell that is not plain, as csv-stringify writes it: the guard, then RFC 4180 quoting. */
const textCell = (cell: string, guarded: boolean): string => {
  const text = guarded ? guardFormula(cell) : cell
  return QUOTED_CELL.test(text) ? `"${text.replaceAll("\"", "\"\"")}"` : text
}

/**
 * A record's line as csv-stringify writes it with {@link csvOptions}, when its cells are text, numbers,
 * bigints, booleans or absent (null and undefined are empty cells): text of word characters and dots
 * (numbers, hex, addresses, hashes) as it is, other text through the guard from cell `guardFrom` on
 * and then RFC 4180 quoting; numbers, bigints and booleans as the casts write them (never guarded,
 * nothing to quote). `undefined` for a record with any other cell (dates, arrays, objects), left to
 * csv-stringify. Written by `join`, which makes one flat string (text added cell by cell is a tree of
 * its pieces, several times its size until flattened).
 */
const textLine = (cells: ReadonlyArray<unknown>, guardFrom: number | undefined): string | undefined => {
  if (cells.length === 0) return undefined
  // The cells as written, copied from the first one that is not written as it is (none: the record's own).
  let out: Array<unknown> | undefined
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i]
    // Written as they are: plain text, bigints (join writes their decimal digits), null and undefined
    // (join writes them as empty cells).
    if (
      (typeof cell === "string" && PLAIN_CELL.test(cell)) || typeof cell === "bigint" || cell === undefined ||
      cell === null
    ) {
      if (out !== undefined) out[i] = cell
      continue
    }
    let written: string
    if (typeof cell === "string") written = textCell(cell, guardFrom !== undefined && i >= guardFrom)
    else if (typeof cell === "number") written = decimal(cell)
    else if (typeof cell === "boolean") written = cell ? "true" : "false"
    else return undefined
    if (out === undefined) out = cells.slice(0, i)
    out[i] = written
  }
  return (out ?? cells).join(",") + csvRecordDelimiter
}

/**
 * A writer of CSV lines exactly as `stringify(records, csvOptions(guardFrom))` writes them, one per
 * record, each with its LF. Records of text cells (nearly every export's: numbers, hex, addresses,
 * names) are written here, several times faster; the others by one csv-stringify call per batch, which
 * may throw as `stringify` does.
 */
export const csvWriter = (guardFrom: number | undefined) => {
  const options = csvOptions(guardFrom)
  return (records: ReadonlyArray<ReadonlyArray<unknown>>): Array<string> => {
    const lines: Array<string> = new Array(records.length)
    let others: Array<number> | undefined
    for (let r = 0; r < records.length; r++) {
      const line = textLine(records[r] as ReadonlyArray<unknown>, guardFrom)
      if (line === undefined) (others ??= []).push(r)
      else lines[r] = line
    }
    if (others === undefined) return lines
    const written = splitRecords(stringify(others.map((r) => records[r]), options), others.length)
    if (written === undefined) throw new Error(`the CSV text of ${others.length} records does not cut into as many lines`)
    for (let o = 0; o < others.length; o++) lines[others[o] as number] = written[o] as string
    return lines
  }
}

/** The options of cells written verbatim (the header, {@link csvCell}, {@link csvRecord}). */
const verbatim = csvOptions(undefined)

/**
 * One CSV record: the cells as csv-stringify quotes them (RFC 4180), joined by commas, ended by LF.
 *
 * @since 0.1.0
 * @category encoding
 */
export const csvRecord = (cells: ReadonlyArray<string>): string => stringify([cells], verbatim)

/**
 * One CSV cell as csv-stringify writes it (RFC 4180): quoted when it holds a comma, a double quote, CR
 * or LF, with its quotes doubled; as is otherwise (the empty cell too).
 *
 * @since 0.1.0
 * @category encoding
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

