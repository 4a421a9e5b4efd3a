/**
 * The sinks behind `Exports.toFile` (the one way into a file): the file formats, the checkpoint and
 * the manifest written beside every export, the progress display, and their error. Read a manifest or
 * a checkpoint with them; write files with `Exports.toFile`, or a `Stream` into a Parquet file with
 * `Parquet.sink` (a plain `Sink`: no manifest, no resume).
 *
 * @example
 * import { Sinks } from "explorer-etl"
 * const manifest = yield* Sinks.Manifest.read("out/transfers.csv") // rows, completeness, sha256…
 */
export * as Checkpoint from "./Checkpoint.js"
export * as Format from "./Format.js"
export * as Lock from "./Lock.js"
export * as Manifest from "./Manifest.js"
/** Parquet files: `Parquet.sink(path, schema)`, a `Sink` of records; the row-group writer beneath exports. */
export * as Parquet from "./Parquet.js"
export * as Reporter from "./Reporter.js"
export { SinkError, SinkErrorReason } from "./SinkError.js"
