/**
 * The sinks behind `Exports.toFile` (the one way into a file): the file formats, the checkpoint and
 * the manifest written beside every export, the progress display, and their error. Read a manifest or
 * a checkpoint with them; write files with `Exports.toFile`.
 *
 * @example
 * import { Sinks } from "explorer-etl"
 * const manifest = yield* Sinks.Manifest.read("out/transfers.csv") // rows, completeness, sha256…
 */
export * as Checkpoint from "./Checkpoint.js"
export * as Format from "./Format.js"
export * as Lock from "./Lock.js"
export * as Manifest from "./Manifest.js"
export * as Reporter from "./Reporter.js"
export { SinkError, SinkErrorReason } from "./SinkError.js"
