/**
 * The manifest beside every published export, `<out>.manifest.json`: what the file holds, how complete
 * it is, and its sha256, so a user (or the next pipeline step) can trust it without reading it.
 * Written atomically after the file is published.
 *
 * ```json
 * { "manifestVersion": 1, "file": "logs.csv", "dataset": "logs", "query": { "address": "0x…" },
 *   "chainIds": [1], "plan": "standard", "format": "csv", "columns": ["address", "topic0", …],
 *   "rows": 420, "bytes": 52311, "blockRange": { "from": 100, "to": 1234 },
 *   "completeness": { "status": "complete" }, "calls": 17, "durationMs": 4210,
 *   "contentHash": "sha256:…", "createdAt": "2025-01-01T00:00:00.000Z",
 *   "tool": { "name": "explorer-etl", "version": "0.1.0" }, "run": { "mode": "fresh", "rowsWritten": 420 } }
 * ```
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Files from "./Files.js"
import { writeAtomic } from "./Files.js"
import { SinkError } from "./SinkError.js"

/**
 * The tool that wrote a file (the package's name and version).
 *
 * @since 0.1.0
 * @category constants
 */
export const tool = { name: "explorer-etl", version: "0.1.0" } as const

/**
 * Whether the file holds every row of its query (over `blockRange` for block-ordered data sets).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Completeness = Schema.Union(
  Schema.Struct({ status: Schema.Literal("complete") }),
  Schema.Struct({ status: Schema.Literal("truncated"), reason: Schema.String })
)
/**
 * The type of the values of the `Completeness` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type Completeness = typeof Completeness.Type

/**
 * How the run that wrote the manifest produced the file.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RunMode = Schema.Literal("fresh", "resumed", "extended", "unchanged")
/**
 * The type of the values of the `RunMode` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type RunMode = typeof RunMode.Type

/**
 * The content of `<out>.manifest.json`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Manifest = Schema.Struct({
  manifestVersion: Schema.Literal(1),
  /** The output's file name (in the manifest's folder). */
  file: Schema.String,
  dataset: Schema.String,
  /** The query as the caller described it (canonical JSON: keys sorted). */
  query: Schema.Unknown,
  chainIds: Schema.Array(Schema.Number),
  plan: Schema.String,
  format: Schema.Literal("csv", "jsonl", "parquet"),
  /** The file's columns (CSV, Parquet) or keys (JSONL), in order. */
  columns: Schema.Array(Schema.String),
  /**
   * Parquet: each column's type (`int64`, `timestamp`, `string`, `decimalString`, `float64`, `bool`; see
   * `Parquet.ColumnType`), in column order: a reader tells exact decimal strings from other text.
   */
  columnTypes: Schema.optional(Schema.Array(Schema.Struct({ name: Schema.String, type: Schema.String }))),
  /** Rows in the file (the CSV header not counted). */
  rows: Schema.Number,
  /**
   * Decoded events (`events`): rows of the file the ABI decoded, and rows kept undecoded (an empty
   * `event`, raw topics and data); `decodedRows + undecodedRows = rows`. Counted across resumed and
   * extended runs; absent for other data sets (and when a checkpoint written before they were counted
   * was continued).
   */
  decodedRows: Schema.optional(Schema.Number),
  undecodedRows: Schema.optional(Schema.Number),
  bytes: Schema.Number,
  /** Blocks the file covers, both ends included (block-ordered data sets; `to < from` when none). */
  blockRange: Schema.NullOr(Schema.Struct({ from: Schema.Number, to: Schema.Number })),
  completeness: Completeness,
  /**
   * Requests sent to write the file: every attempt, retries included, as the server counts them; an
   * export resumed after an interruption counts the attempts before it too (up to its last checkpoint).
   */
  calls: Schema.Number,
  /** Of those, the retries of a call after a transient failure (absent in manifests written before). */
  retries: Schema.optional(Schema.Number),
  /** Duration of that run. */
  durationMs: Schema.Number,
  /** `sha256:<hex>` of the whole file. */
  contentHash: Schema.String,
  createdAt: Schema.String,
  tool: Schema.Struct({ name: Schema.String, version: Schema.String }),
  /** The run that wrote this manifest: how it started and the rows it added. */
  run: Schema.Struct({ mode: RunMode, rowsWritten: Schema.Number })
}).annotations({ identifier: "ExportManifest" })
/**
 * The type of the values of the `Manifest` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type Manifest = typeof Manifest.Type

const ManifestJson = Schema.parseJson(Manifest, { space: 2 })

/**
 * `<out>.manifest.json`.
 *
 * @since 0.1.0
 * @category io
 */
export const manifestPath = (out: string): string => Files.manifestPath(out)

/**
 * Writes the manifest of `out` atomically.
 *
 * @since 0.1.0
 * @category io
 */
export const write = (
  out: string,
  manifest: Manifest
): Effect.Effect<void, SinkError, FileSystem.FileSystem | Path.Path> =>
  Schema.encode(ManifestJson)(manifest).pipe(
    Effect.mapError((e) =>
      new SinkError({ reason: "Encode", path: manifestPath(out), detail: `the manifest does not encode: ${e.message}` })
    ),
    Effect.flatMap((text) => writeAtomic(manifestPath(out), text + "\n"))
  )

/**
 * Reads and decodes a manifest (for tests and tools that check an export).
 *
 * @since 0.1.0
 * @category io
 */
export const read = (out: string): Effect.Effect<Manifest, SinkError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = manifestPath(out)
    const text = yield* fs.readFileString(path).pipe(
      Effect.mapError((e) => new SinkError({ reason: "FileSystem", path, detail: `reading failed: ${e.message}` }))
    )
    return yield* Schema.decodeUnknown(ManifestJson)(text).pipe(
      Effect.mapError((e) => new SinkError({ reason: "FileSystem", path, detail: `not a manifest: ${e.message}` }))
    )
  })
