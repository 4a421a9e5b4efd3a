/**
 * The block range of an export read by the paging engine's scheduler (`streams/engine/Scheduler.ts`:
 * partitions, pages of one query at once, work stealing, ordered hand-over), written in block order
 * into the export's temporary file. This module gives the scheduler its file side: the temporary file as
 * the scheduler's main (`dataMain`, or a Parquet file's, see `Export`), and spool files as its spills —
 * every partition after the head writes into a spool of its own beside the temporary file
 * (`.<name>.partial.p<N>`), so rows read ahead wait on disk, not in memory. When the head has read its
 * last block, the next partition's spool is appended to the temporary file: the file grows in block
 * order and ends byte-identical to the file one cursor writes (a row's text does not depend on where it
 * is written).
 *
 * Checkpoints: the spools and the temporary file are fsynced, then the state records the file's
 * position and every partition's range, position and spool length (see `Checkpoint.Partition`). After
 * a SIGKILL, resume cuts every file to its recorded length and continues every partition from its own
 * position. A merged spool is deleted once a committed state no longer names it.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Scheduler from "../streams/engine/Scheduler.js"
import type { EndMoved, Position } from "../streams/engine/Scheduler.js"
import { type DataFile, openData, removeQuietly, sizeOf, spoolIndex, spoolName } from "./Files.js"
import type * as Parquet from "./Parquet.js"
import { fileSystemError, type SinkError } from "./SinkError.js"

export { EndMoved } from "../streams/engine/Scheduler.js"
export type { Position, Snapshot, View } from "../streams/engine/Scheduler.js"

/**
 * The temporary file as the partitions write it, in block order: a data file (`dataMain`), or a
 * Parquet file whose rows are gathered into row groups. Used under one lock, by one fiber at a time.
 */
export interface Main {
  /** Its length so far (for the position; a Parquet file's durable length comes from `sync`). */
  readonly bytes: () => number
  /** Appends the rows of a batch. */
  readonly write: (rows: ReadonlyArray<unknown>) => Effect.Effect<void, SinkError>
  /** Appends the content of a spool the partitions' `write` filled, once the file has reached its range. */
  readonly appendSpool: (spool: DataFile) => Effect.Effect<void, SinkError, FileSystem.FileSystem>
  /**
   * Marks where the checkpoint being taken stands, with nothing yielding between the snapshot and the
   * mark: every row written so far, and none after.
   */
  readonly mark: () => void
  /** Makes the file durable at least up to the last mark; Parquet: the row groups up to the mark. */
  readonly sync: Effect.Effect<Parquet.State | undefined, SinkError>
}

/** A data file as the temporary file: rows are appended as `write` encodes them, spools byte for byte. */
export const dataMain = (
  file: DataFile,
  write: (file: DataFile, rows: ReadonlyArray<unknown>) => Effect.Effect<void, SinkError>
): Main => ({
  bytes: file.bytes,
  write: (rows) => write(file, rows),
  appendSpool: (spool) =>
    Effect.flatMap(FileSystem.FileSystem, (fs) =>
      fs.stream(spool.path).pipe(
        Stream.runForEach((chunk) => file.appendBytes(chunk)),
        Effect.mapError(fileSystemError(spool.path, "reading the spool"))
      )),
  mark: () => {},
  sync: Effect.as(file.sync, undefined)
})

/** The spool files of an export (any left by an earlier run too), by the temporary file's name. */
export const removeSpools = (folder: string, tempName: string): Effect.Effect<void, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const names = yield* fs.readDirectory(folder)
    for (const name of names) {
      if (spoolIndex(tempName, name) !== undefined) yield* removeQuietly(path.join(folder, name))
    }
  }).pipe(Effect.ignore)

/** What `run` needs: the scheduler's options, with the temporary file and the spools' place. */
export interface Options<E, R> extends
  Omit<Scheduler.Options<E, R, SpoolFile, SinkError, Parquet.State | undefined, FileSystem.FileSystem | Path.Path>, "main" | "spill">
{
  readonly folder: string
  /** `.<name>.partial`: spools are named `<tempName>.p<N>` beside it. */
  readonly tempName: string
  /** The temporary file, open at its durable length. */
  readonly main: Main
  /** Appends a batch's rows to a spool. */
  readonly write: (file: DataFile, rows: ReadonlyArray<unknown>) => Effect.Effect<void, SinkError>
}

/** A spool file as the scheduler's spill. */
interface SpoolFile extends Scheduler.SpillHandle<SinkError> {
  readonly file: DataFile
}

/**
 * Reads `toBlock` − `at.completeThrough` blocks into `main` through the scheduler, partitions ahead of
 * the head spooled to files (see the module header). Returns when every row is in `main` (not yet
 * fsynced). Spool files live as long as `Scope`.
 */
export const run = <E, R>(
  options: Options<E, R>
): Effect.Effect<Position, E | SinkError | EndMoved, R | FileSystem.FileSystem | Path.Path | Scope.Scope> =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const { folder, tempName, write, main, ...rest } = options
    let nextId = 1 + Math.max(0, ...options.resumed.map((p) => spoolIndex(tempName, p.spoolFile) ?? 0))
    const spoolPath = (name: string) => path.join(folder, name)
    // Each spool's file is open in a scope of its own, closed once the spool is merged: a long export
    // cuts hundreds of partitions, and their descriptors (and the disk blocks of the spools deleted
    // after the merge) were held until it ended. Those still open at the end are closed with the run.
    const openSpools = new Set<Scope.CloseableScope>()
    yield* Effect.addFinalizer(() => Effect.forEach(openSpools, (scope) => Scope.close(scope, Exit.void), { discard: true }))
    const openSpool = (name: string, start: number) =>
      Effect.gen(function*() {
        const scope = yield* Scope.make()
        openSpools.add(scope)
        const file = yield* Scope.extend(openData(spoolPath(name), start, "unhashed"), scope)
        const close = Effect.suspend(() => openSpools.delete(scope) ? Scope.close(scope, Exit.void) : Effect.void)
        const spool: SpoolFile = {
          name,
          file,
          write: (rows) => write(file, rows),
          length: file.bytes,
          held: () => 0,
          flush: file.flush,
          sync: file.sync,
          close
        }
        return spool
      })
    const spill: Scheduler.Spill<SpoolFile, SinkError, FileSystem.FileSystem | Path.Path> = {
      // A new, empty spool (not hashed: a spool is copied, not published; its bytes are hashed in the file).
      create: Effect.suspend(() => openSpool(spoolName(tempName, nextId++), 0)),
      // A spool gone or shorter than its record is read again from its first block.
      reopen: (name, length) =>
        Effect.gen(function*() {
          const size = yield* sizeOf(spoolPath(name))
          const intact = size !== undefined && size >= length
          return { handle: yield* openSpool(name, intact ? length : 0), intact }
        }),
      remove: (name) => removeQuietly(spoolPath(name))
    }
    return yield* Scheduler.run({
      ...rest,
      main: { ...main, appendSpill: (spool: SpoolFile) => main.appendSpool(spool.file) },
      spill
    })
  })
