/**
 * @internal The committed state of a Parquet file being written, as plain JSON: what the footer will say
 * about every row group already in the file. A checkpoint stores it; resuming hands it back, and the
 * footer written at the end is rebuilt from it — the same way whether or not the writer was restarted,
 * so a resumed file has the very bytes of an uninterrupted one.
 */
import * as Schema from "effect/Schema"
import type { writeColumn } from "hyparquet-writer/src/column.js"
import type { writeMetadata } from "hyparquet-writer/src/metadata.js"
import { type Column, hasStatistics, schemaElementOf } from "./columns.js"

/** A column chunk as hyparquet-writer describes it. */
export type ColumnChunk = ReturnType<typeof writeColumn>["chunk"]
/** The file metadata hyparquet-writer serialises as the footer. */
export type FileMetaData = Parameters<typeof writeMetadata>[1]
/** One row group of the footer. */
export type RowGroup = FileMetaData["row_groups"][number]
type Encoding = NonNullable<ColumnChunk["meta_data"]>["encodings"][number]

const Count = Schema.Int.pipe(Schema.nonNegative())

/**
 * The compression of the pages.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Codec = Schema.Literal("GZIP", "SNAPPY", "UNCOMPRESSED")
/**
 * The type of the values of the `Codec` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type Codec = typeof Codec.Type

/** The encoding of a chunk's data pages (the names of the Parquet format). */
export const PageEncoding = Schema.Literal(
  "PLAIN", "GROUP_VAR_INT", "PLAIN_DICTIONARY", "RLE", "BIT_PACKED", "DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY",
  "DELTA_BYTE_ARRAY", "RLE_DICTIONARY", "BYTE_STREAM_SPLIT"
)

/**
 * The statistics of a chunk of a number or flag column: min and max as text (decimal integers, doubles
 * as JavaScript writes them with `-0` kept, `true`/`false`), absent when every value is null.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ChunkStatistics = Schema.Struct({
  /** Data pages in the chunk (the footer's encoding statistics). */
  dataPages: Count,
  nullCount: Count,
  min: Schema.optional(Schema.String),
  max: Schema.optional(Schema.String),
  /** Float columns only. */
  nanCount: Schema.optional(Count)
})
/**
 * The type of the values of the `ChunkStatistics` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type ChunkStatistics = typeof ChunkStatistics.Type

/**
 * One column chunk of a committed row group; offsets are from the start of the file.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ColumnChunkState = Schema.Struct({
  /** Where the chunk starts (its dictionary page when it has one, else its first data page). */
  offset: Count,
  /** Where its first data page starts. */
  dataOffset: Count,
  /** Whether a dictionary page starts the chunk. */
  dictionary: Schema.Boolean,
  /** Bytes of the chunk in the file (compressed). */
  bytes: Count,
  /** Bytes of its pages before compression. */
  rawBytes: Count,
  /** The encoding of its data pages. */
  encoding: PageEncoding,
  /** Number and flag columns only. */
  statistics: Schema.optional(ChunkStatistics)
})
/**
 * The type of the values of the `ColumnChunkState` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type ColumnChunkState = typeof ColumnChunkState.Type

/**
 * One committed row group: its rows and its column chunks, in column order.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RowGroupState = Schema.Struct({
  rows: Count,
  /** Where the row group starts. */
  offset: Count,
  /** Bytes of the row group in the file. */
  bytes: Count,
  codec: Codec,
  columns: Schema.Array(ColumnChunkState)
})
/**
 * The type of the values of the `RowGroupState` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type RowGroupState = typeof RowGroupState.Type

/**
 * The state of a Parquet file being written: its first `bytes` bytes are the magic `PAR1` and the row
 * groups `rowGroups` (durable once the writer's `sync` has returned it). Plain JSON, to be stored in a
 * checkpoint.
 *
 * @since 0.1.0
 * @category schemas
 */
export const State = Schema.Struct({
  bytes: Count,
  rowGroups: Schema.Array(RowGroupState)
}).annotations({ identifier: "ParquetState" })
/**
 * The type of the values of the `State` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type State = typeof State.Type

/** Bytes of the magic number `PAR1` that starts (and ends) a Parquet file. */
export const magicBytes = 4

/**
 * The state of a file that holds the magic number only.
 *
 * @since 0.1.0
 * @category constants
 */
export const emptyState: State = { bytes: magicBytes, rowGroups: [] }

/**
 * Rows in the committed row groups.
 *
 * @since 0.1.0
 * @category utils
 */
export const rowsOf = (state: State): number => state.rowGroups.reduce((n, group) => n + group.rows, 0)

/** A statistic value as text, exact (see {@link ChunkStatistics}). */
const statisticText = (value: unknown): string | undefined => {
  if (value === undefined || value === null) return undefined
  if (typeof value === "bigint" || typeof value === "boolean") return String(value)
  // getStatistics writes a zero min as -0 and a zero max as +0: both must come back as they were.
  if (typeof value === "number") return Object.is(value, -0) ? "-0" : String(value)
  throw new Error(`unexpected statistic ${String(value)}`)
}

/** The JSON form of a row group hyparquet-writer has just written. */
export const rowGroupState = (rows: number, codec: Codec, chunks: ReadonlyArray<ColumnChunk>): RowGroupState => {
  const columns = chunks.map((chunk): ColumnChunkState => {
    const meta = chunk.meta_data
    if (meta === undefined) throw new Error("a column chunk without metadata")
    const encoding = meta.encodings[meta.encodings.length - 1] ?? "PLAIN"
    const dataPages = meta.encoding_stats?.find((s) => s.page_type === "DATA_PAGE_V2")?.count
    const stats = meta.statistics
    const base = {
      offset: Number(chunk.file_offset),
      dataOffset: Number(meta.data_page_offset),
      dictionary: meta.dictionary_page_offset !== undefined,
      bytes: Number(meta.total_compressed_size),
      rawBytes: Number(meta.total_uncompressed_size),
      encoding
    }
    if (stats === undefined || dataPages === undefined) return base
    const min = statisticText(stats.min_value)
    const max = statisticText(stats.max_value)
    const nanCount = (stats as { nan_count?: bigint }).nan_count
    return {
      ...base,
      statistics: {
        dataPages,
        nullCount: Number(stats.null_count ?? 0n),
        ...(min === undefined ? {} : { min }),
        ...(max === undefined ? {} : { max }),
        ...(nanCount === undefined ? {} : { nanCount: Number(nanCount) })
      }
    }
  })
  const first = columns[0]
  return {
    rows,
    offset: first?.offset ?? 0,
    bytes: columns.reduce((n, c) => n + c.bytes, 0),
    codec,
    columns
  }
}

/** A statistic back to the value hyparquet-writer computed for the column's type. */
const statisticValue = (column: Column, text: string): bigint | number | boolean =>
  column.type === "int64" || column.type === "timestamp"
    ? BigInt(text)
    : column.type === "float64"
    ? Number(text)
    : text === "true"

/**
 * The footer's row group of a committed one: what hyparquet-writer's own `ParquetWriter` keeps for the
 * row groups it wrote, field for field.
 */
export const footerRowGroup = (group: RowGroupState, columns: ReadonlyArray<Column>): RowGroup => {
  const chunks = group.columns.map((chunk, j): ColumnChunk => {
    const column = columns[j] as Column
    const element = schemaElementOf(column)
    const encodings: Array<Encoding> = chunk.dictionary ? ["PLAIN", chunk.encoding] : [chunk.encoding]
    const s = chunk.statistics
    const meta: NonNullable<ColumnChunk["meta_data"]> = {
      type: element.type ?? "BYTE_ARRAY",
      encodings,
      path_in_schema: [column.name],
      codec: group.codec,
      num_values: BigInt(group.rows),
      total_compressed_size: BigInt(chunk.bytes),
      total_uncompressed_size: BigInt(chunk.rawBytes),
      data_page_offset: BigInt(chunk.dataOffset),
      ...(chunk.dictionary ? { dictionary_page_offset: BigInt(chunk.offset) } : {}),
      ...(s === undefined ? {} : {
        statistics: {
          null_count: BigInt(s.nullCount),
          ...(s.min === undefined ? {} : { min_value: statisticValue(column, s.min) }),
          ...(s.max === undefined ? {} : { max_value: statisticValue(column, s.max) }),
          ...(s.nanCount === undefined ? {} : { nan_count: BigInt(s.nanCount) })
        },
        encoding_stats: [
          ...(chunk.dictionary ? [{ page_type: "DICTIONARY_PAGE" as const, encoding: "PLAIN" as const, count: 1 }] : []),
          { page_type: "DATA_PAGE_V2" as const, encoding: chunk.encoding, count: s.dataPages }
        ]
      })
    }
    return { meta_data: meta, file_offset: BigInt(chunk.offset) }
  })
  return {
    columns: chunks,
    total_byte_size: group.columns.reduce((n, c) => n + BigInt(c.rawBytes), 0n),
    num_rows: BigInt(group.rows),
    total_compressed_size: BigInt(group.bytes)
  }
}

/**
 * Why a state cannot be the committed part of a file with these columns, or undefined when it can: the
 * row groups must follow one another from the magic number to `bytes`, each with one chunk per column,
 * its chunks back to back, and statistics exactly on the columns that keep them.
 */
export const stateProblem = (state: State, columns: ReadonlyArray<Column>): string | undefined => {
  let at = magicBytes
  for (let g = 0; g < state.rowGroups.length; g++) {
    const group = state.rowGroups[g] as RowGroupState
    const where = `row group ${g}`
    if (group.offset !== at) return `${where} starts at byte ${group.offset}, not ${at} where the previous one ends`
    if (group.columns.length !== columns.length) {
      return `${where} has ${group.columns.length} columns, the file ${columns.length}`
    }
    for (let j = 0; j < columns.length; j++) {
      const chunk = group.columns[j] as ColumnChunkState
      const column = columns[j] as Column
      if (chunk.offset !== at) return `${where}, column ${column.name} starts at byte ${chunk.offset}, not ${at}`
      if (chunk.dataOffset < chunk.offset || chunk.dataOffset >= chunk.offset + chunk.bytes) {
        return `${where}, column ${column.name}: its data pages are outside the chunk`
      }
      if (chunk.dictionary === (chunk.dataOffset === chunk.offset)) {
        return `${where}, column ${column.name}: dictionary page and data offset disagree`
      }
      if ((chunk.statistics !== undefined) !== hasStatistics(column.type)) {
        return `${where}, column ${column.name} (${column.type}): statistics ${
          chunk.statistics === undefined ? "missing" : "unexpected"
        }`
      }
      const bad = [chunk.statistics?.min, chunk.statistics?.max].find((v) => v !== undefined && !statisticOk(column, v))
      if (bad !== undefined) return `${where}, column ${column.name}: statistic ${JSON.stringify(bad)} is not a ${column.type}`
      at += chunk.bytes
    }
    if (group.bytes !== at - group.offset) return `${where} is ${group.bytes} bytes, its chunks ${at - group.offset}`
  }
  return at === state.bytes ? undefined : `the row groups end at byte ${at}, the state says ${state.bytes}`
}

const INTEGER_TEXT = /^-?(?:0|[1-9][0-9]*)$/

const statisticOk = (column: Column, text: string): boolean =>
  column.type === "int64" || column.type === "timestamp"
    ? INTEGER_TEXT.test(text)
    : column.type === "float64"
    ? text === "-0" || (Number.isFinite(Number(text)) && String(Number(text)) === text)
    : text === "true" || text === "false"
