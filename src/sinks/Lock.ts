/**
 * One writer per output: an export holds `<out>.lock` (beside the file, created atomically with
 * O_EXCL, holding the writer's pid and host, and where `/proc` is there the process's start time and the
 * machine's boot id) from before its first request until it ends, on every exit path. A second export to
 * the same output fails at once with `OutputLockedError`. A lock left by a process that is gone is taken
 * over: same host and its pid not running (a SIGKILL, a crash), or its pid running but now another
 * process (one that started at another time, or since another boot), or its pid this process's own
 * while this process does not hold it (a container restarted with the same host name: PID 1 again).
 *
 * A process of another host cannot be asked whether it runs, so its lock holds — unless it was taken by
 * a runner of a cluster ({@link ClusterRunner}, which also names the runner in its locks) and the
 * cluster says that runner is gone: the runner that continues a killed runner's exports on another
 * machine takes its locks over.
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { readFileSync } from "node:fs"
import { hostname } from "node:os"
import * as Files from "./Files.js"
import { fileSystemError, SinkError } from "./SinkError.js"

/**
 * Another export (process `pid` on `host`) is writing `path`; or, with `holder`, another process of that
 * kind is using it (`run of wallet-history`: a durable run of that pipeline holds its journal).
 *
 * @since 0.1.0
 * @category errors
 */
export class OutputLockedError extends Schema.TaggedError<OutputLockedError>()("OutputLockedError", {
  /** The output file (or the journal). */
  path: Schema.String,
  pid: Schema.Number,
  host: Schema.String,
  /** What holds the lock when it is not an export writing `path`: `run of <pipeline>`. */
  holder: Schema.optional(Schema.String)
}) {
  override get message(): string {
    const who = `(pid ${this.pid}${this.host === hostname() ? "" : ` on ${this.host}`})`
    return this.holder === undefined
      ? `another export ${who} is writing ${this.path} (lock file ${lockPath(this.path)})`
      : `another ${this.holder} ${who} is using ${this.path} (lock file ${lockPath(this.path)})`
  }
}

/**
 * The lock file of an output.
 *
 * @since 0.1.0
 * @category io
 */
export const lockPath = (out: string): string => Files.lockPath(out)

/**
 * The runner of a cluster this process is, for its locks: they name it (`runner`), and a lock another
 * host's runner left is taken over when `isAlive` says that runner is gone (`durable/Cluster`: its
 * heartbeat in the cluster's database is older than the shard locks' expiry, so its shards have moved).
 *
 * @since 0.1.0
 * @category services
 */
export class ClusterRunner extends Context.Tag("explorer-etl/Lock/ClusterRunner")<ClusterRunner, {
  /** This runner's address (`host:port`). */
  readonly runner: string
  /** Whether the runner at that address is alive. */
  readonly isAlive: (runner: string) => Effect.Effect<boolean>
}>() {}

interface Holder {
  readonly pid: number
  readonly host: string
  /** The cluster runner that took it, if one did. */
  readonly runner?: string | undefined
  /** The process's start time (`/proc/<pid>/stat`, clock ticks since boot), where known. */
  readonly pidStart?: string | undefined
  /** The machine's boot (`/proc/sys/kernel/random/boot_id`), where known. */
  readonly bootId?: string | undefined
}

const parseHolder = (text: string): Holder | undefined => {
  try {
    const value = JSON.parse(text) as unknown
    if (typeof value === "object" && value !== null && "pid" in value && "host" in value) {
      const { pid, host, runner, pidStart, bootId } = value as Record<string, unknown>
      if (typeof pid === "number" && typeof host === "string") {
        return {
          pid,
          host,
          ...(typeof runner === "string" ? { runner } : {}),
          ...(typeof pidStart === "string" ? { pidStart } : {}),
          ...(typeof bootId === "string" ? { bootId } : {})
        }
      }
    }
  } catch {
    // a torn lock file: its writer died while writing it
  }
  return undefined
}

/** The start time of process `pid` (field 22 of `/proc/<pid>/stat`), or undefined without `/proc`. */
const startOf = (pid: number): string | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // The command name (field 2) is in parentheses and may hold spaces: count from the last ")".
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]
  } catch {
    return undefined
  }
}

/** This boot of the machine, or undefined without `/proc`. */
const bootIdNow = (): string | undefined => {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()
  } catch {
    return undefined
  }
}

/** The lock files this process holds now (a lock naming this pid that is not among them is stale). */
const held = new Set<string>()

/** Whether process `pid` of this host is running (EPERM: it runs under another user). */
const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as { code?: string }).code === "EPERM"
  }
}

const me = (): Holder => {
  const pidStart = startOf(process.pid)
  const bootId = bootIdNow()
  return {
    pid: process.pid,
    host: hostname(),
    ...(pidStart === undefined ? {} : { pidStart }),
    ...(bootId === undefined ? {} : { bootId })
  }
}

/**
 * Whether the process a lock of this host names still holds it: its pid runs, is not this process
 * (unless this process holds that lock), and is the process that wrote the lock (same boot, same start).
 */
const holdsHere = (holder: Holder, path: string): boolean => {
  if (holder.pid === process.pid) return held.has(path)
  if (!isRunning(holder.pid)) return false
  if (holder.bootId !== undefined) {
    const boot = bootIdNow()
    if (boot !== undefined && boot !== holder.bootId) return false
  }
  if (holder.pidStart !== undefined) {
    const start = startOf(holder.pid)
    if (start !== undefined && start !== holder.pidStart) return false
  }
  return true
}

/**
 * Takes the lock of `out` for the scope: fails with `OutputLockedError` when a running export holds
 * it; a stale lock (its process is gone, or its cluster runner: {@link ClusterRunner}) is taken over.
 * Released (removed, if still ours) when the scope closes, however it closes. `what` names what
 * takes it when it is not an export writing `out` (`run of <pipeline>`), for the error another gets.
 *
 * @since 0.1.0
 * @category io
 */
export const acquire = (
  out: string,
  what?: string
): Effect.Effect<void, OutputLockedError | SinkError, FileSystem.FileSystem | Scope.Scope> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = lockPath(out)
    const self = me()
    const cluster = Option.getOrUndefined(yield* Effect.serviceOption(ClusterRunner))
    const lockedBy = (holder: Holder) =>
      new OutputLockedError({ path: out, pid: holder.pid, host: holder.host, ...(what === undefined ? {} : { holder: what }) })
    const body = JSON.stringify({
      ...self,
      ...(cluster === undefined ? {} : { runner: cluster.runner }),
      startedAt: new Date().toISOString()
    }) + "\n"
    /** Whether the holder still runs: its pid on this host; another host's cluster runner, by the cluster. */
    const holds = (holder: Holder): Effect.Effect<boolean> =>
      holder.host === self.host
        ? Effect.sync(() => holdsHere(holder, path))
        : cluster !== undefined && holder.runner !== undefined
        ? cluster.isAlive(holder.runner)
        : Effect.succeed(true)
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
      Effect.ignore,
      Effect.ensuring(Effect.sync(() => void held.delete(path)))
    )
    // A lock path that is not a file (a folder, say) is never a lock: told as it is, not as "pid 0".
    const info = yield* fs.stat(path).pipe(Effect.option)
    if (Option.isSome(info) && info.value.type !== "File") {
      return yield* new SinkError({
        reason: "InvalidInput",
        path,
        detail: `the lock file of ${out} is a ${info.value.type === "Directory" ? "folder" : "non-regular file"}; remove it or choose another output`
      })
    }
    for (let attempt = 0; attempt < 3; attempt++) {
      const taken = yield* Effect.uninterruptible(
        Effect.tap(take, (ok) => ok ? Effect.zipRight(Effect.sync(() => void held.add(path)), Effect.addFinalizer(() => release)) : Effect.void)
      )
      if (taken) return
      const text = yield* fs.readFileString(path).pipe(Effect.orElseSucceed(() => undefined))
      if (text === undefined) continue // released in between: try again
      const holder = parseHolder(text)
      if (holder !== undefined && (yield* holds(holder))) {
        return yield* lockedBy(holder)
      }
      // Stale (its process is gone) or torn: taken over. Removed only if it is still the same file.
      const again = yield* fs.readFileString(path).pipe(Effect.orElseSucceed(() => undefined))
      if (again === text) yield* fs.remove(path).pipe(Effect.ignore)
    }
    const text = yield* fs.readFileString(path).pipe(Effect.orElseSucceed(() => ""))
    return yield* lockedBy(parseHolder(text) ?? { pid: 0, host: self.host })
  })

/**
 * Who holds the lock of `out`, as this host sees it.
 *
 * @since 0.1.0
 * @category models
 */
export interface LockHolder {
  readonly pid: number
  readonly host: string
  /** Whether that process still holds it: false for a lock its process left (see the module header). */
  readonly alive: boolean
}

/**
 * The holder of `out`'s lock, without taking it: none when there is no lock (or no readable one). A lock
 * of another host is taken as alive (it cannot be asked).
 *
 * @since 0.1.0
 * @category io
 */
export const inspect = (out: string): Effect.Effect<Option.Option<LockHolder>, never, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = lockPath(out)
    const text = yield* fs.readFileString(path).pipe(Effect.orElseSucceed(() => undefined))
    const holder = text === undefined ? undefined : parseHolder(text)
    if (holder === undefined) return Option.none()
    const alive = holder.host === hostname() ? holdsHere(holder, path) : true
    return Option.some({ pid: holder.pid, host: holder.host, alive })
  })

/**
 * A file at the output that this tool did not write (no manifest describes it): kept unless forced.
 *
 * @since 0.1.0
 * @category errors
 */
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
 * manifest (or its checkpoint) beside it names it and gives its length. `force` skips that check; a
 * folder (or anything but a file) at `out` is refused even then (`SinkError`, option `out`).
 *
 * @since 0.1.0
 * @category io
 */
export const checkOverwrite = (
  out: string,
  name: string,
  force: boolean
): Effect.Effect<void, OutputExistsError | SinkError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const info = yield* fs.stat(out).pipe(Effect.option)
    if (info._tag === "None") return
    // A file is published by a rename over `out`, which a folder refuses: told now, not after the export.
    if (info.value.type !== "File") {
      return yield* new SinkError({
        reason: "InvalidInput",
        path: out,
        option: "out",
        detail: `${out} is a ${info.value.type === "Directory" ? "folder" : "non-regular file"}, not a file an export can replace; ` +
          `choose a file name (e.g. ${out.replace(/\/+$/, "")}/export.csv)`
      })
    }
    if (force) return
    const size = Number(info.value.size)
    const described = (text: string | undefined, file: "manifest" | "state"): boolean => {
      if (text === undefined) return false
      try {
        const value = JSON.parse(text) as { file?: unknown; tempFile?: unknown; bytes?: unknown }
        const names = file === "manifest" ? value.file === name : value.tempFile === Files.partialName(name)
        return names && value.bytes === size
      } catch {
        return false
      }
    }
    const manifest = yield* fs.readFileString(Files.manifestPath(out)).pipe(Effect.orElseSucceed(() => undefined))
    if (described(manifest, "manifest")) return
    const state = yield* fs.readFileString(Files.statePath(out)).pipe(Effect.orElseSucceed(() => undefined))
    if (described(state, "state")) return
    return yield* new OutputExistsError({ path: out })
  })
