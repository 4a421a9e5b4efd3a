/**
 * The typed error of the sinks: a file could not be written, read or renamed, a record did not encode,
 * an option was refused before anything ran, or a checkpoint does not belong to the export that asks
 * to continue it.
 *
 * @example
 * import { Effect } from "effect"
 * Exports.toFile(source, { out: "logs.csv", resume: true }).pipe(
 *   Effect.catchTag("SinkError", (e) => e.reason === "StateMismatch" ? Console.error(e.message) : Effect.fail(e)))
 */
import * as Schema from "effect/Schema"

/**
 * Why a sink failed:
 * - `InvalidInput`: an option refused before any file was touched (unknown extension, bad block range…);
 * - `FileSystem`: reading, writing, syncing or renaming a file failed;
 * - `Encode`: a record did not encode with the record schema, or has no CSV form (more than 4 topics);
 * - `StateMismatch`: `resume` found a checkpoint of another query, an unreadable state file, or an output
 *   file changed since the export that wrote it — the runner refuses rather than mix two files.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SinkErrorReason = Schema.Literal("InvalidInput", "FileSystem", "Encode", "StateMismatch")
/**
 * The type of the values of the `SinkErrorReason` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type SinkErrorReason = typeof SinkErrorReason.Type

/**
 * A sink failure, with the file it concerns and a readable explanation.
 *
 * @since 0.1.0
 * @category errors
 */
export class SinkError extends Schema.TaggedError<SinkError>()("SinkError", {
  reason: SinkErrorReason,
  /** The file (or folder) concerned. */
  path: Schema.String,
  /** What went wrong, in words a user can act on. */
  detail: Schema.String,
  /** `InvalidInput` of an export option: the option at fault ("out", "confirmations", …). */
  option: Schema.optional(Schema.String)
}) {
  override get message(): string {
    return `${this.path}: ${this.detail}`
  }
}

/** @internal wraps a platform error (or any failure) of a file operation. */
export const fileSystemError = (path: string, what: string) => (cause: { readonly message: string }): SinkError =>
  new SinkError({ reason: "FileSystem", path, detail: `${what} failed: ${cause.message}` })
