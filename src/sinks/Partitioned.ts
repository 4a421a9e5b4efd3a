/**
 * The block range of an export read by several cursors at once, written in block order.
 *
 * The range is cut into partitions, disjoint and contiguous. The first one (the head) writes into the
 * temporary file; every later one writes into a spool file of its own beside it
 * (`.<name>.partial.p<N>`), so rows read ahead wait on disk, not in memory. When the head has read
 * its last block, the next partition's spool is appended to the temporary file and that partition
 * writes there from then on: the file grows in block order and ends byte-identical to the file one
 * cursor writes (a row's text does not depend on where it is written). The temporary file is a `Main`:
 * a data file (`dataMain`), or a Parquet file whose spools hold JSONL lines (see `Export`).
 *
 * - **How many at once.** Enough requests in flight to keep the key's limiter busy, and no more:
 *   Little's law, in flight ≈ rate × latency × 1.5 (`Partitions.concurrencyFor`), the latency measured
 *   from the limiter's slot to the answer's last byte (time spent waiting at the limiter does not
 *   count, so a full limiter does not make the export ask for more). Until the first answer, one
 *   cursor: a range that one short page answers costs one call. `concurrency` caps it (1 = one cursor),
 *   and so does memory: pages in flight or held hold at most 70,000 rows in all (7 partitions of
 *   10,000-row pages, 70 of 1,000-row ones). Against a distant server (`Partitions.readAheadPays`)
 *   a partition reads its next page ahead, while it writes this one, when that budget has a page free
 *   (the first partition always does). So does the CPU: while the event loop is saturated (answers
 *   wait to be parsed, which a latency measurement would count as the server's), a fifth fewer
 *   partitions ask for pages every half second — the others pause between two pages, keeping their
 *   ranges — but never fewer than keep the CPU busy across a latency (`Partitions.busyFloor`), and
 *   more again once it has room (`Partitions.nextCpuCap`).
 *   Exports of one key running at once (a source's `parallel.pool`: the library's sources share one
 *   per client) count their partitions together against that target, each reading at least one.
 * - **Where to cut.** A partition is cut only once it has returned a full page (evidence of more rows
 *   than one call returns) and when both halves can expect a full page; the range with the most rows
 *   expected is halved and the upper half becomes a new partition, until enough are running (work
 *   stealing: a cursor that finishes takes half of the busiest one left, so a dense stretch never
 *   becomes the tail). A cut lowers the running cursor's end
 *   (`BlockCursor.Bound`): it never emits a row past it, so no row is read twice or lost.
 * - **Checkpoints.** A group commit: the spools and the temporary file are fsynced, then the state
 *   records the file's position and every partition's range, position and spool length (see
 *   `Checkpoint.Partition`), at most once per `checkpointEvery`. A merged spool is deleted once a
 *   committed state no longer names it. After a SIGKILL, resume cuts every file to its recorded length
 *   and continues every partition from its own position.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as BlockCursor from "../streams/engine/BlockCursor.js"
import type { BlockBatch } from "../streams/engine/BlockCursor.js"
import * as Partitions from "../streams/engine/Partitions.js"
import type { BlockRange } from "../streams/Sources.js"
import type * as Checkpoint from "./Checkpoint.js"
import { type DataFile, openData, removeQuietly, sizeOf } from "./Files.js"
import type * as Parquet from "./Parquet.js"
import { fileSystemError, type SinkError } from "./SinkError.js"

/** Where the temporary file stands: its durable length, its rows, its last complete block. */
export interface Position {
  readonly bytes: number
  readonly rows: number
  readonly completeThrough: number
  /** Of those rows, the ones batches said were kept undecoded (`BlockBatch.undecodedRows`). */
  readonly undecodedRows: number
}

/** What a checkpoint records of a partitioned export. */
export interface Snapshot {
  readonly main: Position
  readonly partitions: ReadonlyArray<Checkpoint.Partition>
}

/** What the display shows of a partitioned export. */
export interface View {
  /** Rows written by this run (in the file or waiting in spools). */
  readonly rows: number
  /** Every row up to this block is in the temporary file. */
  readonly completeThrough: number
  /** Share of the blocks from the first one with data to the end that are read, when known. */
  readonly fraction: number | undefined
  /** Partitions being read. */
  readonly running: number
}

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

/** What `run` needs. */
export interface Options<E, R> {
  readonly folder: string
  /** `.<name>.partial`: spools are named `<tempName>.p<N>` beside it. */
  readonly tempName: string
  /** The temporary file, open at its durable length. */
  readonly main: Main
  /** What the temporary file holds. */
  readonly at: { readonly rows: number; readonly completeThrough: number; readonly undecodedRows?: number | undefined }
  /** The last block to read. */
  readonly toBlock: number
  /**
   * When present, the last block is only known once this completes (the chain's head, asked while the
   * first page is on the wire): the head reads toward `toBlock` meanwhile and its first write waits for
   * it; a lower value lowers the head's end, or fails with `EndMoved` when the head already claimed blocks
   * past it (nothing has been written then: run again with the known end). Only without `resumed`.
   */
  readonly until?: Effect.Effect<number, E> | undefined
  /** The partitions of the checkpoint being resumed (none for a fresh or extended run). */
  readonly resumed: ReadonlyArray<Checkpoint.Partition>
  /** The batches of a range; `bound` and `onAnswer` are honoured when the source reads in parallel. */
  readonly read: (
    range: BlockRange,
    bound: BlockCursor.Bound,
    onAnswer: (millis: number) => void
  ) => Stream.Stream<BlockBatch<unknown>, E, R>
  /** Appends a batch's rows to a spool. */
  readonly write: (file: DataFile, rows: ReadonlyArray<unknown>) => Effect.Effect<void, SinkError>
  /** Present when the source reads in parallel: the rate its requests get, and the rows one returns at most. */
  readonly parallel: {
    readonly callsPerSecond: number
    readonly rowsPerCall: number
    readonly pool?: Partitions.Pool | undefined
  } | undefined
  /** At most this many partitions at once (default: as many as the latency calls for). */
  readonly concurrency: number | undefined
  /** Minimum interval between two checkpoints, in ms. */
  readonly checkpointEvery: number
  /** Commits a checkpoint (the files it counts are fsynced by then; `parquet`: what the main's `sync` returned). */
  readonly commit: (
    snapshot: Snapshot,
    parquet: Parquet.State | undefined
  ) => Effect.Effect<void, SinkError, FileSystem.FileSystem | Path.Path>
  /** Told after every batch written. */
  readonly onProgress: (view: View) => void
}

interface Part {
  readonly fromBlock: number
  readonly bound: BlockCursor.Bound
  /** Rows of `fromBlock..completeThrough` are written (counted at batch boundaries). */
  completeThrough: number
  rows: number
  /** Of `rows`, the ones kept undecoded. */
  undecoded: number
  spoolBytes: number
  /** The spool; undefined once the partition writes into the temporary file (the head). */
  spool: DataFile | undefined
  readonly spoolName: string | undefined
  /** Closes the spool's file (once merged, or given up): its descriptor is not held until the end. */
  readonly closeSpool: Effect.Effect<void>
  /** A full page was seen in (or before) this range: worth cutting. */
  dense: boolean
  /** Rows this partition has read (into its spool or the file), for its density. */
  read: number
  /** Rows per block where nothing is read yet: the density of the range it was cut from. */
  readonly inherited: number
  state: "waiting" | "running" | "done"
  readonly lock: Effect.Semaphore
}

/**
 * The last block of a run turned out lower than the blocks its head had already claimed (see
 * `Options.until`): nothing was written; run again with the known end.
 */
export class EndMoved extends Data.TaggedError("EndMoved")<{ readonly toBlock: number }> {}

/** A partition's spool: its file, its name, and how to close it. */
interface Spool {
  readonly file: DataFile
  readonly name: string
  readonly close: Effect.Effect<void>
}

/** Rows the partitions of one export may hold in memory at once (pages being read or written). */
const rowsHeld = 70_000

/** How often a paused partition looks whether it may go on (ms). */
const pauseStep = 50

/** Blocks a range must have left to be cut in two. */
const minCut = 2

/** The spool files of an export (any left by an earlier run too), by the temporary file's name. */
export const removeSpools = (folder: string, tempName: string): Effect.Effect<void, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const names = yield* fs.readDirectory(folder)
    const prefix = `${tempName}.p`
    for (const name of names) {
      if (name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length))) yield* removeQuietly(path.join(folder, name))
    }
  }).pipe(Effect.ignore)

/**
 * Reads `toBlock` − `at.completeThrough` blocks into `main` in partitions (see the module header).
 * Returns when every row is in `main` (not yet fsynced). Spool files live as long as `Scope`.
 */
export const run = <E, R>(
  options: Options<E, R>
): Effect.Effect<Position, E | SinkError | EndMoved, R | FileSystem.FileSystem | Path.Path | Scope.Scope> =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const { main } = options
    // The last block: `options.toBlock`, or lower once `until` says so (resumed partitions wait for it).
    let toBlock = options.toBlock
    let until = options.until === undefined ? undefined : yield* Effect.cached(options.until)
    if (until !== undefined && options.resumed.length > 0) {
      toBlock = Math.min(toBlock, yield* until)
      until = undefined
    }
    const mainLock = yield* Effect.makeSemaphore(1)
    const at = {
      rows: options.at.rows,
      completeThrough: options.at.completeThrough,
      bytes: main.bytes(),
      undecodedRows: options.at.undecodedRows ?? 0
    }
    const spoolPrefix = `${options.tempName}.p`
    let nextId = 1 + Math.max(0, ...options.resumed.map((p) => Number(p.spoolFile.slice(spoolPrefix.length)) || 0))
    const spoolPath = (name: string) => path.join(options.folder, name)
    // Each partition holds a page, and one more while it reads ahead (see `readPart`): at most
    // `rowsHeld` rows in memory in all (one page more for the first partition, which always reads
    // ahead), so 10,000-row pages allow 7 partitions and 1,000-row pages 70.
    const pagesHeld = options.parallel === undefined ? 1 : Math.max(1, Math.floor(rowsHeld / options.parallel.rowsPerCall))
    const memoryCap = pagesHeld
    // Pages of that budget free for reading ahead: those the running partitions do not hold.
    const budget = { free: pagesHeld }
    const cap = Math.min(options.concurrency ?? Number.POSITIVE_INFINITY, memoryCap)
    // Shared with the other exports of the source's key running at once, if it has a pool.
    const shared = options.parallel?.pool ?? Partitions.pool()
    let firstData: number | undefined
    let rowsWritten = 0
    const runStart = at.completeThrough + 1
    /** Spools merged into `main` since the last snapshot, deleted after the next commit. */
    const retired: Array<string> = []
    const wake = yield* Queue.sliding<void>(1)
    const dirty = yield* Queue.sliding<void>(1)
    const failed = yield* Deferred.make<never, E | SinkError | EndMoved>()

    const makePart = (
      fromBlock: number,
      end: number,
      spool: Spool | undefined,
      dense: boolean,
      inherited = 0
    ): Part => ({
      fromBlock,
      bound: BlockCursor.bound(fromBlock, end),
      completeThrough: fromBlock - 1,
      rows: 0,
      undecoded: 0,
      spoolBytes: spool?.file.bytes() ?? 0,
      spool: spool?.file,
      spoolName: spool?.name,
      closeSpool: spool?.close ?? Effect.void,
      dense,
      read: 0,
      inherited,
      state: fromBlock > end ? "done" : "waiting",
      lock: Effect.unsafeMakeSemaphore(1)
    })

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
        return { name, file, close } satisfies Spool
      })

    /** A new, empty spool (not hashed: a spool is copied, not published; its bytes are hashed in the file). */
    const newSpool = Effect.suspend(() => openSpool(`${spoolPrefix}${nextId++}`, 0))

    // The head continues the temporary file; the checkpoint's partitions continue their spools (a spool
    // gone or shorter than its record is read again from its first block).
    const parts: Array<Part> = []
    const firstResumed = options.resumed[0]
    parts.push(makePart(runStart, firstResumed === undefined ? toBlock : firstResumed.fromBlock - 1, undefined, false))
    for (const [i, p] of options.resumed.entries()) {
      const end = i === options.resumed.length - 1 ? Math.max(p.toBlock, toBlock) : p.toBlock
      const size = yield* sizeOf(spoolPath(p.spoolFile))
      const intact = size !== undefined && size >= p.spoolBytes
      const part = makePart(p.fromBlock, end, yield* openSpool(p.spoolFile, intact ? p.spoolBytes : 0), false)
      if (intact) {
        part.completeThrough = p.completeThrough
        part.rows = p.rows
        part.undecoded = p.undecodedRows ?? 0
        part.spoolBytes = p.spoolBytes
        part.bound.claimed = p.completeThrough
        if (p.completeThrough >= end) part.state = "done"
      }
      parts.push(part)
    }

    const view = (): View => {
      let fraction: number | undefined
      if (parts.length === 0) fraction = 1
      else if (firstData !== undefined) {
        const lo = Math.max(runStart, firstData)
        const span = toBlock - lo + 1
        let covered = Math.max(0, at.completeThrough - lo + 1)
        for (const p of parts) {
          if (p.spool !== undefined) covered += Math.max(0, p.completeThrough - Math.max(p.fromBlock, lo) + 1)
        }
        fraction = span <= 0 ? 1 : Math.max(0, Math.min(1, covered / span))
      }
      return {
        rows: rowsWritten,
        completeThrough: at.completeThrough,
        fraction,
        running: parts.filter((p) => p.state === "running").length
      }
    }

    /** Before the first write: waits for the last block (`until`) and lowers the head's end to it. */
    const settle = (part: Part) =>
      Effect.gen(function*() {
        if (until === undefined) return
        const last = yield* until
        until = undefined
        if (last >= toBlock) return
        if (!BlockCursor.lower(part.bound, last)) return yield* new EndMoved({ toBlock: last })
        toBlock = last
      })

    const writeBatch = (part: Part, batch: BlockBatch<unknown>) =>
      part.lock.withPermits(1)(Effect.gen(function*() {
        yield* settle(part)
        const completeThrough = Math.min(batch.completeThrough, part.bound.end)
        const n = batch.rows.length
        const undecoded = batch.undecodedRows ?? 0
        const spool = part.spool
        if (spool === undefined) {
          // Written and counted together (a checkpoint's mark falls before or after both).
          yield* mainLock.withPermits(1)(Effect.uninterruptible(Effect.gen(function*() {
            if (n > 0) yield* main.write(batch.rows)
            at.rows += n
            at.undecodedRows += undecoded
            at.bytes = main.bytes()
            at.completeThrough = Math.max(at.completeThrough, completeThrough)
          })))
        } else {
          if (n > 0) yield* options.write(spool, batch.rows)
          part.rows += n
          part.undecoded += undecoded
          part.spoolBytes = spool.bytes()
        }
        part.completeThrough = Math.max(part.completeThrough, completeThrough)
        part.read += n
        if (completeThrough < part.bound.end) part.dense = true
        // A source that does not say where its rows start is measured from the run's first block.
        const first = batch.firstBlock ?? (n > 0 ? runStart : undefined)
        if (first !== undefined && (firstData === undefined || first < firstData)) firstData = first
        rowsWritten += n
        shared.pages++
        options.onProgress(view())
      })).pipe(Effect.zipRight(Queue.offer(dirty, undefined)), Effect.zipRight(Queue.offer(wake, undefined)))

    /** The rest of a partition's range, from where it stands to its end, and the rows expected there. */
    const remaining = (p: Part) => {
      const from = Math.max(p.bound.claimed, p.completeThrough) + 1
      const width = p.bound.end - from + 1
      const covered = p.completeThrough - p.fromBlock + 1
      const density = covered > 0 && p.read > 0 ? p.read / covered : p.inherited
      return { from, width, density, rows: density * width }
    }
    // A range is cut when both halves can expect at least a full page: a cut costs a short last page.
    const rowsPerCall = options.parallel?.rowsPerCall ?? 1

    const readPart = (part: Part) =>
      Effect.gen(function*() {
        const onAnswer = (millis: number) => {
          shared.latency = Partitions.ewma(shared.latency, millis)
          shared.fastest = Math.min(shared.fastest ?? millis, millis)
        }
        const range = { fromBlock: part.completeThrough + 1, toBlock: part.bound.end }
        const batches = options.read(range, part.bound, onAnswer)
        // Every partition reads a page ahead while the budget of pages held allows it and the server
        // is distant (`Partitions.readAheadPays`): its next request is on the wire while it writes this
        // page. Without it, answers that arrived together were all processed before any partition
        // asked again, and the CPU idled a latency after every round (partitions in lock step).
        // Otherwise it writes its page, pauses if the CPU is saturated, then asks again with the page
        // it held. The first partition always reads ahead.
        yield* forEachPaced(batches, (batch) => writeBatch(part, batch), {
          takeAhead: () => {
            if (part.spool !== undefined && (budget.free <= 0 || shared.active > Partitions.cpuCapOf(shared) || !Partitions.readAheadPays(shared))) return false
            budget.free--
            return true
          },
          release: Effect.sync(() => void budget.free++),
          beforeNext: pause(part)
        })
        // Ended: every row up to its (possibly lowered) end is written.
        yield* part.lock.withPermits(1)(settle(part))
        yield* part.lock.withPermits(1)(Effect.sync(() => {
          part.completeThrough = part.bound.end
          part.state = "done"
          if (part.spool === undefined) at.completeThrough = Math.max(at.completeThrough, part.bound.end)
        }))
        options.onProgress(view())
        yield* Queue.offer(dirty, undefined)
        yield* Queue.offer(wake, undefined)
      })

    /**
     * Before a partition that is not the head asks for its next page: while the key's partitions asking
     * for pages are more than the process's CPU keeps up with, it waits (its range stays its own), until
     * there is room again or it has become the head.
     */
    const pause = (part: Part) =>
      Effect.suspend(() => {
        if (shared.active <= Partitions.cpuCapOf(shared)) return Effect.void
        shared.active--
        return Effect.sleep(pauseStep).pipe(
          Effect.repeat({ until: () => part.spool === undefined || shared.active < Partitions.cpuCapOf(shared) }),
          Effect.ensuring(Effect.sync(() => void shared.active++))
        )
      })

    /**
     * Cuts in two the range left with the most rows expected (a range that has returned a full page:
     * the rows it read so far over the blocks it covered, times the blocks left); the upper half is a
     * new partition (not started).
     */
    const cut = Effect.gen(function*() {
      const widest = () => {
        let best: Part | undefined
        let bestRows = 0
        for (const p of parts) {
          if (p.state === "done" || !p.dense) continue
          const left = remaining(p)
          if (left.width >= minCut && left.rows >= 2 * rowsPerCall && left.rows > bestRows) {
            best = p
            bestRows = left.rows
          }
        }
        return best
      }
      if (widest() === undefined) return undefined
      const spool = yield* newSpool
      // Chosen again after the spool is open: the cursors moved meanwhile. From here nothing yields.
      const best = widest()
      const left = best === undefined ? undefined : remaining(best)
      if (best === undefined || left === undefined) {
        yield* spool.close
        yield* removeQuietly(spoolPath(spool.name))
        return undefined
      }
      const oldEnd = best.bound.end
      const mid = left.from + Math.floor(left.width / 2) - 1
      if (!BlockCursor.lower(best.bound, mid)) {
        yield* spool.close
        yield* removeQuietly(spoolPath(spool.name))
        return undefined
      }
      const part = makePart(mid + 1, oldEnd, spool, true, left.density)
      parts.splice(parts.indexOf(best) + 1, 0, part)
      return part
    })

    /** Appends the spools of the partitions after a finished head, in order; the next one becomes the head. */
    const advance = Effect.gen(function*() {
      while (parts.length > 0 && parts[0]?.state === "done") {
        parts.shift()
        const next = parts[0]
        if (next === undefined) break
        // Merged and counted together, as a batch is.
        yield* next.lock.withPermits(1)(mainLock.withPermits(1)(Effect.uninterruptible(Effect.gen(function*() {
          const spool = next.spool
          if (spool !== undefined && next.spoolName !== undefined) {
            yield* spool.flush
            yield* main.appendSpool(spool)
            at.rows += next.rows
            at.undecodedRows += next.undecoded
            at.bytes = main.bytes()
            // A checkpoint whose snapshot was taken before this merge still counts these rows in the
            // spool (its file is removed only after the next checkpoint): fsynced here, as that
            // checkpoint would have, since it finds the spool closed (`commitOnce`).
            yield* spool.sync
            next.spool = undefined
            yield* next.closeSpool
            retired.push(next.spoolName)
          }
          at.completeThrough = Math.max(at.completeThrough, next.completeThrough)
        }))))
        options.onProgress(view())
        yield* Queue.offer(dirty, undefined)
      }
    })

    const commitOnce = Effect.gen(function*() {
      // Taken at once, between two writes to the temporary file (its lock held), and marked there:
      // every position was counted at a batch boundary.
      const snapshot: Snapshot = yield* mainLock.withPermits(1)(Effect.sync(() => takeSnapshot()))
      const spools = parts.flatMap((p) => (p.spool === undefined ? [] : [[p, p.spool] as const]))
      const gone = retired.splice(0)
      // A spool merged (and closed) since the snapshot was fsynced by the merge (`advance`).
      for (const [p, file] of spools) yield* p.lock.withPermits(1)(Effect.suspend(() => (p.spool === file ? file.sync : Effect.void)))
      const parquet = yield* mainLock.withPermits(1)(main.sync)
      yield* options.commit(snapshot, parquet)
      for (const name of gone) yield* removeQuietly(spoolPath(name))
    })

    const takeSnapshot = (): Snapshot => {
      main.mark()
      return {
        main: { ...at },
        partitions: parts.flatMap((p) =>
          p.spool === undefined || p.spoolName === undefined ? [] : [{
            fromBlock: p.fromBlock,
            toBlock: p.bound.end,
            completeThrough: p.completeThrough,
            spoolFile: p.spoolName,
            spoolBytes: p.spoolBytes,
            rows: p.rows,
            // Only where there are some: the checkpoints of other data sets stay as they were.
            ...(p.undecoded === 0 ? {} : { undecodedRows: p.undecoded })
          }]
        )
      }
    }

    const committer = Effect.gen(function*() {
      while (true) {
        yield* Queue.take(dirty)
        yield* commitOnce
        if (options.checkpointEvery > 0) yield* Effect.sleep(options.checkpointEvery)
      }
    })

    /** Partitions the key's exports should read at once, all of them together. */
    const target = () =>
      shared.latency === undefined || options.parallel === undefined
        ? 1
        : Partitions.concurrencyFor({ callsPerSecond: options.parallel.callsPerSecond, latencyMs: shared.latency })

    yield* Effect.scoped(Effect.gen(function*() {
      yield* Effect.forkScoped(Effect.catchAll(committer, (e) => Deferred.fail(failed, e)))
      const start = (part: Part) => {
        part.state = "running"
        shared.running++
        shared.active++
        budget.free--
        return Effect.forkScoped(
          readPart(part).pipe(
            Effect.catchAllCause((cause) => Deferred.failCause(failed, cause)),
            Effect.ensuring(Effect.sync(() => {
              shared.running--
              shared.active--
              budget.free++
            }))
          )
        )
      }
      while (true) {
        yield* advance
        if (parts.length === 0) break
        let running = parts.filter((p) => p.state === "running").length
        // Every export reads at least one partition; more while the key's exports together read fewer
        // than the target and than the process's CPU keeps up with, and this one fewer than its cap (the
        // user's, or what its memory allows).
        while (running === 0 || (shared.running < Math.min(target(), Partitions.cpuCapOf(shared)) && running < cap)) {
          const waiting = parts.find((p) => p.state === "waiting")
          const next = waiting ?? (cap === 1 ? undefined : yield* cut)
          if (next === undefined) break
          yield* start(next)
          running++
        }
        yield* Effect.raceFirst(Queue.take(wake), Deferred.await(failed))
      }
    })).pipe(
      // Failed or interrupted: once every cursor has stopped, a last checkpoint of what was written, so
      // `resume` continues from there.
      Effect.onError(() => Effect.ignore(commitOnce))
    )
    // Every row is in the file; the runner's last checkpoint follows, then it removes the spools.
    return { bytes: at.bytes, rows: at.rows, completeThrough: at.completeThrough, undecodedRows: at.undecodedRows }
  })

/**
 * Runs `f` on every element of `stream`, one element read ahead: the next batch is read (its request on
 * the wire, the server busy with it, its answer parsed) while `f` writes this one, and no further, so at
 * most two pages are held. The limiter still spaces every request.
 */
export const forEachReadingAhead = <A, E, R, E2, R2>(
  stream: Stream.Stream<A, E, R>,
  f: (a: A) => Effect.Effect<void, E2, R2>
): Effect.Effect<void, E | E2, R | R2> => forEachPaced(stream, f, { takeAhead: () => true, release: Effect.void, beforeNext: Effect.void })

/** How `forEachPaced` paces its reads. */
export interface Pacing {
  /** As a batch arrives: whether the next one may be asked for now (then a page of the budget is taken). */
  readonly takeAhead: () => boolean
  /** Gives back a page of the budget taken by `takeAhead`, once its batch is written. */
  readonly release: Effect.Effect<void>
  /** Before the next batch is asked for, when it was not asked for ahead: a pause, if need be. */
  readonly beforeNext: Effect.Effect<void>
}

/**
 * Runs `f` on every element of `stream`, reading one element ahead when `pacing.takeAhead` allows it:
 * then the next batch is read (its request on the wire, its answer parsed) while `f` writes this one,
 * and the budget's page is released after. Otherwise `f` writes the batch, `pacing.beforeNext` runs,
 * and only then is the next batch asked for (with the page this batch held). The limiter still spaces
 * every request.
 */
export const forEachPaced = <A, E, R, E2, R2>(
  stream: Stream.Stream<A, E, R>,
  f: (a: A) => Effect.Effect<void, E2, R2>,
  pacing: Pacing
): Effect.Effect<void, E | E2, R | R2> =>
  Effect.scoped(Effect.gen(function*() {
    const pull = yield* Stream.toPull(stream)
    const next = Effect.forkScoped(Effect.catchAll(pull, Option.match({
      onNone: () => Effect.succeed(undefined),
      onSome: (e: E) => Effect.fail(e)
    })))
    let ahead = yield* next
    while (true) {
      const chunk = yield* Fiber.join(ahead)
      if (chunk === undefined) return
      if (pacing.takeAhead()) {
        ahead = yield* next
        yield* Effect.ensuring(Effect.forEach(chunk, f, { discard: true }), pacing.release)
      } else {
        for (const a of chunk) yield* f(a)
        yield* pacing.beforeNext
        ahead = yield* next
      }
    }
  }))
