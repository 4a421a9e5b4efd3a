/**
 * The sinks: CSV and JSONL files from any explorer-etl stream, published atomically, checkpointed,
 * resumable and extendable, each with a manifest; and the progress display of an export.
 *
 * @example
 * import { Sinks } from "explorer-etl"
 * yield* Sinks.Export.exportToFile(job, { out: "transfers.csv", resume: true, confirmations: 12 })
 */
export * as Checkpoint from "./Checkpoint.js"
export * as Export from "./Export.js"
export * as Files from "./Files.js"
export * as Format from "./Format.js"
export * as Manifest from "./Manifest.js"
export * as Reporter from "./Reporter.js"
export { SinkError, SinkErrorReason } from "./SinkError.js"
