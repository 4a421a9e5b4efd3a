/**
 * The sinks behind `Exports.toFile` (the one way into a file): the file formats, the checkpoint and
 * the manifest written beside every export, the progress display, and their error. Read a manifest or
 * a checkpoint with them; write files with `Exports.toFile`, or a `Stream` into a Parquet file with
 * `Parquet.sink` (a plain `Sink`: no manifest, no resume).
 *
 * @example
 * import { Sinks } from "explorer-etl"
 * const manifest = yield* Sinks.Manifest.read("out/transfers.csv") // rows, completeness, sha256…
 *
 * @since 0.1.0
 * @category modules
 * @module
 */

// The checkpoint beside an export (`<out>.state.json`): what is written and where a resumed run goes on.
export * as Checkpoint from "./Checkpoint.js"
// The file formats (CSV, JSONL, Parquet): columns and cells derived from a record schema.
export * as Format from "./Format.js"
// The lock on an output file (`<out>.lock`), so two runs never write one file at once.
export * as Lock from "./Lock.js"
// The manifest beside every export (`<out>.manifest.json`): rows, completeness, checksum; read it to check a file.
export * as Manifest from "./Manifest.js"
// Parquet files: `Parquet.sink(path, schema)`, a `Sink` of records; the row-group writer beneath exports.
export * as Parquet from "./Parquet.js"
// The progress display of an export on stderr (rows, calls, rates, retries).
export * as Reporter from "./Reporter.js"
export { SinkError, SinkErrorReason } from "./SinkError.js"
