/**
 * The resume state machine of a block-ordered export: where a run starts, decided from the checkpoint
 * beside the output (`Checkpoint`) and the files it names, and the checkpoints the run commits.
 *
 * With `resume: true`:
 * - no state file (or one that cannot be continued: temporary file gone or shorter than the checkpoint,
 *   or a finished state whose output was deleted) → `Fresh`;
 * - an unfinished checkpoint of the same export → `Resume`: the temporary file is cut to the checkpoint
 *   (a torn tail written after it goes) and the run continues from `completeThrough + 1` (no second
 *   CSV header);
 * - a finished export → `Extend`: `out` is copied (its length and sha256 must match the state, else
 *   `StateMismatch`) and the blocks from `completeThrough + 1` are appended to the copy; with no new
 *   final block the file is only checked against its sha256 (`checkUnchanged`);
 * - a state of another export (fingerprint differs) or an unreadable state → `StateMismatch`: run
 *   without `resume` to replace it.
 * Without `resume` every run is `Fresh` (the previous `out` stays in place until the new file replaces it).
 *
 * With `resume: "unfinished"` (the CLI's plain command): an unfinished checkpoint of the same export that
 * can be continued → `Resume` with `implied` (the run says so on one line), anything else → `Fresh`; a
 * finished export is rewritten whole, as without `resume`.
 *
 * One export per output at a time: `Exports.toFile` holds the output's lock (sinks/Lock.ts) around all of this.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as CallCount from "../CallCount.js"
import * as Checkpoint from "./Checkpoint.js"
import { copyHashed, type DataFile, digest, hashFile, type Layout, openData, removeQuietly, sizeOf } from "./Files.js"
import * as Parquet from "./Parquet.js"
import { fileSystemError, SinkError } from "./SinkError.js"

/** The files of one export (see `Files.layout`). */
export type Files = Layout

/** Where a block-ordered run starts. */
export type Start =
  /** From `fromBlock`; `staleState`: an unfinished checkpoint names the temporary file about to be emptied. */
  | { readonly _tag: "Fresh"; readonly staleState: boolean }
  /** `implied`: continued although `resume` was not asked for (`resume: "unfinished"`). */
  | { readonly _tag: "Resume"; readonly state: Checkpoint.State; readonly implied?: boolean | undefined }
  | { readonly _tag: "Extend"; readonly state: Checkpoint.State }

/** How far a run has written: every row of blocks up to `completeThrough`, `rows` in all. */
export interface Position {
  readonly rows: number
  readonly completeThrough: number
  /** Decoded events: of `rows`, the ones kept undecoded (recorded when the checkpoint counts them). */
  readonly undecodedRows?: number | undefined
}

const mismatch = (path: string, detail: string) => new SinkError({ reason: "StateMismatch", path, detail })

const changedFile = (out: string) =>
  mismatch(
    out,
    "the file changed since the export that wrote it (its sha256 differs from the state); run without resume to export it again"
  )

/** A readable checkpoint of this export: where it lets the run start. */
const classify = (files: Files, state: Checkpoint.State): Effect.Effect<Start, SinkError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fresh = { _tag: "Fresh", staleState: state.phase !== "published" } as const
    if (state.tempFile !== files.tempName) return fresh
    if (state.phase === "published") {
      const size = yield* sizeOf(files.out)
      if (size === undefined) return fresh
      if (size !== state.bytes) {
        return yield* mismatch(
          files.out,
          `the file changed since the export that wrote it (${size} bytes, the state says ${state.bytes}); ` +
            `run without resume to export it again`
        )
      }
      return { _tag: "Extend", state } as const
    }
    const tempSize = yield* sizeOf(files.temp)
    if (tempSize !== undefined && tempSize >= state.bytes) return { _tag: "Resume", state } as const
    if (state.phase === "publishing" && state.contentHash !== undefined) {
      // Crashed between the rename and the final state: `out` may already be the finished file.
      const size = yield* sizeOf(files.out)
      if (size === state.bytes && (yield* hashFile(files.out)) === state.contentHash) {
        return { _tag: "Extend", state: { ...state, phase: "published" } } as const
      }
    }
    return fresh
  })

/** Decides where a run starts, from the checkpoint beside `out` (see the module header). */
export const decide = (
  files: Files,
  fingerprint: string,
  resume: boolean | "unfinished"
): Effect.Effect<Start, SinkError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const existing = yield* Checkpoint.read(files.out)
    if (Option.isNone(existing)) return { _tag: "Fresh", staleState: false } as const
    const found = existing.value
    if (resume === "unfinished") {
      if ("unreadable" in found) return { _tag: "Fresh", staleState: true } as const
      const fresh = { _tag: "Fresh", staleState: found.phase !== "published" } as const
      // A Parquet checkpoint without row groups cannot be continued: it starts over, as before.
      if (
        found.phase === "published" || !Checkpoint.sameExport(found.fingerprint, fingerprint) ||
        (found.format === "parquet" && found.parquet === undefined)
      ) return fresh
      const start = yield* classify(files, found)
      return start._tag === "Resume" ? { ...start, implied: true } : fresh
    }
    if ("unreadable" in found) {
      if (!resume) return { _tag: "Fresh", staleState: true } as const
      return yield* mismatch(files.statePath, `the state file cannot be read (${found.unreadable}); run without resume to start over`)
    }
    if (!resume) return { _tag: "Fresh", staleState: found.phase !== "published" } as const
    if (!Checkpoint.sameExport(found.fingerprint, fingerprint)) {
      return yield* mismatch(
        files.statePath,
        `the checkpoint belongs to another export (${found.dataset} on chain ${found.chainIds.join(",")}, ` +
          `${found.format}, or a different query, columns or first block); run without resume to replace it`
      )
    }
    return yield* classify(files, found)
  })

/** The line a run continued without `resume` prints: what it keeps, and how to start over instead. */
export const impliedLine = (state: Checkpoint.State): string =>
  `resuming the interrupted export of this query: ${keptRows(state).toLocaleString("en-US")} rows kept ` +
  `(--restart starts over)`

/** Rows a checkpoint keeps: in the temporary file and in its partitions' spools. */
export const keptRows = (state: Checkpoint.State): number =>
  (state.partitions ?? []).reduce((n, p) => n + p.rows, state.rows)

/** The first block a run reads. */
export const firstBlock = (start: Start, fromBlock: number): number =>
  start._tag === "Fresh" ? fromBlock : start.state.completeThrough + 1

/** A finished file that gets no new block: its sha256 is checked against the state, and returned. */
export const checkUnchanged = (files: Files, state: Checkpoint.State): Effect.Effect<string, SinkError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const contentHash = yield* hashFile(files.out)
    if (contentHash !== state.contentHash) return yield* changedFile(files.out)
    return contentHash
  })

/**
 * Opens the temporary file where the run starts, and the checkpoint it continues: `Fresh` empties it
 * and writes `header` (`fresh` is its first state), `Resume` cuts it to the checkpoint, `Extend` copies
 * `out` into it after checking the copy against the state.
 */
export const open = (
  start: Start,
  files: Files,
  header: string,
  fresh: Checkpoint.State
): Effect.Effect<{ readonly file: DataFile; readonly base: Checkpoint.State }, SinkError, FileSystem.FileSystem | Scope.Scope> =>
  Effect.gen(function*() {
    switch (start._tag) {
      case "Fresh": {
        if (start.staleState) {
          const fs = yield* FileSystem.FileSystem
          yield* fs.remove(files.statePath, { force: true }).pipe(Effect.mapError(fileSystemError(files.statePath, "removing")))
        }
        const file = yield* openData(files.temp, 0)
        yield* file.append(header)
        return { file, base: fresh }
      }
      case "Resume":
        return { file: yield* openData(files.temp, start.state.bytes), base: start.state }
      case "Extend": {
        const copy = yield* copyHashed(files.out, files.temp)
        if (copy.bytes !== start.state.bytes || digest(copy.hash) !== start.state.contentHash) {
          yield* removeQuietly(files.temp)
          return yield* changedFile(files.out)
        }
        return { file: yield* openData(files.temp, copy.bytes, copy.hash), base: start.state }
      }
    }
  })

/**
 * `open` for a Parquet file: `Fresh` starts it (magic number only), `Resume` cuts it to the checkpoint's
 * row groups (`state.parquet`), `Extend` copies `out` (checked against the state) and takes off its
 * footer to add row groups. A Parquet checkpoint without row groups is refused (`StateMismatch`).
 */
export const openParquet = (
  start: Start,
  files: Files,
  columns: ReadonlyArray<Parquet.Column>,
  fresh: Checkpoint.State
): Effect.Effect<
  { readonly writer: Parquet.ParquetWriter; readonly base: Checkpoint.State },
  SinkError,
  FileSystem.FileSystem | Scope.Scope
> =>
  Effect.gen(function*() {
    switch (start._tag) {
      case "Fresh": {
        if (start.staleState) {
          const fs = yield* FileSystem.FileSystem
          yield* fs.remove(files.statePath, { force: true }).pipe(Effect.mapError(fileSystemError(files.statePath, "removing")))
        }
        return { writer: yield* Parquet.open(files.temp, columns), base: fresh }
      }
      case "Resume":
      case "Extend": {
        const resume = start.state.parquet
        if (resume === undefined) {
          return yield* mismatch(files.statePath, "the checkpoint holds no Parquet row groups; run without resume to start over")
        }
        if (start._tag === "Extend") {
          const copy = yield* copyHashed(files.out, files.temp)
          if (copy.bytes !== start.state.bytes || digest(copy.hash) !== start.state.contentHash) {
            yield* removeQuietly(files.temp)
            return yield* changedFile(files.out)
          }
        }
        return { writer: yield* Parquet.open(files.temp, columns, { resume }), base: start.state }
      }
    }
  })

/** Writes the checkpoint: `base` at `phase`, with the file's length and position. */
export const write = (
  files: Files,
  base: Checkpoint.State,
  phase: Checkpoint.Phase,
  at: Position & {
    readonly bytes: number
    readonly contentHash?: string | undefined
    readonly partitions?: ReadonlyArray<Checkpoint.Partition> | undefined
    /** Parquet: the row groups in those bytes (durable). */
    readonly parquet?: Parquet.State | undefined
  }
): Effect.Effect<void, SinkError, FileSystem.FileSystem | Path.Path> =>
  Effect.flatMap(Effect.zip(Clock.currentTimeMillis, CallCount.innermost), ([now, counter]) =>
    Checkpoint.write(files.out, {
      ...base,
      // The export's requests so far (its counter started from the checkpoint it resumed).
      ...(counter === undefined ? {} : { calls: counter.requests, retries: counter.retries }),
      phase,
      bytes: at.bytes,
      rows: at.rows,
      completeThrough: at.completeThrough,
      // Counted only where the export's first checkpoint started counting (see `Checkpoint.State`).
      undecodedRows: base.undecodedRows === undefined ? undefined : at.undecodedRows ?? base.undecodedRows,
      contentHash: at.contentHash,
      partitions: at.partitions === undefined || at.partitions.length === 0 ? undefined : at.partitions,
      parquet: at.parquet,
      updatedAt: new Date(now).toISOString()
    }))

/**
 * Commits a checkpoint of `file` as it stands, after an fsync: a checkpoint never counts bytes that a
 * crash could lose.
 */
export const commit = (
  files: Files,
  base: Checkpoint.State,
  file: DataFile,
  at: Position,
  phase: Checkpoint.Phase,
  contentHash?: string
): Effect.Effect<void, SinkError, FileSystem.FileSystem | Path.Path> =>
  Effect.zipRight(file.sync, Effect.suspend(() => write(files, base, phase, { ...at, bytes: file.bytes(), contentHash })))
