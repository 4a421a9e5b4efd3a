/**
 * Parquet files written row group by row group, resumable after a crash.
 *
 * A Parquet file is its magic number `PAR1`, its row groups, and a footer (the file metadata: schema,
 * every row group's offsets, sizes, statistics) followed by the footer's length and `PAR1` again. Nothing
 * can be appended after the footer, so the footer is written once, at the end:
 * - the file being written (the export's `.partial`) holds `PAR1` and the committed row groups;
 * - each `writeRowGroup` encodes its rows in memory, appends the row group and returns the new
 *   {@link State}: the byte length and every row group's metadata, as plain JSON; `sync` fsyncs and
 *   returns the state that is then durable, for the export's checkpoint (as `Files.DataFile` does for
 *   CSV: fsync at checkpoints, not at every page);
 * - after a crash, `open(path, columns, { resume: state })` cuts the file back to `state.bytes` (a torn
 *   row group written after the last checkpoint goes), takes the committed row groups back and goes on;
 * - `finish` writes the footer over all row groups. The footer is always rebuilt from the JSON state, so
 *   a resumed file has exactly the bytes of an uninterrupted one with the same row groups;
 * - a finished file is extended the same way: a copy of it opened with the state `finish` returned
 *   loses its footer and takes more row groups.
 *
 * Memory holds one row group (its rows, the column values, the encoded bytes) and the small state.
 *
 * The encoding is hyparquet-writer's own (its column writer, page and dictionary encoders, snappy, and
 * footer writer), called one row group at a time: the same bytes its `ParquetWriter` writes for the same
 * rows with page indexes off. Pages are compressed with gzip (Node's zlib, level 1) by default. Page
 * indexes (offset and column indexes, written after the last row group) are off: they would need every
 * page's location in the checkpoint, and a row group of a few thousand rows has one page per column.
 *
 * Column types ({@link ColumnType}): integers as `INT64`, unix-second timestamps as
 * `TIMESTAMP(MILLIS, UTC)`, text as UTF-8 strings, amounts as exact decimal strings (optionally with a
 * `float64` companion), flags as `BOOLEAN`; every column is nullable. Min/max statistics are kept for
 * numbers, timestamps and flags only. The footer's key-value metadata `explorer-etl.columns` lists each
 * column's name and type, so a reader can tell decimal strings from other text.
 *
 * @example
 * import { Sinks } from "explorer-etl"
 * // A Stream of records into a Parquet file: Sinks.Parquet.sink (see there). Writing row groups yourself:
 * const { Parquet } = Sinks
 * const columns = yield* Parquet.columnsOf(Erc20Transfer)
 * const writer = yield* Parquet.open(".transfers.parquet.partial", columns, { resume: checkpoint?.parquet })
 * for (const page of pages) yield* writer.writeRowGroup(page)        // a row group per page
 * yield* saveCheckpoint({ ...checkpoint, parquet: yield* writer.sync })  // every second or so
 * const { bytes, rows, contentHash } = yield* writer.finish
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as EitherOps from "effect/Either"
import * as Exit from "effect/Exit"
import type * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Sink from "effect/Sink"
import * as Stream from "effect/Stream"
import { ByteWriter } from "hyparquet-writer/src/bytewriter.js"
import { writeColumn } from "hyparquet-writer/src/column.js"
import { useDictionary } from "hyparquet-writer/src/dictionary.js"
import { encodeNestedValues } from "hyparquet-writer/src/dremel.js"
import { writeMetadata } from "hyparquet-writer/src/metadata.js"
import { schemaPathResolver } from "hyparquet-writer/src/schema.js"
import { snappyCompress } from "hyparquet-writer/src/snappy.js"
import { createHash } from "node:crypto"
import { gzipSync } from "node:zlib"
import {
  CellError,
  cellOf,
  type Column,
  converterOf,
  type DeriveOptions,
  deriveColumns,
  hasStatistics,
  isText,
  type Row,
  type SchemaElement,
  schemaElementOf,
  type Stored,
  utf8Views
} from "./internal-parquet/columns.js"
import {
  type Codec,
  type ColumnChunk,
  emptyState,
  footerRowGroup,
  magicBytes,
  rowGroupState,
  rowsOf,
  type State,
  stateProblem
} from "./internal-parquet/state.js"
import { layout, publish, removeQuietly } from "./Files.js"
import * as Format from "./Format.js"
import { fileSystemError, SinkError } from "./SinkError.js"

export type { Cell, Column, ColumnType, DeriveOptions as ColumnsOptions, Row } from "./internal-parquet/columns.js"
export { columnTypes, knownOverrides } from "./internal-parquet/columns.js"
export {
  ChunkStatistics,
  Codec,
  ColumnChunkState,
  emptyState,
  RowGroupState,
  rowsOf,
  State
} from "./internal-parquet/state.js"

/**
 * The columns of a record schema, in the order of its fields (the CSV column order), typed from the
 * schema's decoded side:
 * - a flag (`BooleanFromDigit`) → `bool`; a bigint (`DecimalBigInt`, `HexBigInt`: wei, token amounts,
 *   gas, token ids) → `decimalString`; an integer (`DecimalInt`, `HexInt`, `JsonInt`, `Schema.Int`) →
 *   `int64`, or `timestamp` when the field's name ends with `timestamp` (any case: `timeStamp`,
 *   `unixTimeStamp`); any other number (`JsonNumber`, `Schema.Number`) → `float64`; the rest → `string`;
 * - a field that decodes `""` to null (`EmptyAsNull`, e.g. `to` of a contract creation) writes `""` as NULL;
 * - `topics` → `topic0`..`topic3` (as in CSV); any other list → its JSON text; a field of any value
 *   (`Schema.Unknown`: an event's `args` object, its arrays and tuples) → `string`, its JSON text;
 * - then the built-in table {@link knownOverrides} (text fields that hold decimals or flags, by record
 *   identifier), then `options.overrides` by field name;
 * - `options.floats`: a `float64` companion `<name>_float` after each `decimalString` column;
 *   `options.chainId`: an `int64` `chainid` column first.
 *
 * @example
 * const columns = yield* Parquet.columnsOf(LogFileRow)
 * // [{ name: "address", type: "string" }, { name: "topic0", type: "string", field: "topics", index: 0 }, …,
 * //  { name: "blockNumber", type: "int64" }, { name: "timeStamp", type: "timestamp" }, { name: "gasPrice", type: "decimalString" }, …]
 *
 * @since 0.1.0
 * @category utils
 */
export const columnsOf = <A, I>(
  schema: Schema.Schema<A, I, never>,
  options?: DeriveOptions
): Either.Either<ReadonlyArray<Column>, SinkError> => deriveColumns(schema, options)

/**
 * Options of {@link open}.
 *
 * @since 0.1.0
 * @category models
 */
export interface OpenOptions {
  /** Continue a file from its last committed state (from the export's checkpoint) instead of starting it. */
  readonly resume?: State | undefined
  /**
   * Page compression: `GZIP` (the default: level 1, Node's native zlib), `SNAPPY` (pure JavaScript
   * here: 1.2 to 1.5 times the writing time of GZIP, files 1.7 times larger on transfers) or
   * `UNCOMPRESSED` (about 1.7 times faster than GZIP, files 2.1 times larger). Every reader reads all three.
   */
  readonly codec?: Codec | undefined
}

/**
 * What {@link ParquetWriter.finish} wrote: the complete file's length, rows and sha256.
 *
 * @since 0.1.0
 * @category models
 */
export interface Finished {
  readonly bytes: number
  readonly rows: number
  readonly rowGroups: number
  /** `sha256:<hex>` of the whole file, as the manifest states it. */
  readonly contentHash: string
  /**
   * The row groups the footer describes. Kept with a published file, it lets a later run extend the
   * file: open a copy of it with `resume: state` (the footer is cut off), write more row groups, finish.
   */
  readonly state: State
}

/**
 * An open Parquet file being written, used by one fiber at a time. After a failed write it refuses
 * everything (its committed state stays valid for a resume); after `finish`, further writes fail.
 *
 * @since 0.1.0
 * @category models
 */
export interface ParquetWriter {
  readonly path: string
  readonly columns: ReadonlyArray<Column>
  /** The state so far (what the last `writeRowGroup` returned), durable or not. */
  readonly state: () => State
  /**
   * Appends the rows as one row group and returns the new state (durable after `sync`). No rows:
   * nothing is written. A row whose cell does not fit its column fails with `Encode` before anything is
   * written, and the writer goes on.
   */
  readonly writeRowGroup: (rows: ReadonlyArray<Row>) => Effect.Effect<State, SinkError>
  /** fsyncs the file: the state returned is durable, so a checkpoint may store it. */
  readonly sync: Effect.Effect<State, SinkError>
  /** Writes the footer and fsyncs: the file is then a complete Parquet file (rename it into place). */
  readonly finish: Effect.Effect<Finished, SinkError>
}

const MAGIC = 0x31524150 // "PAR1", little-endian
const magic = new Uint8Array([0x50, 0x41, 0x52, 0x31])
const pageSize = 1024 * 1024
/**
 * The page compressors: hyparquet-writer's snappy (pure JavaScript), and gzip through Node's own zlib at
 * level 1 — faster than that snappy, and on this data (hex hashes and addresses, whose 4 bits a
 * character only entropy coding recovers) files 40% smaller than snappy's (bench/parquet.ts).
 */
const compressors = {
  SNAPPY: snappyCompress,
  GZIP: (input: Uint8Array): Uint8Array => gzipSync(input, { level: 1 })
}
/** A row group buffer larger than this is dropped after use rather than kept for the next one. */
const bufferKeep = 16 * 1024 * 1024
const createdBy = "explorer-etl (hyparquet-writer)"

type ColumnEncoder = Parameters<typeof writeColumn>[0]["column"]

/**
 * The same bytes hyparquet-writer writes for a text column, faster: its own dictionary decision, taken
 * here on the strings (where its hashing is native), then either the dictionary forced (built the same
 * way again from the strings) or plain pages from one UTF-8 buffer for the whole column instead of a
 * buffer per value (~15% of the CPU time of a transfer row group). One difference: a plain chunk over
 * the page size (1 MB) is split by UTF-8 bytes, where hyparquet-writer counts UTF-16 units of strings;
 * both are valid, and a resumed file splits as the uninterrupted one did.
 */
const textShortcut = (
  column: ColumnEncoder,
  text: boolean,
  values: Array<Stored>
): { readonly column: ColumnEncoder; readonly pageData: Array<Stored | Uint8Array | null> } => {
  if (!text) return { column, pageData: values }
  const { dictionary } = useDictionary(values, "BYTE_ARRAY", undefined, undefined)
  return dictionary !== undefined
    ? { column: { ...column, encoding: "RLE_DICTIONARY" }, pageData: values }
    : { column: { ...column, encoding: "PLAIN" }, pageData: utf8Views(values) }
}

const invalid = (path: string, detail: string) => new SinkError({ reason: "InvalidInput", path, detail })
const mismatch = (path: string, detail: string) => new SinkError({ reason: "StateMismatch", path, detail })

const columnsProblem = (columns: ReadonlyArray<Column>): string | undefined => {
  if (columns.length === 0) return "a Parquet file needs at least one column"
  const seen = new Set<string>()
  for (const column of columns) {
    if (column.name === "") return "a column needs a name"
    if (seen.has(column.name)) return `two columns are named ${column.name}`
    seen.add(column.name)
  }
  return undefined
}

/**
 * Opens `path` to write a Parquet file with these columns: a new file (created or emptied) holding the
 * magic number, fsynced; or, with `resume`, the file of that state, cut back to `resume.bytes`. Fails
 * with `StateMismatch` when the state does not fit the columns or the file (shorter than the state,
 * not a Parquet start). The file is closed with the scope; a writer dropped unfinished leaves its
 * committed row groups for a resume.
 *
 * @since 0.1.0
 * @category constructors
 */
export const open = (
  path: string,
  columns: ReadonlyArray<Column>,
  options: OpenOptions = {}
): Effect.Effect<ParquetWriter, SinkError, FileSystem.FileSystem | Scope.Scope> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const wrongColumns = columnsProblem(columns)
    if (wrongColumns !== undefined) return yield* invalid(path, wrongColumns)
    const codec = options.codec ?? "GZIP"
    const resume = options.resume
    if (resume !== undefined) {
      const problem = stateProblem(resume, columns)
      if (problem !== undefined) return yield* mismatch(path, `the checkpoint does not describe this file: ${problem}`)
    }
    const schema: Array<SchemaElement> = [{ name: "root", num_children: columns.length }, ...columns.map(schemaElementOf)]
    const resolve = schemaPathResolver(schema)
    const encoders = columns.map((column) => {
      const treePath = resolve([column.name])
      const schemaPath = treePath.map((node) => node.element)
      const element = schemaPath[schemaPath.length - 1] as SchemaElement
      return {
        treePath,
        column: {
          columnName: column.name,
          element,
          schemaPath,
          codec,
          compressors,
          stats: hasStatistics(column.type),
          pageSize,
          columnIndex: false,
          offsetIndex: false
        },
        text: isText(column.type)
      }
    })
    const readers = columns.map((column) => {
      const cell = cellOf(column)
      const convert = converterOf(column)
      const read = (row: Row): Stored | CellError => {
        const value = cell(row)
        return value instanceof CellError ? value : convert(value)
      }
      return { column, read }
    })
    const kvMetadata = [{
      key: "explorer-etl.columns",
      value: JSON.stringify(columns.map((c) => ({ name: c.name, type: c.type })))
    }]

    const hash = createHash("sha256")
    const file = yield* fs.open(path, { flag: resume === undefined ? "w" : "r+" }).pipe(
      Effect.mapError(fileSystemError(path, "opening the Parquet file"))
    )
    if (resume === undefined) {
      yield* file.writeAll(magic).pipe(
        Effect.zipRight(file.sync),
        Effect.mapError(fileSystemError(path, "writing the Parquet magic number"))
      )
      hash.update(magic)
    } else {
      const size = Number((yield* file.stat.pipe(Effect.mapError(fileSystemError(path, "stat")))).size)
      if (size < resume.bytes) {
        return yield* mismatch(path, `the file has ${size} bytes, fewer than the ${resume.bytes} the checkpoint counts`)
      }
      yield* file.truncate(resume.bytes).pipe(Effect.mapError(fileSystemError(path, "truncating to the last checkpoint")))
      yield* file.seek(resume.bytes, "start")
      const start: Array<number> = []
      yield* fs.stream(path, { bytesToRead: resume.bytes }).pipe(
        Stream.runForEach((chunk) =>
          Effect.sync(() => {
            for (let i = 0; start.length < magicBytes && i < chunk.length; i++) start.push(chunk[i] as number)
            hash.update(chunk)
          })
        ),
        Effect.mapError(fileSystemError(path, "reading the committed row groups"))
      )
      if (start.length < magicBytes || start.some((b, i) => b !== magic[i])) {
        return yield* mismatch(path, "the file does not start with the Parquet magic number PAR1")
      }
    }

    let state: State = resume ?? emptyState
    let broken: SinkError | undefined
    let finished = false
    // One buffer for every row group: it grows to the size of a row group and is reused.
    let buffer = new ByteWriter()

    const refuse = (): SinkError | undefined =>
      broken ?? (finished ? invalid(path, "the Parquet file is already finished") : undefined)

    /** Appends bytes after the row groups written so far; a failure breaks the writer. */
    const append = (bytes: Uint8Array): Effect.Effect<void, SinkError> =>
      file.writeAll(bytes).pipe(
        Effect.mapError(fileSystemError(path, "writing")),
        Effect.tapBoth({
          onFailure: (e) => Effect.sync(() => (broken = e)),
          onSuccess: () => Effect.sync(() => hash.update(bytes))
        })
      )

    const fsync = file.sync.pipe(
      Effect.mapError(fileSystemError(path, "fsync")),
      Effect.tapError((e) => Effect.sync(() => (broken = e)))
    )

    /** The column values of the rows, column by column, or the first cell that does not fit. */
    const valuesOf = (rows: ReadonlyArray<Row>): Array<Array<Stored>> | SinkError => {
      const values: Array<Array<Stored>> = []
      for (const { column, read } of readers) {
        const out = new Array<Stored>(rows.length)
        for (let i = 0; i < rows.length; i++) {
          const value = read(rows[i] as Row)
          if (value instanceof CellError) {
            return new SinkError({
              reason: "Encode",
              path,
              detail: `row ${i} of the row group, column ${column.name}: ${value.detail}`
            })
          }
          out[i] = value
        }
        values.push(out)
      }
      return values
    }

    const writeRowGroup = Effect.fn("Parquet.writeRowGroup")(function*(rows: ReadonlyArray<Row>) {
      const refused = refuse()
      if (refused !== undefined) return yield* refused
      if (rows.length === 0) return state
      const values = valuesOf(rows)
      if (values instanceof SinkError) return yield* values
      const committed = state
      buffer.index = 0
      // Offsets in the metadata are the writer's offsets: start it where the row group will land.
      buffer.offset = committed.bytes
      const group = yield* Effect.try({
        try: () => {
          const chunks = encoders.map((encoder, j): ColumnChunk => {
            const { column, pageData } = textShortcut(encoder.column, encoder.text, values[j] as Array<Stored>)
            return writeColumn({ writer: buffer, column, pageData: encodeNestedValues(encoder.treePath, pageData) }).chunk
          })
          return rowGroupState(rows.length, codec, chunks)
        },
        catch: (cause) =>
          new SinkError({ reason: "Encode", path, detail: `encoding the row group failed: ${String(cause)}` })
      })
      const bytes = buffer.getBytes()
      // Appended and counted together: an interruption cannot leave bytes the state does not count.
      return yield* append(bytes).pipe(
        Effect.map(() => {
          state = { bytes: committed.bytes + bytes.byteLength, rowGroups: [...committed.rowGroups, group] }
          // Memory stays bounded after one huge row group.
          if (buffer.buffer.byteLength > bufferKeep) buffer = new ByteWriter()
          return state
        }),
        Effect.uninterruptible
      )
    })

    const finish = Effect.gen(function*() {
      const refused = refuse()
      if (refused !== undefined) return yield* refused
      const committed = state
      const footer = new ByteWriter()
      const rows = rowsOf(committed)
      yield* Effect.try({
        try: () => {
          writeMetadata(footer, {
            version: 2,
            created_by: createdBy,
            schema,
            num_rows: BigInt(rows),
            row_groups: committed.rowGroups.map((group) => footerRowGroup(group, columns)),
            key_value_metadata: kvMetadata,
            // Not serialised: the length is written after the footer.
            metadata_length: 0
          })
          footer.appendUint32(MAGIC)
        },
        catch: (cause) => new SinkError({ reason: "Encode", path, detail: `writing the footer failed: ${String(cause)}` })
      })
      const bytes = footer.getBytes()
      yield* append(bytes).pipe(
        Effect.zipRight(fsync),
        Effect.zipRight(Effect.sync(() => (finished = true))),
        Effect.uninterruptible
      )
      return {
        bytes: committed.bytes + bytes.byteLength,
        rows,
        rowGroups: committed.rowGroups.length,
        contentHash: `sha256:${hash.copy().digest("hex")}`,
        state: committed
      } satisfies Finished
    }).pipe(Effect.withSpan("Parquet.finish"))

    const sync = Effect.suspend(() => {
      const refused = refuse()
      return refused !== undefined ? Effect.fail(refused) : Effect.as(fsync, state)
    }).pipe(Effect.withSpan("Parquet.sync"))

    return { path, columns, state: () => state, writeRowGroup, sync, finish } satisfies ParquetWriter
  })

/**
 * Rows in a row group of an export, at most: a count, with {@link rowGroupBytes}, that depends on the
 * rows alone, so a file's row groups do not depend on paging.
 *
 * @since 0.1.0
 * @category constants
 */
export const rowGroupRows = 10_000

/**
 * Characters of JSONL text a row group gathers at most, where `add` is given them (exports and
 * {@link sink} count each row with {@link rowChars}): a row group of wide rows is cut sooner, so the
 * rows held while it is gathered and encoded stay bounded, while narrow rows keep 10,000 a group. The
 * rows gathered (as objects, ~600 bytes of heap a transaction) are held beside the page being written
 * and the one read ahead, and encoding a group promotes its column values to the old generation: at
 * 5,000,000 characters (~5,500 log rows of ~900 characters, ~7,600 transactions) a transaction export
 * of 10,000-row pages peaked at 155–159 MB (medians of 8 runs of the library's export with the CLI's
 * V8 settings); at 3,000,000 (~3,300 log rows, ~4,600 transactions) 6–9 MB less, at the same rows/s on
 * the CPU path, for files ~2% larger. (10,000 log rows a group took a 1,000,000-row export to 157 MB.)
 *
 * @since 0.1.0
 * @category constants
 */
export const rowGroupBytes = 3_000_000

/**
 * Rows gathered into row groups before they reach a {@link ParquetWriter}.
 *
 * @since 0.1.0
 * @category models
 */
export interface RowGroups {
  /**
   * Adds rows; a row group is written as soon as it holds `size` rows, or, when the rows' text lengths
   * are given (`chars`, one per row), `bytes` characters of them.
   */
  readonly add: (rows: ReadonlyArray<Row>, chars?: ReadonlyArray<number>) => Effect.Effect<void, SinkError>
  /** Writes the rows gathered so far (fewer than `size`) as a smaller row group, if there are any. */
  readonly flush: Effect.Effect<void, SinkError>
  /**
   * Marks a checkpoint: the rows gathered so far will be written as a smaller row group (by the next
   * `add`, `flush` or `sync`), and `sync` returns the state right after it, whatever is added meanwhile.
   */
  readonly mark: () => void
  /** Writes what the last mark cut, fsyncs, and returns the state up to the mark (durable). */
  readonly sync: Effect.Effect<State, SinkError>
  /** Rows gathered and not yet written. */
  readonly pending: () => number
}

/**
 * Gathers rows into row groups of `size` rows (default {@link rowGroupRows}), or of `bytes` characters
 * of their text where `add` is given them (default {@link rowGroupBytes}), for `writer`: what an export
 * writes as pages arrive. Memory holds fewer than `size` rows besides the row group being encoded (and
 * the rows a mark cut, until they are written). After a failed `add` (some of its rows may be written),
 * `sync` fails: no checkpoint may count rows its caller did not.
 *
 * @example
 * const groups = Parquet.rowGroups(writer)
 * for (const page of pages) yield* groups.add(page)
 * yield* groups.flush
 * const finished = yield* writer.finish
 *
 * @since 0.1.0
 * @category combinators
 */
export const rowGroups = (writer: ParquetWriter, size: number = rowGroupRows, bytes: number = rowGroupBytes): RowGroups => {
  let gathered: Array<Row> = []
  let gatheredChars = 0
  /** Row groups a mark cut, not yet written, oldest first. */
  const cut: Array<Array<Row>> = []
  let awaitingMark = false
  let marked: State = writer.state()
  let failed: SinkError | undefined
  // Each row group is written and dropped from memory in one step: an interruption between the two
  // would write it twice.
  const writeGroup = (group: ReadonlyArray<Row>, written: () => void) =>
    Effect.uninterruptible(Effect.tap(writer.writeRowGroup(group), () => Effect.sync(written)))
  const writeCut = Effect.gen(function*() {
    while (cut.length > 0) {
      yield* writeGroup(cut[0] as Array<Row>, () => cut.shift())
    }
    if (awaitingMark) {
      marked = writer.state()
      awaitingMark = false
    }
  })
  const written = () => {
    gathered = []
    gatheredChars = 0
  }
  const add = (rows: ReadonlyArray<Row>, chars?: ReadonlyArray<number>): Effect.Effect<void, SinkError> =>
    Effect.gen(function*() {
      yield* writeCut
      for (let i = 0; i < rows.length; i++) {
        gathered.push(rows[i] as Row)
        if (chars !== undefined) gatheredChars += chars[i] ?? 0
        if (gathered.length >= size || gatheredChars >= bytes) yield* writeGroup(gathered, written)
      }
    }).pipe(Effect.tapError((e) => Effect.sync(() => (failed = e))))
  const flush = Effect.gen(function*() {
    yield* writeCut
    if (gathered.length === 0) return
    yield* writeGroup(gathered, written)
  })
  const mark = () => {
    if (gathered.length > 0) cut.push(gathered)
    written()
    awaitingMark = true
  }
  const sync = Effect.suspend(() => (failed !== undefined ? Effect.fail(failed) : writeCut)).pipe(
    Effect.zipRight(writer.sync),
    Effect.map(() => marked)
  )
  return { add, flush, mark, sync, pending: () => gathered.length + cut.reduce((n, g) => n + g.length, 0) }
}

/**
 * About the length of a row's JSONL line, without writing it: what a row group of rows given as objects
 * counts against {@link rowGroupBytes} (text: its length and quotes; numbers, flags and nulls: 8; lists:
 * their items), plus each key.
 *
 * @since 0.1.0
 * @category utils
 */
export const rowChars = (row: Row): number => {
  let chars = 2
  for (const key in row) {
    const value = (row as Record<string, unknown>)[key]
    chars += key.length + 4
    if (typeof value === "string") chars += value.length + 2
    else if (Array.isArray(value)) {
      chars += 2
      for (const item of value) chars += typeof item === "string" ? item.length + 3 : 9
    } else chars += 8
  }
  return chars
}

/**
 * JSONL lines (as a `Format` jsonl encoder writes them) as the rows a Parquet writer takes.
 *
 * @since 0.1.0
 * @category utils
 */
export const rowsOfLines = (lines: ReadonlyArray<string>): ReadonlyArray<Row> => {
  const rows: Array<Row> = new Array(lines.length)
  for (let i = 0; i < lines.length; i++) rows[i] = JSON.parse(lines[i] as string) as Row
  return rows
}

/**
 * Options of {@link sink}: the columns ({@link columnsOf}), the codec ({@link open}), the row group size.
 *
 * @since 0.1.0
 * @category models
 */
export interface SinkOptions extends DeriveOptions {
  readonly codec?: Codec | undefined
  /** Rows per row group (default {@link rowGroupRows}). */
  readonly rowGroupRows?: number | undefined
}

/**
 * A `Sink` of records of `schema` into the Parquet file `path`: the columns typed from the schema as
 * exports type them ({@link columnsOf}; `floats` adds the `<name>_float` companions), each record
 * encoded by the schema as the JSONL export writes it, row groups written as they fill. The file is
 * written as `.<name>.partial` beside `path` and renamed over it once its footer is written (a failed
 * or interrupted stream removes it, leaving `path` as it was). Ends with what was written. For a
 * manifest, checkpoints and `resume`, write a source with `Exports.toFile` instead.
 *
 * @example
 * import { Events, Sinks, Streams } from "explorer-etl"
 * const decoder = yield* Events.decoder(abi, { event: "Transfer" })
 * const written = yield* Streams.logs({ address: token, topic0: decoder.topic0 }).pipe(
 *   Events.decodeLogs(decoder),
 *   Stream.run(Sinks.Parquet.sink("out/transfers.parquet", decoder.schema, { floats: true })))
 *
 * @since 0.1.0
 * @category sinks
 */
export const sink = <A, I>(
  path: string,
  schema: Schema.Schema<A, I, never>,
  options: SinkOptions = {}
): Sink.Sink<Finished, A, never, SinkError, FileSystem.FileSystem | Path.Path> =>
  Sink.unwrapScoped(Effect.gen(function*() {
    const paths = yield* Path.Path
    const columns = yield* columnsOf(schema, options)
    const encoder = yield* Format.encoder(schema, { format: "jsonl" })
    const temp = layout(paths, path).temp
    yield* Effect.addFinalizer((exit) => (Exit.isSuccess(exit) ? Effect.void : removeQuietly(temp)))
    const writer = yield* open(temp, columns, { codec: options.codec })
    const groups = rowGroups(writer, options.rowGroupRows ?? rowGroupRows)
    const rowsOf = (records: ReadonlyArray<A>): Either.Either<ReadonlyArray<Row>, SinkError> =>
      encoder.objects !== undefined
        ? encoder.objects(records) as Either.Either<ReadonlyArray<Row>, SinkError>
        : EitherOps.map(encoder.lines(records), rowsOfLines)
    return Sink.forEachChunk((chunk: Chunk.Chunk<A>) =>
      Effect.flatMap(rowsOf(Chunk.toReadonlyArray(chunk)), (rows) => groups.add(rows, rows.map(rowChars)))
    ).pipe(
      Sink.mapEffect(() =>
        Effect.gen(function*() {
          yield* groups.flush
          const finished = yield* writer.finish
          yield* publish(temp, path)
          return finished
        })
      )
    )
  }))
