/**
 * One writer per output: an export holds `<out>.lock` (beside the file, created atomically with
 * O_EXCL, holding the writer's pid and host) from before its first request until it ends, on every
 * exit path. A second export to the same output fails at once with `OutputLockedError`. A lock left by a
 * process that is gone (same host, pid not running: a SIGKILL, a crash) is taken over.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { hostname } from "node:os"
import { fileSystemError, type SinkError } from "./SinkError.js"

/** Another export (process `pid` on `host`) is writing `path`. */
export class OutputLockedError extends Schema.TaggedError<OutputLockedError>()("OutputLockedError", {
  /** The output file. */
  path: Schema.String,
  pid: Schema.Number,
  host: Schema.String
}) {
  override get message(): string {
    return `another export (pid ${this.pid}${this.host === hostname() ? "" : ` on ${this.host}`}) is writing ${this.path}`
  }
}

/** The lock file of an output. */
export const lockPath = (out: string): string => `${out}.lock`

interface Holder {
  readonly pid: number
  readonly host: string
}

const parseHolder = (text: string): Holder | undefined => {
  try {
    const value = JSON.parse(text) as unknown
    if (typeof value === "object" && value !== null && "pid" in value && "host" in value) {
      const { pid, host } = value as { pid: unknown; host: unknown }
      if (typeof pid === "number" && typeof host === "string") return { pid, host }
    }
  } catch {
    // a torn lock file: its writer died while writing it
  }
  return undefined
}

/** Whether process `pid` of this host is running (EPERM: it runs under another user). */
const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as { code?: string }).code === "EPERM"
  }
}

const me = (): Holder => ({ pid: process.pid, host: hostname() })

/**
 * Takes the lock of `out` for the scope: fails with `OutputLockedError` when a running export holds
 * it; a stale lock (its process is gone) is taken over. Released (removed, if still ours) when the
 * scope closes, however it closes.
 */
export const acquire = (
  out: string
): Effect.Effect<void, OutputLockedError | SinkError, FileSystem.FileSystem | Scope.Scope> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = lockPath(out)
    const self = me()
    const body = JSON.stringify({ ...self, startedAt: new Date().toISOString() }) + "\n"
    const take = fs.writeFileString(path, body, { flag: "wx" }).pipe(
      Effect.as(true),
      Effect.catchIf(
        (e) => e._tag === "SystemError" && e.reason === "AlreadyExists",
        () => Effect.succeed(false)
      ),
      Effect.mapError(fileSystemError(path, "creating the lock file"))
    )
    const release = fs.readFileString(path).pipe(
      Effect.flatMap((text) => {
        const holder = parseHolder(text)
        return holder !== undefined && holder.pid === self.pid && holder.host === self.host
          ? fs.remove(path)
          : Effect.void
      }),
      Effect.ignore
    )
    for (let attempt = 0; attempt < 3; attempt++) {
      const taken = yield* Effect.uninterruptible(
        Effect.tap(take, (ok) => ok ? Effect.addFinalizer(() => release) : Effect.void)
      )
      if (taken) return
      const text = yield* fs.readFileString(path).pipe(Effect.orElseSucceed(() => undefined))
      if (text === undefined) continue // released in between: try again
      const holder = parseHolder(text)
      if (holder !== undefined && (holder.host !== self.host || isRunning(holder.pid))) {
        return yield* new OutputLockedError({ path: out, pid: holder.pid, host: holder.host })
      }
      // Stale (its process is gone) or torn: taken over. Removed only if it is still the same file.
      const again = yield* fs.readFileString(path).pipe(Effect.orElseSucceed(() => undefined))
      if (again === text) yield* fs.remove(path).pipe(Effect.ignore)
    }
    const text = yield* fs.readFileString(path).pipe(Effect.orElseSucceed(() => ""))
    const holder = parseHolder(text) ?? { pid: 0, host: self.host }
    return yield* new OutputLockedError({ path: out, pid: holder.pid, host: holder.host })
  })

/** A file at the output that this tool did not write (no manifest describes it): kept unless forced. */
export class OutputExistsError extends Schema.TaggedError<OutputExistsError>()("OutputExistsError", {
  /** The output file. */
  path: Schema.String
}) {
  override get message(): string {
    return `${this.path} exists and was not written by explorer-etl (no manifest describes it); ` +
      `use --force (force: true) to replace it, or choose another --out`
  }
}

/**
 * Refuses to replace a file at `out` that this tool did not write: one is replaced only when its
 * manifest (or its checkpoint) beside it names it and gives its length. `force` skips the check.
 */
export const checkOverwrite = (
  out: string,
  name: string,
  force: boolean
): Effect.Effect<void, OutputExistsError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    if (force) return
    const fs = yield* FileSystem.FileSystem
    const info = yield* fs.stat(out).pipe(Effect.option)
    if (info._tag === "None") return
    const size = Number(info.value.size)
    const described = (text: string | undefined, file: "manifest" | "state"): boolean => {
      if (text === undefined) return false
      try {
        const value = JSON.parse(text) as { file?: unknown; tempFile?: unknown; bytes?: unknown }
        const names = file === "manifest" ? value.file === name : value.tempFile === `.${name}.partial`
        return names && value.bytes === size
      } catch {
        return false
      }
    }
    const manifest = yield* fs.readFileString(`${out}.manifest.json`).pipe(Effect.orElseSucceed(() => undefined))
    if (described(manifest, "manifest")) return
    const state = yield* fs.readFileString(`${out}.state.json`).pipe(Effect.orElseSucceed(() => undefined))
    if (described(state, "state")) return
    return yield* new OutputExistsError({ path: out })
  })
