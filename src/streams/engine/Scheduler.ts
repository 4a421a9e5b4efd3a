/**
 * The parallel scheduler of the paging engine: one block range read by several cursors at once and
 * handed over in block order, for every reader alike (a file export, a `Stream`). It knows no files:
 * rows read ahead of their turn wait in a {@link Spill} the reader gives it (an export: spool files
 * beside its `.partial`; a Stream: memory, bounded), and rows in their turn go to the reader's
 * {@link Main}.
 *
 * The range is cut into partitions, disjoint and contiguous. The first one (the head) writes into the
 * main; every later one writes into a spill of its own. When the head has read its last block, the
 * next partition's spill is appended to the main and that partition writes there from then on: the
 * main receives every row in block order, exactly the rows one cursor reads.
 *
 * - **How many requests at once.** Enough to keep the key's limiter busy, and no more: Little's law,
 *   in flight ≈ rate × latency × 1.5 (`Partitions.concurrencyFor`), the latency measured from the
 *   limiter's slot to the answer's last byte. Until the first answer, one request: a range that one
 *   short page answers costs one call (where a query has several pages and the first has not answered
 *   within 100 ms, the pages after it go too: `BlockCursor.Bound.patience`). Requests come from two
 *   places:
 *   - **pages of one query** (`BlockCursor.Bound.ahead`): pages 1..window/offset of a query are
 *     independent requests, asked together while the rows seen say the query goes on. They cost no
 *     short page and no cut: where the result window holds several pages (getLogs on paid plans: ten),
 *     a few partitions keep the limiter busy;
 *   - **partitions**, cut where one query's pages are not enough (a window of one page: transaction
 *     lists, the free plan).
 *   `concurrency` caps the partitions (1 = one cursor), and so does memory: pages in flight or held hold
 *   at most 70,000 rows in all. While the event loop is saturated, a fifth fewer partitions ask for
 *   pages every half second, never fewer than keep the CPU busy across a latency
 *   (`Partitions.busyFloor`). Readers of one key running at once (a source's `parallel.pool`) count their
 *   partitions together.
 * - **Where to cut.** A partition is cut only once it (or the one before it) has returned a full page,
 *   and only where the part beyond can expect two full pages (one page a query) or half a page beyond
 *   the cursor's window (several: those rows cost a short page either way). The range with the most
 *   rows expected is cut beyond the pages its cursor has on the wire: where a query has several pages,
 *   two pages' worth of blocks past the expected end of its window in an export (a cut that falls short
 *   gives up the pages sent past it), 0.6 page short of it in a Stream (`heldRows`); six pages' worth
 *   of blocks on (or halfway, if less) where it has one; the part beyond becomes a new partition that
 *   asks, from its start, the pages its expected rows fill, no more than the density of every block
 *   read so far says (work stealing: a cursor that finishes takes the part beyond the busiest one's).
 *   A cut lowers the running cursor's end (`BlockCursor.Bound`): it never emits a row past it, so no
 *   row is read twice or lost.
 * - **Checkpoints.** A group commit: the spills and the main are synced, then `commit` records the main's
 *   position and every partition's range, position and spill length, at most once per
 *   `checkpointEvery`. A merged spill is removed once a committed state no longer names it. Resumed,
 *   every partition continues from its own position.
 */
import * as Chunk from "effect/Chunk"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Take from "effect/Take"
import * as BlockCursor from "./BlockCursor.js"
import type { BlockBatch } from "./BlockCursor.js"
import * as Partitions from "./Partitions.js"

/** An inclusive block range. */
export type BlockRange = Partitions.BlockRange

/** Where the main stands: its durable length, its rows, its last complete block. */
export interface Position {
  readonly bytes: number
  readonly rows: number
  readonly completeThrough: number
  /** Of those rows, the ones batches said were kept undecoded (`BlockBatch.undecodedRows`). */
  readonly undecodedRows: number
}

/** What a checkpoint records of one partition that is not the head (an export's `Checkpoint.Partition`). */
export interface Lane {
  readonly fromBlock: number
  readonly toBlock: number
  readonly completeThrough: number
  /** The name of its spill. */
  readonly spoolFile: string
  /** The length of its spill (bytes of a spool file). */
  readonly spoolBytes: number
  readonly rows: number
  readonly undecodedRows?: number | undefined
}

/** What a checkpoint records of a partitioned read. */
export interface Snapshot {
  readonly main: Position
  readonly partitions: ReadonlyArray<Lane>
}

/** What a reader's display shows. */
export interface View {
  /** Rows read by this run (in the main or waiting in spills). */
  readonly rows: number
  /** Every row up to this block is in the main. */
  readonly completeThrough: number
  /** Share of the blocks from the first one with data to the end that are read, when known. */
  readonly fraction: number | undefined
  /** Partitions being read. */
  readonly running: number
}

/** Where one partition's rows wait for their turn. Used by one fiber at a time. */
export interface SpillHandle<ES> {
  readonly name: string
  /** Appends a batch's rows. */
  readonly write: (rows: ReadonlyArray<unknown>) => Effect.Effect<void, ES>
  /** Its length so far (what a checkpoint records and a resume continues from). */
  readonly length: () => number
  /** Rows held in memory (a spill in memory: all of them; a spool file: none). */
  readonly held: () => number
  /** Writes out what is buffered (before the main reads it). */
  readonly flush: Effect.Effect<void, ES>
  /** Makes it durable (before a checkpoint counts it). */
  readonly sync: Effect.Effect<void, ES>
  /** Gives it up once merged (or at the end). */
  readonly close: Effect.Effect<void>
}

/** Makes and removes spills. */
export interface Spill<H extends SpillHandle<ES>, ES, RS> {
  /** A new, empty one. */
  readonly create: Effect.Effect<H, ES, RS>
  /** The spill of a checkpoint's partition, at `length` when it is still there whole (`intact`), else empty. */
  readonly reopen: (name: string, length: number) => Effect.Effect<{ readonly handle: H; readonly intact: boolean }, ES, RS>
  /** Removes a spill merged or given up. */
  readonly remove: (name: string) => Effect.Effect<void, never, RS>
}

/**
 * Where rows in their turn go, in block order: an export's temporary file, or a Stream's queue. Used
 * under one lock, by one fiber at a time.
 */
export interface Main<H, ES, M, RS> {
  /** Its length so far (for the position). */
  readonly bytes: () => number
  /** Appends the rows of a batch. */
  readonly write: (rows: ReadonlyArray<unknown>) => Effect.Effect<void, ES>
  /** Appends the content of a spill, once the main has reached its range. */
  readonly appendSpill: (spill: H) => Effect.Effect<void, ES, RS>
  /**
   * Marks where the checkpoint being taken stands, with nothing yielding between the snapshot and the
   * mark: every row written so far, and none after.
   */
  readonly mark: () => void
  /** Makes the main durable at least up to the last mark; what it returns goes to `commit`. */
  readonly sync: Effect.Effect<M, ES>
}

/** What `run` needs. */
export interface Options<E, R, H extends SpillHandle<ES>, ES, M, RS> {
  readonly main: Main<H, ES, M, RS>
  readonly spill: Spill<H, ES, RS>
  /** What the main holds already. */
  readonly at: { readonly rows: number; readonly completeThrough: number; readonly undecodedRows?: number | undefined }
  /** The last block to read. */
  readonly toBlock: number
  /**
   * When present, the last block is only known once this completes (the chain's head, asked while the
   * first page is on the wire): the head reads toward `toBlock` meanwhile and its first write waits for
   * it; a lower value lowers the head's end, or fails with `EndMoved` when the head already claimed blocks
   * past it (nothing has been written then: run again with the known end). Only without `resumed`.
   */
  readonly until?: Effect.Effect<number, E, R> | undefined
  /** The partitions of the checkpoint being resumed (none for a fresh or extended run). */
  readonly resumed: ReadonlyArray<Lane>
  /** The batches of a range; `bound` and `onAnswer` are honoured when the source reads in parallel. */
  readonly read: (
    range: BlockRange,
    bound: BlockCursor.Bound,
    onAnswer: (millis: number) => void
  ) => Stream.Stream<BlockBatch<unknown>, E, R>
  /**
   * Present when the source reads in parallel: the rate its requests get, the rows one returns at most,
   * and the pages one query may have (the result window over the rows of a page; default 1).
   */
  readonly parallel: {
    readonly callsPerSecond: number
    readonly rowsPerCall: number
    readonly pagesPerQuery?: number | undefined
    readonly pool?: Partitions.Pool | undefined
  } | undefined
  /** At most this many partitions at once (default: as many as the latency calls for). */
  readonly concurrency: number | undefined
  /** Rows the spills may hold in memory before the partitions ahead of the head wait (default: no bound). */
  readonly heldRows?: number | undefined
  /** Minimum interval between two checkpoints, in ms. */
  readonly checkpointEvery: number
  /** Commits a checkpoint (the spills and the main are synced by then; `marked`: what the main's `sync` returned). */
  readonly commit: (snapshot: Snapshot, marked: M) => Effect.Effect<void, ES, RS>
  /** Told after every batch written. */
  readonly onProgress: (view: View) => void
}

interface Part<H> {
  readonly fromBlock: number
  readonly bound: BlockCursor.Bound
  /** Rows of `fromBlock..completeThrough` are written (counted at batch boundaries). */
  completeThrough: number
  rows: number
  /** Of `rows`, the ones kept undecoded. */
  undecoded: number
  spillLength: number
  /** The spill; undefined once the partition writes into the main (the head). */
  spill: H | undefined
  /** A full page was seen in (or before) this range: worth cutting. */
  dense: boolean
  /** Rows this partition has read (into its spill or the main), for its density. */
  read: number
  /** Rows per block where nothing is read yet: the density of the range it was cut from. */
  inherited: number
  state: "waiting" | "running" | "done"
  readonly lock: Effect.Semaphore
}

/**
 * The last block of a run turned out lower than the blocks its head had already claimed (see
 * `Options.until`): nothing was written; run again with the known end.
 */
export class EndMoved extends Data.TaggedError("EndMoved")<{ readonly toBlock: number }> {}

/** Rows the partitions of one reader may hold in memory at once (pages being read or written). */
const rowsHeld = 70_000

/** How often a paused partition looks whether it may go on (ms). */
const pauseStep = 50

/**
 * Pages short of the window's end a cut falls, where a query has several pages and the rows read ahead
 * wait in memory (a Stream): the range left to the cursor is expected to fill its window but for half a
 * page and a little (a range that overflows its window by a few rows asks them in a query of its own
 * once the window's last page has answered).
 */
const windowSlack = 0.6

/**
 * The same where rows read ahead wait in spools of any size (an export): negative, the cut falls two
 * pages' worth of blocks *beyond* the window's expected end. A page's blocks are a guess from the rows
 * read so far; a cut that falls short of where the cursor's pages reach gives up every page sent past it
 * (their rows are read again beyond the cut), one that falls long costs the cursor a query of its own
 * for the rest, a round trip later, while the other partitions fill the limiter. In the virtual-time
 * bench (section 11, 2 seeds) every 30 s export cell gained (sparse, dense, bursty, hot, near the window;
 * standard and professional: +0.007 to +0.033), and section 6's heavy contract at 30 s 0.902 -> 0.928
 * (standard) and 0.799 -> 0.871 (professional); 2 s and 5 s within a draw's noise (6 seeds: mean
 * +0.004). Against the bench simulator (section 8, one draw a cell) fewer or as many calls in 40 of 45
 * export cells; worse: sparse and dense standard 5 s (0.87 -> 0.81, 0.91 -> 0.84, the limiter idle for a
 * stretch: most likely the last range asking its rest a round trip before the end, with nothing left to
 * fill the limiter). Not for a Stream (a finite `heldRows`; with `spill` too, not measured otherwise): its
 * partitions ahead wait on `heldRows` during that round trip (professional 30 s: dense 0.913 -> 0.687,
 * hot 0.878 -> 0.613).
 */
const spooledSlack = -2

/** Blocks a range must have left to be cut in two. */
const minCut = 2

/**
 * Pages a cursor is left to read before a cut, where a query has one page: each cut costs one short
 * page, so a cursor's stretch of this many full pages and a short one fills ~90 % of its calls (in
 * the virtual-time bench, 3 or 4 made bursty free exports worse than halving; 6 made no cell worse).
 */
const stretch = 6

/**
 * Reads `toBlock` − `at.completeThrough` blocks into `main` in partitions (see the module header).
 * Returns when every row is in `main` (not yet synced). Spills live as long as `Scope`.
 */
export const run = <E, R, H extends SpillHandle<ES>, ES, M, RS>(
  options: Options<E, R, H, ES, M, RS>
): Effect.Effect<Position, E | ES | EndMoved, R | RS | Scope.Scope> =>
  Effect.gen(function*() {
    const { main, spill } = options
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
    // Each partition holds a page, and one more while it reads ahead (see `readPart`): at most
    // `rowsHeld` rows in memory in all (one page more for the first partition, which always reads
    // ahead), so 10,000-row pages allow 7 partitions and 1,000-row pages 70.
    const pagesHeld = options.parallel === undefined ? 1 : Math.max(1, Math.floor(rowsHeld / options.parallel.rowsPerCall))
    // Pages of that budget free for reading ahead: those the running partitions do not hold.
    const budget = { free: pagesHeld }
    const cap = Math.min(options.concurrency ?? Number.POSITIVE_INFINITY, pagesHeld)
    const pagesPerQuery = Math.max(1, Math.floor(options.parallel?.pagesPerQuery ?? 1))
    // Shared with the other readers of the source's key running at once, if it has a pool.
    const shared = options.parallel?.pool ?? Partitions.pool()
    let firstData: number | undefined
    let rowsWritten = 0
    const runStart = at.completeThrough + 1
    /** Spills merged into `main` since the last snapshot, removed after the next commit. */
    const retired: Array<string> = []
    const wake = yield* Queue.sliding<void>(1)
    const dirty = yield* Queue.sliding<void>(1)
    const failed = yield* Deferred.make<never, E | ES | EndMoved>()

    const makePart = (
      fromBlock: number,
      end: number,
      handle: H | undefined,
      dense: boolean,
      inherited = 0
    ): Part<H> => ({
      fromBlock,
      bound: BlockCursor.bound(fromBlock, end),
      completeThrough: fromBlock - 1,
      rows: 0,
      undecoded: 0,
      spillLength: handle?.length() ?? 0,
      spill: handle,
      dense,
      read: 0,
      inherited,
      state: fromBlock > end ? "done" : "waiting",
      lock: Effect.unsafeMakeSemaphore(1)
    })

    // The head continues the main; the checkpoint's partitions continue their spills (a spill gone or
    // shorter than its record is read again from its first block).
    const parts: Array<Part<H>> = []
    const firstResumed = options.resumed[0]
    parts.push(makePart(runStart, firstResumed === undefined ? toBlock : firstResumed.fromBlock - 1, undefined, false))
    for (const [i, p] of options.resumed.entries()) {
      const end = i === options.resumed.length - 1 ? Math.max(p.toBlock, toBlock) : p.toBlock
      const { handle, intact } = yield* spill.reopen(p.spoolFile, p.spoolBytes)
      const part = makePart(p.fromBlock, end, handle, false)
      if (intact) {
        part.completeThrough = p.completeThrough
        part.rows = p.rows
        part.undecoded = p.undecodedRows ?? 0
        part.spillLength = p.spoolBytes
        part.bound.claimed = p.completeThrough
        if (p.completeThrough >= end) part.state = "done"
      }
      parts.push(part)
    }

    // A fresh range whose queries have several pages: its first query's pages after the first go if
    // the first has not answered within 100 ms (the rows it holds are unknown), as many as the key's
    // rate sends in 600 ms. Against a server 300–600 ms away the window is on the wire sooner (on
    // professional a round trip is 15 of the 150 calls a 5 s export makes); a short first page gives
    // up those still waiting for their slot, and a server that answers within the patience costs none.
    // 100 ms, not the 250 of before: the virtual-time
    // bench (section 11, 2 s and 5 s, both readers, 2 draws) gained 0.019 on average with no cell worse
    // (150 ms sooner: 4.5 of a professional 2 s export's 60 slots); at 30 s every cell moved within a draw's
    // noise. (The dry-run test's heavy export, whose calls a loaded CI machine's slow first page once
    // raised from 22 to 29 at 100 ms, reads with one cursor since.)
    const head = parts[0]
    if (head !== undefined && options.resumed.length === 0 && pagesPerQuery > 1 && cap !== 1 && options.parallel !== undefined) {
      head.bound.patience = Math.max(100, 1000 / options.parallel.callsPerSecond)
      head.bound.patiencePages = Math.ceil(options.parallel.callsPerSecond * 0.6)
    }
    // The last block asked together with the first page: the head's cursor lowers its end to it once
    // that page answers, before it cuts the page's rows (an end asked too wide costs nothing then; a
    // head that cannot be lowered, or a failed `until`, is left to `settle`, which fails as it says).
    if (head !== undefined && until !== undefined) {
      const known = Effect.provide(until, yield* Effect.context<R>())
      head.bound.settle = Effect.ignore(Effect.flatMap(known, (last) =>
        Effect.sync(() => {
          if (last < toBlock) BlockCursor.lower(head.bound, last)
        })))
    }

    /** Rows the spills hold in memory. */
    const heldNow = () => {
      let n = 0
      for (const p of parts) if (p.spill !== undefined) n += p.spill.held()
      return n
    }

    const view = (): View => {
      let fraction: number | undefined
      if (parts.length === 0) fraction = 1
      else if (firstData !== undefined) {
        const lo = Math.max(runStart, firstData)
        const span = toBlock - lo + 1
        let covered = Math.max(0, at.completeThrough - lo + 1)
        for (const p of parts) {
          if (p.spill !== undefined) covered += Math.max(0, p.completeThrough - Math.max(p.fromBlock, lo) + 1)
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

    /** Rows per block over every block this run has read (undefined before the first row). */
    const densityRead = (): number | undefined => {
      let covered = Math.max(0, at.completeThrough - runStart + 1)
      for (const p of parts) if (p.spill !== undefined) covered += Math.max(0, p.completeThrough - p.fromBlock + 1)
      return covered > 0 && rowsWritten > 0 ? rowsWritten / covered : undefined
    }

    /** Before the first write: waits for the last block (`until`) and lowers the head's end to it. */
    const settle = (part: Part<H>) =>
      Effect.gen(function*() {
        if (until === undefined) return
        const last = yield* until
        until = undefined
        if (last >= toBlock) return
        // The head's cursor has lowered its end itself when its first page answered (`Bound.settle`).
        if (part.bound.end > last && !BlockCursor.lower(part.bound, last)) return yield* new EndMoved({ toBlock: last })
        toBlock = last
      })

    const writeBatch = (part: Part<H>, batch: BlockBatch<unknown>) =>
      part.lock.withPermits(1)(Effect.gen(function*() {
        yield* settle(part)
        const completeThrough = Math.min(batch.completeThrough, part.bound.end)
        const n = batch.rows.length
        const undecoded = batch.undecodedRows ?? 0
        const handle = part.spill
        if (handle === undefined) {
          // Written and counted together (a checkpoint's mark falls before or after both).
          yield* mainLock.withPermits(1)(Effect.uninterruptible(Effect.gen(function*() {
            if (n > 0) yield* main.write(batch.rows)
            at.rows += n
            at.undecodedRows += undecoded
            at.bytes = main.bytes()
            at.completeThrough = Math.max(at.completeThrough, completeThrough)
          })))
        } else {
          if (n > 0) yield* handle.write(batch.rows)
          part.rows += n
          part.undecoded += undecoded
          part.spillLength = handle.length()
        }
        part.completeThrough = Math.max(part.completeThrough, completeThrough)
        part.read += n
        if (completeThrough < part.bound.end) part.dense = true
        // The range cut beyond this one before either had read a page now rests on rows read too: it
        // may be cut before its own first page (a chain of windows on dense data waited a round trip
        // at every other cut), expecting no more than the density read here.
        if (n > 0 && part.bound.density !== undefined) {
          const after = parts[parts.indexOf(part) + 1]
          if (after !== undefined && after.read === 0 && !after.dense && after.fromBlock === part.bound.end + 1) {
            after.dense = true
            after.inherited = Math.min(after.inherited, part.bound.density)
          }
        }
        // A source that does not say where its rows start is measured from the run's first block.
        const first = batch.firstBlock ?? (n > 0 ? runStart : undefined)
        if (first !== undefined && (firstData === undefined || first < firstData)) firstData = first
        rowsWritten += n
        shared.pages++
        options.onProgress(view())
      })).pipe(Effect.zipRight(Queue.offer(dirty, undefined)), Effect.zipRight(Queue.offer(wake, undefined)))

    /**
     * The rest of a partition's range, from beyond what its cursor has claimed or has on the wire (pages
     * asked ahead cover about a page of rows each) to its end, and the rows expected there.
     */
    const remaining = (p: Part<H>) => {
      const covered = p.completeThrough - p.fromBlock + 1
      const overall = covered > 0 && p.read > 0 ? p.read / covered : p.inherited
      // Where the rows are now: the density of its last page, not of all it read (a range that read a
      // quiet stretch, then reached a burst, would otherwise be left uncut while it reads the burst
      // alone at the end of the export).
      const density = p.bound.density ?? overall
      // Where its query's window holds several pages, the cursor reads on to the window's end whatever
      // the density: the blocks its pages still to come are expected to cover (a cut that falls short
      // drops rows those pages bring, one that falls long costs at most a short page) are its own.
      const pages = pagesPerQuery > 1 ? (p.bound.pagesLeft ?? pagesPerQuery) : (p.bound.inFlight ?? 0)
      // Several pages a query: a little short of the window's end where rows ahead wait in memory
      // (`windowSlack`), so that the last page of the window is the short one that ends the range,
      // rather than a full one whose last block starts a query of its own a round trip later; beyond
      // it where they wait in spools (`spooledSlack`), so that pages sent are rarely given up.
      const filled = pagesPerQuery > 1 ? Math.max(0, pages - slack) : pages
      const onTheWire = density > 0 ? Math.ceil((filled * rowsPerCall) / density) : 0
      const from = Math.max(p.bound.claimed, p.completeThrough) + 1 + onTheWire
      const width = p.bound.end - from + 1
      // What a new partition beyond the cut is told to expect: the lower of the two (a guess too high
      // asks pages that come back empty; one too low costs a round trip before its pages go together).
      // (Before any block is complete, all it read is its last page: nothing lower to be cautious with.)
      const known = covered > 0 && p.read > 0
      return { from, width, density, cautious: known ? Math.min(density, overall) : density, rows: density * width }
    }
    // A range is cut when both halves can expect at least a full page: a cut costs a short last page.
    // Where a query has several pages, half a page beyond the cursor's window is enough: without the
    // cut those rows cost the same short page, asked by the cursor once its window's last page has
    // answered (a round trip later, at the end of an export the round trip nothing else fills).
    const rowsPerCall = options.parallel?.rowsPerCall ?? 1
    // Rows read ahead held in memory up to a bound (a Stream) or in spools of any size (an export).
    const slack = options.heldRows !== undefined && Number.isFinite(options.heldRows) ? windowSlack : spooledSlack
    const minCutRows = pagesPerQuery > 1 ? rowsPerCall / 2 : 2 * rowsPerCall

    const readPart = (part: Part<H>) =>
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
            if (
              part.spill !== undefined &&
              (budget.free <= 0 || spillFull(part) || shared.active > Partitions.cpuCapOf(shared) || !Partitions.readAheadPays(shared))
            ) return false
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
          if (part.spill === undefined) at.completeThrough = Math.max(at.completeThrough, part.bound.end)
        }))
        options.onProgress(view())
        yield* Queue.offer(dirty, undefined)
        yield* Queue.offer(wake, undefined)
      })

    /** Whether a partition ahead of the head must wait before its next page: its spill is over the memory bound. */
    const spillFull = (part: Part<H>) => part.spill !== undefined && options.heldRows !== undefined && heldNow() >= options.heldRows

    /**
     * Before a partition that is not the head asks for its next page: while the key's partitions asking
     * for pages are more than the process's CPU keeps up with, or the spills hold as many rows as memory
     * allows, it waits (its range stays its own), until there is room again or it has become the head.
     */
    const pause = (part: Part<H>) =>
      Effect.suspend(() => {
        if (shared.active <= Partitions.cpuCapOf(shared) && !spillFull(part)) return Effect.void
        shared.active--
        return Effect.sleep(pauseStep).pipe(
          Effect.repeat({
            until: () => part.spill === undefined || (shared.active < Partitions.cpuCapOf(shared) && !spillFull(part))
          }),
          Effect.ensuring(Effect.sync(() => void shared.active++))
        )
      })

    /**
     * Cuts in two the range left with the most rows expected (a range that has returned a full page:
     * the rows it read so far over the blocks it covered, times the blocks left); the upper half is a
     * new partition (not started), which asks the pages it is expected to hold together from its start.
     */
    const cut = Effect.gen(function*() {
      const widest = () => {
        let best: Part<H> | undefined
        let bestRows = 0
        for (const p of parts) {
          if (p.state === "done" || !p.dense) continue
          const left = remaining(p)
          if (left.width >= minCut && left.rows >= minCutRows && left.rows > bestRows) {
            best = p
            bestRows = left.rows
          }
        }
        return best
      }
      if (widest() === undefined) return undefined
      const handle = yield* spill.create
      // Chosen again after the spill is made: the cursors moved meanwhile. From here nothing yields.
      const best = widest()
      const left = best === undefined ? undefined : remaining(best)
      const oldEnd = best?.bound.end ?? 0
      // Several pages a query: at the blocks the cursor's window is expected to reach, the new partition
      // taking all beyond (a window chained to the one being read). One page a query: a few pages' worth
      // of blocks on (`stretch`), the new partition again taking all beyond, or halves where the range
      // holds less. Halving a hot range's cursor cut the quiet blocks beyond it again and again, one
      // short page each.
      const mid = left === undefined
        ? 0
        : pagesPerQuery > 1
        ? left.from - 1
        : left.from + Math.min(Math.floor(left.width / 2), Math.max(1, Math.ceil((stretch * rowsPerCall) / left.density))) - 1
      if (best === undefined || left === undefined || !BlockCursor.lower(best.bound, mid)) {
        yield* handle.close
        yield* spill.remove(handle.name)
        return undefined
      }
      // The new range may be cut again before its first page only when the range it came from read a
      // page of its own: the estimate then rests on rows read, not on an estimate (a burst's density,
      // handed down from cut to cut, split the burst into dozens of ranges of a few short pages each).
      const part = makePart(mid + 1, oldEnd, handle, best.read > 0, left.cautious)
      // The pages it asks together before its first answer: no more than the density of every block
      // read so far says (a range cut beyond a burst, expected as dense as the burst, asked four pages
      // together and got none; past the first page, its own rows say how many more).
      part.bound.expected = Math.min(left.cautious, densityRead() ?? left.cautious) * (oldEnd - mid)
      part.bound.ahead = best.bound.ahead ?? 0
      parts.splice(parts.indexOf(best) + 1, 0, part)
      return part
    })

    /** Appends the spills of the partitions after a finished head, in order; the next one becomes the head. */
    const advance = Effect.gen(function*() {
      while (parts.length > 0 && parts[0]?.state === "done") {
        parts.shift()
        const next = parts[0]
        if (next === undefined) break
        // Merged and counted together, as a batch is.
        yield* next.lock.withPermits(1)(mainLock.withPermits(1)(Effect.uninterruptible(Effect.gen(function*() {
          const handle = next.spill
          if (handle !== undefined) {
            yield* handle.flush
            yield* main.appendSpill(handle)
            at.rows += next.rows
            at.undecodedRows += next.undecoded
            at.bytes = main.bytes()
            // A checkpoint whose snapshot was taken before this merge still counts these rows in the
            // spill (removed only after the next checkpoint): synced here, as that checkpoint would
            // have, since it finds the spill closed (`commitOnce`).
            yield* handle.sync
            next.spill = undefined
            yield* handle.close
            retired.push(handle.name)
          }
          at.completeThrough = Math.max(at.completeThrough, next.completeThrough)
        }))))
        options.onProgress(view())
        yield* Queue.offer(dirty, undefined)
      }
    })

    const commitOnce = Effect.gen(function*() {
      // Taken at once, between two writes to the main (its lock held), and marked there: every position
      // was counted at a batch boundary.
      const snapshot: Snapshot = yield* mainLock.withPermits(1)(Effect.sync(() => takeSnapshot()))
      const spills = parts.flatMap((p) => (p.spill === undefined ? [] : [[p, p.spill] as const]))
      const gone = retired.splice(0)
      // A spill merged (and closed) since the snapshot was synced by the merge (`advance`).
      for (const [p, handle] of spills) yield* p.lock.withPermits(1)(Effect.suspend(() => (p.spill === handle ? handle.sync : Effect.void)))
      const marked = yield* mainLock.withPermits(1)(main.sync)
      yield* options.commit(snapshot, marked)
      for (const name of gone) yield* spill.remove(name)
    })

    const takeSnapshot = (): Snapshot => {
      main.mark()
      return {
        main: { ...at },
        partitions: parts.flatMap((p) =>
          p.spill === undefined ? [] : [{
            fromBlock: p.fromBlock,
            toBlock: p.bound.end,
            completeThrough: p.completeThrough,
            spoolFile: p.spill.name,
            spoolBytes: p.spillLength,
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

    /** Requests the key's readers should have in flight, all of them together. */
    const requests = () =>
      shared.latency === undefined || options.parallel === undefined
        ? 1
        : Partitions.concurrencyFor({ callsPerSecond: options.parallel.callsPerSecond, latencyMs: shared.latency })
    /**
     * Pages of its query each partition may ask ahead (see `BlockCursor.Bound.ahead`): the whole window
     * once the latency is known. Pages asked past the end of the rows are given up when a short page
     * says so; most are then still waiting at the limiter, where giving up costs nothing.
     */
    const pace = () => {
      // `concurrency: 1` is one cursor asking one page after another.
      const ahead = cap === 1 ? 0 : pagesPerQuery - 1
      for (const p of parts) p.bound.ahead = ahead
    }
    /**
     * Requests this reader's cursors have sent or queued at the limiter, not yet answered, pages asked
     * on a guess included: they take slots too, and a reader whose pages fill the limiter needs no new
     * partition, whose cut costs a short page (counting them, virtual-time bench, 6 draws of 2 s and
     * 5 s exports: mean 0.743 -> 0.750, nearWindow professional 5 s +0.05; at 30 s no export cell
     * worse, bursty and nearWindow professional +0.06 and +0.08; worse: hot professional 2 s -0.03).
     */
    const outstanding = () => {
      let n = 0
      for (const p of parts) if (p.state === "running") n += p.bound.inFlight ?? 0
      return n
    }
    /**
     * Whether to start another partition: one page a query, while the key's readers read fewer than the
     * target; several, while this reader's requests out are fewer than the limiter wants.
     */
    const wantsMore = () =>
      pagesPerQuery > 1
        ? outstanding() < requests() && shared.running < Math.min(requests(), Partitions.cpuCapOf(shared))
        : shared.running < Math.min(requests(), Partitions.cpuCapOf(shared))

    yield* Effect.scoped(Effect.gen(function*() {
      yield* Effect.forkScoped(Effect.catchAll(committer, (e) => Deferred.fail(failed, e)))
      const start = (part: Part<H>) => {
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
        // Every reader reads at least one partition; more while the key's readers together read fewer
        // than the target and than the process's CPU keeps up with, and this one fewer than its cap (the
        // user's, or what its memory allows).
        pace()
        while (running === 0 || (wantsMore() && running < cap)) {
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
      // a resume continues from there.
      Effect.onError(() => Effect.ignore(commitOnce))
    )
    return { bytes: at.bytes, rows: at.rows, completeThrough: at.completeThrough, undecodedRows: at.undecodedRows }
  })

/** What {@link rowsInOrder} needs: the range, how a partition reads, and the limits. */
export interface InOrderOptions<A, E, R, ES = never, RS = never> {
  readonly range: BlockRange
  /** The batches of a partition's range, honouring `bound` (see `Options.read`). */
  readonly read: (
    range: BlockRange,
    bound: BlockCursor.Bound,
    onAnswer: (millis: number) => void
  ) => Stream.Stream<BlockBatch<A>, E, R>
  readonly parallel: Options<E, R, never, never, void, never>["parallel"]
  /** At most this many partitions at once (1: one cursor; default: as many as the latency calls for). */
  readonly concurrency?: number | undefined
  /**
   * Rows the partitions ahead of the head may hold in memory (default: twenty pages, at least 20,000
   * rows): past it they wait, until the reader has taken the rows in its turn. Spills that hold no rows
   * in memory (`SpillHandle.held`) never make them wait.
   */
  readonly heldRows?: number | undefined
  /**
   * Where rows read ahead of their turn wait (default: memory, see `heldRows`): made once, in the
   * Stream's scope, before the first request (a spill that cannot be made fails the Stream then).
   */
  readonly spill?: Effect.Effect<RowSpills<ES, RS>, ES, RS | Scope.Scope> | undefined
  /** Told after every batch (`View.completeThrough`: every row up to it has been handed over). */
  readonly onProgress?: ((view: View) => void) | undefined
  /**
   * When present, the range's last block is only known once this completes (the chain's head, asked
   * together with the first page, which asks up to `range.toBlock` meanwhile; see `Options.until`).
   */
  readonly until?: Effect.Effect<number, E, R> | undefined
}

/** Rows read ahead of their turn by a Stream, read back once in the order written when their turn comes. */
export interface RowSpill<ES> extends SpillHandle<ES> {
  /** Its rows, in the order written (once: what is read is given up). */
  readonly rows: Stream.Stream<ReadonlyArray<unknown>, ES>
}

/** Makes and removes the spills of one Stream (see `InOrderOptions.spill`). */
export interface RowSpills<ES, RS> {
  readonly create: Effect.Effect<RowSpill<ES>, ES, RS>
  readonly remove: (name: string) => Effect.Effect<void, never, RS>
}

/** Rows read ahead of their turn by a Stream: held in memory, in their batches. */
const memorySpill = (name: string): RowSpill<never> => {
  let batches: Array<ReadonlyArray<unknown>> = []
  let rows = 0
  return {
    name,
    write: (batch) =>
      Effect.sync(() => {
        batches.push(batch)
        rows += batch.length
      }),
    length: () => rows,
    held: () => rows,
    flush: Effect.void,
    sync: Effect.void,
    close: Effect.sync(() => {
      batches = []
      rows = 0
    }),
    rows: Stream.suspend(() => {
      const out = batches
      batches = []
      rows = 0
      return Stream.fromIterable(out)
    })
  }
}

/** The default spills of a Stream: in memory. */
const memorySpills = (): RowSpills<never, never> => {
  let made = 0
  return { create: Effect.sync(() => memorySpill(`m${++made}`)), remove: () => Effect.void }
}

/**
 * The rows of a range read by the scheduler (partitions, pages of one query at once), as a Stream in
 * exactly the order one cursor reads them: what `Streams.*` read. Rows read ahead of their turn wait in
 * `spill`: by default in memory, at most `heldRows` of them; the head's rows go to the Stream as they
 * come, back-pressured (the head waits for the reader; the others then fill their share of memory and
 * wait too, unless their spill holds its rows elsewhere).
 */
export const rowsInOrder = <A, E, R, ES = never, RS = never>(
  options: InOrderOptions<A, E, R, ES, RS>
): Stream.Stream<A, E | ES, R | RS> =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const queue = yield* Effect.acquireRelease(Queue.bounded<Take.Take<A, E | ES>>(4), Queue.shutdown)
    const spills: RowSpills<ES, RS> = options.spill === undefined ? memorySpills() : yield* options.spill
    let written = 0
    const offer = (rows: ReadonlyArray<unknown>) =>
      rows.length === 0
        ? Effect.void
        : Effect.sync(() => void (written += rows.length)).pipe(
          Effect.zipRight(Queue.offer(queue, Take.chunk(Chunk.unsafeFromArray(rows as Array<A>))))
        )
    const rowsPerCall = options.parallel?.rowsPerCall ?? 1
    const main: Main<RowSpill<ES>, ES, void, RS> = {
      bytes: () => written,
      write: offer,
      appendSpill: (spill) => Stream.runForEach(spill.rows, offer),
      mark: () => {},
      sync: Effect.void
    }
    const readTo = (toBlock: number, until: Effect.Effect<number, E, R> | undefined): Effect.Effect<Position, E | ES, R | RS> =>
      run<E, R, RowSpill<ES>, ES, void, RS>({
        main,
        spill: {
          create: spills.create,
          reopen: () => Effect.map(spills.create, (handle) => ({ handle, intact: false })),
          remove: spills.remove
        },
        at: { rows: 0, completeThrough: options.range.fromBlock - 1 },
        toBlock,
        until,
        resumed: [],
        read: options.read,
        parallel: options.parallel,
        concurrency: options.concurrency,
        heldRows: options.heldRows ?? Math.max(20 * rowsPerCall, 20_000),
        checkpointEvery: 1_000,
        commit: () => Effect.void,
        onProgress: options.onProgress ?? (() => {})
      }).pipe(
        Effect.scoped,
        // The end known only now is before the first block: nothing was handed over; read to it (without
        // `until` the end never moves).
        Effect.catchIf((e): e is EndMoved => e instanceof EndMoved, (moved) =>
          until === undefined ? Effect.die(moved) : readTo(moved.toBlock, undefined))
      )
    const reading = readTo(options.range.toBlock, options.until).pipe(
      Effect.exit,
      Effect.flatMap((exit) =>
        Queue.offer(queue, Exit.isSuccess(exit) ? Take.end : Take.failCause(exit.cause))
      )
    )
    yield* Effect.forkScoped(reading)
    return Stream.flattenTake(Stream.fromQueue(queue))
  }))

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
