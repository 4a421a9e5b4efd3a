/**
 * How a program run from the command line reports a failure: one stderr line `error <ErrorTag>:
 * <message>` and a non-zero exit code. Shared by the Node runner of scripts and by the CLI, which adds
 * its own wording of refused flags. The message of every explorer-etl error holds the server's words,
 * never the key or the URL.
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/**
 * The `<ErrorTag>: <message>` of any failure.
 *
 * @since 0.1.0
 * @category formatting
 */
export const describe = (error: unknown): string => {
  if (typeof error === "object" && error !== null && "_tag" in error && typeof error._tag === "string") {
    const message = "message" in error && typeof error.message === "string" && error.message.length > 0
      ? error.message
      : error._tag
    // A driver's error carried as the cause (@effect/sql's SqlError says only "Failed to execute
    // statement"): its own words and code say what went wrong.
    const cause = error._tag === "SqlError" && "cause" in error ? error.cause : undefined
    const code = cause instanceof Error && "code" in cause && typeof cause.code === "string" ? `, code ${cause.code}` : ""
    const causeText = cause instanceof Error && cause.message.length > 0 && !message.includes(cause.message)
      ? ` (${cause.message}${code})`
      : ""
    return `${error._tag}: ${message}${causeText}`
  }
  if (error instanceof Error) return `${error.name}: ${error.message}`
  return `Error: ${String(error)}`
}

/**
 * How {@link report} words a failure and which exit code it sets (default: {@link describe}, and 1).
 *
 * @since 0.1.0
 * @category models
 */
export interface ReportOptions {
  readonly describe?: ((error: unknown) => string) | undefined
  readonly exitCode?: ((error: unknown) => number) | undefined
}

/**
 * Runs a program: on failure prints one `error …` line on stderr and sets a non-zero exit code (130 when
 * it was only interrupted).
 *
 * @since 0.1.0
 * @category running
 */
export const report = <A, E, R>(program: Effect.Effect<A, E, R>, options: ReportOptions = {}): Effect.Effect<void, never, R> =>
  program.pipe(
    Effect.asVoid,
    Effect.catchAllCause((cause) =>
      Effect.sync(() => {
        if (Cause.isInterruptedOnly(cause)) {
          process.exitCode = 130
          return
        }
        const failure = Cause.failureOption(cause)
        const error = Option.isSome(failure) ? failure.value : Cause.squash(cause)
        // One line, always: a message of several lines (a parse error's tree) is joined.
        process.stderr.write(`error ${(options.describe ?? describe)(error).replace(/\s*\n\s*/g, " ").trim()}\n`)
        process.exitCode = options.exitCode?.(error) ?? 1
      })
    )
  )
