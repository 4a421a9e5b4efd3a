/**
 * The block-cursor paging engine shared by every block-ordered data set (logs, transactions,
 * internal transactions, token transfers).
 *
 * Why not page++: the API refuses pages past its result window (page × offset ≤ 1,000 or 10,000),
 * and a page can end in the middle of a block. The engine therefore always asks for ascending order
 * with offset = the plan's per-request cap and moves a block cursor:
 *
 * - a short page (fewer rows than the cap) ends the (sub-)range: every row is emitted;
 * - a full page whose last block L is past the cursor: the rows of blocks before L are emitted, the
 *   rows of L are dropped, and the next request restarts at L, so L is read whole by one request;
 * - a full page made only of the cursor's own block (a block denser than a page): the engine pages
 *   inside that block (page 2, 3, …) while the window allows, and fails with `DenseBlockError` naming
 *   the block when even the window cannot prove it read the block whole — never truncating silently;
 * - "Query Timeout" answers split the block range in halves; after each finished sub-range the span
 *   doubles again (re-widening after sparse pages). A range of one block cannot be split: its request
 *   says so (`retryQueryTimeout: true`) and the fetch retries a timeout with the client's transient
 *   retry policy; only when that is exhausted does the stream fail with `QueryTimeoutError`.
 *
 * De-duplicating on a key is no substitute: token-transfer rows have no log index, a transaction can
 * hold identical twin transfers, and internal transactions share their parent's hash.
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { DecodeError, DenseBlockError, type QueryTimeoutError, type StreamError } from "../../ExplorerError.js"
import * as Progress from "../Progress.js"

/**
 * One request of the engine: an ascending block range and a page of it.
 *
 * @since 0.1.0
 * @category models
 */
export interface BlockPageRequest {
  readonly fromBlock: number
  readonly toBlock: number
  readonly page: number
  readonly offset: number
  /**
   * Whether the fetch should retry "Query Timeout" answers itself (e.g. the client's
   * `{ retryQueryTimeout }` call option): true when the engine cannot split the range any further
   * (one block) or does not split at all (`splitOnTimeout: false`), false otherwise.
   */
  readonly retryQueryTimeout: boolean
  /**
   * How urgent the request is at the key's limiter (a `Throttle.Priority`): absent (level 0) for the
   * page the cursor waits for; {@link aheadLevel} for pages the rows read say the query holds;
   * {@link guessLevel} for pages asked on a guess. Lowered to 0 in place once the cursor waits for it.
   */
  readonly priority?: { level: number } | undefined
}

/**
 * The limiter level of a page asked ahead that the rows read so far say the query holds.
 *
 * @since 0.1.0
 * @category constants
 */
export const aheadLevel = 1

/**
 * The limiter level of a page asked on a guess: before the range has answered (its first window), or
 * past what the query's rows say (the density of the last page only): it goes in a slot no other page
 * wants.
 *
 * @since 0.1.0
 * @category constants
 */
export const guessLevel = 2

/**
 * A batch of rows the engine emits: every row with a block ≤ `completeThrough` has now been emitted.
 *
 * @since 0.1.0
 * @category models
 */
export interface BlockBatch<A> {
  readonly rows: ReadonlyArray<A>
  readonly completeThrough: number
  /** The block of the first row, when the batch has rows and the engine knows it (progress uses it). */
  readonly firstBlock?: number | undefined
  /**
   * Decoded events (`Sources.events`): how many of `rows` the ABI could not decode. Exports add them
   * up through checkpoints and partitions for the manifest's `undecodedRows`.
   */
  readonly undecodedRows?: number | undefined
}

/**
 * The end of a range being read, which a partitioned export may lower while the engine runs (it
 * hands the upper part of the range to another cursor). The engine never emits a row past `end`, ends
 * once it has emitted every row up to it, and records in `claimed` the last block whose rows it has
 * already taken to emit: `end` may only be lowered to a block ≥ `claimed` (see {@link lower}).
 *
 * @since 0.1.0
 * @category models
 */
export interface Bound {
  end: number
  claimed: number
  /**
   * Pages of the query being read that may be on the wire beyond the one the cursor waits for (default
   * 0: one page after another). Pages 1..window/offset of one query are independent requests: once a
   * full page says the query goes on, the cursor asks the next ones at once, as many as this allows and
   * the rows expected in the rest of the range call for (see {@link pagesExpected}). Whoever runs the
   * cursor may change it while it runs.
   */
  ahead?: number
  /** Rows expected in the range before anything is read (the density of the range it was cut from). */
  expected?: number
  /**
   * Milliseconds the first page may take before the pages after it are asked anyway (`expected` rows
   * unknown, the range wide): against a distant server the window's pages go while the first one is on
   * the wire, instead of a round trip later; a server that answers sooner (one short page) costs none
   * of them. Undefined: pages after the first wait for its answer (unless `expected` says otherwise).
   */
  patience?: number
  /** Pages asked when `patience` runs out, the first one included (default: the window `ahead` allows). */
  patiencePages?: number
  /**
   * Run once, when the first page has answered and before its rows are cut: where the range's last
   * block is asked together with the first page (the chain's head), the scheduler lowers `end` to it
   * here. The page's rows up to that block are complete whatever end it was asked with (a short page
   * holds every row of its range, a full one every row before its last block).
   */
  settle?: Effect.Effect<void>
  /** Requests of this cursor sent or waiting at the limiter, not yet answered. */
  inFlight?: number
  /** Of `inFlight`, the pages asked on a guess ({@link guessLevel}): they fill slots, they need none. */
  guesses?: number
  /**
   * Pages of its result window the cursor's current query may still return after the last one read
   * (a cut falls beyond the blocks they are expected to cover).
   */
  pagesLeft?: number
  /**
   * Rows per block of the last page read (its rows over the blocks from its first row to its last, or
   * to the end of the range a short page exhausted): where the rows are now, as a scheduler estimates
   * the blocks its next pages cover. Undefined before the first page.
   */
  density?: number
}

/**
 * The end a range asks for while its last block is not known yet (the chain's head is asked together
 * with the first page; see `Bound.settle`): the end block the explorer's own documentation pre-fills.
 *
 * @since 0.1.0
 * @category constants
 */
export const openEnd = 9_999_999_999

/**
 * A bound for a range ending at `end`, nothing claimed before `fromBlock`.
 *
 * @since 0.1.0
 * @category utils
 */
export const bound = (fromBlock: number, end: number): Bound => ({ end, claimed: fromBlock - 1 })

/**
 * Pages of a query still expected after its page `page`, when every page so far was full (`cap` rows),
 * its first row was in block `first` and the last one in block `last`: the rows read over the blocks
 * they spanned, times the blocks left to `end`, in pages (rounded up: the last page of a query may be
 * short), at least one (the rows of `last` may go on).
 *
 * @example
 * BlockCursor.pagesExpected({ first: 100, last: 200, page: 1, cap: 1_000, end: 400 }) // 1,000 rows a 100 blocks → 2 more pages
 * BlockCursor.pagesExpected({ first: 100, last: 100, page: 2, cap: 1_000, end: 400 }) // one block so far → 1
 *
 * @since 0.1.0
 * @category utils
 */
export const pagesExpected = (q: {
  readonly first: number
  readonly last: number
  readonly page: number
  readonly cap: number
  readonly end: number
}): number => {
  // Rows of the last block may go on in the next page: the density is that of the blocks before it.
  // All of them in one block (denser than a page): it says nothing of the blocks after, one page more.
  if (q.last <= q.first) return 1
  const density = (q.page * q.cap) / (q.last - q.first)
  return Math.max(1, Math.ceil((density * Math.max(0, q.end - q.last)) / q.cap))
}

/**
 * Lowers a bound to `end` if the engine has not taken rows past it: true when lowered. Synchronous:
 * the engine reads the bound and claims blocks without yielding in between, so the two never race.
 *
 * @since 0.1.0
 * @category utils
 */
export const lower = (b: Bound, end: number): boolean => {
  if (end < b.claimed || end >= b.end) return false
  b.end = end
  return true
}

/**
 * What the engine needs to page one block-ordered query.
 *
 * @since 0.1.0
 * @category models
 */
export interface BlockCursorOptions<A, E> {
  readonly chainId: number
  readonly module: string
  readonly action: string
  readonly fromBlock: number
  /** The last block of the query (`latest` already resolved). */
  readonly toBlock: number
  /** Rows one request returns at most: a page holding this many rows is "full". */
  readonly rowsPerRequest: number
  /** The result window: the largest page × offset the plan allows. */
  readonly window: number
  /**
   * Where the window is not settled (the free plan's, which the facts leave open): when the window is
   * used up inside one block, asks the server for the next page before declaring the block too dense,
   * and gives the window the server settled, with the page's rows when it served it (they are that
   * page: not asked again). Without it, `window` is final.
   */
  readonly learnWindow?: ((request: BlockPageRequest) => Effect.Effect<LearnedWindow<A>, E>) | undefined
  readonly blockOf: (row: A) => number
  /**
   * One request, ascending order. Retries query timeouts itself only when the request says so
   * (`request.retryQueryTimeout`): otherwise the engine splits the range.
   */
  readonly fetch: (request: BlockPageRequest) => Effect.Effect<ReadonlyArray<A>, E>
  /** Split the block range on `QueryTimeoutError` (default true). */
  readonly splitOnTimeout?: boolean
  readonly progress?: Progress.ProgressRef | undefined
  /** The range's end as a partitioned export may lower it (default: `toBlock`, fixed). */
  readonly bound?: Bound | undefined
}

/**
 * What the server said of the window when asked past it: the window it settled, and the rows of the
 * page asked if it served it.
 *
 * @since 0.1.0
 * @category models
 */
export interface LearnedWindow<A> {
  readonly window: number
  /** Whether a request was sent for it (false: the window was settled already, by an earlier probe). */
  readonly asked: boolean
  readonly rows?: ReadonlyArray<A> | undefined
}

/** A page asked ahead: its urgency at the limiter, and whether it is still counted as a guess. */
interface Ask {
  readonly priority: { level: number }
  guess: boolean
}

interface State<A> {
  /** Every row of blocks before `cursor` has been emitted. */
  readonly cursor: number
  /** Last block of the current sub-range (narrower than the query after a query timeout). */
  readonly subEnd: number
  /** Width of the sub-range to use after the current one finishes. */
  readonly span: number
  readonly page: number
  /** Rows of block `cursor` read by earlier pages of the current request (dense-block mode). */
  readonly carry: ReadonlyArray<A>
  /** The block of the query's first row, once a page of it is read (its density is measured from there). */
  readonly firstRow?: number | undefined
}

const isQueryTimeout = (e: unknown): e is QueryTimeoutError =>
  typeof e === "object" && e !== null && "_tag" in e && e._tag === "QueryTimeoutError"

/**
 * The engine as a stream of batches, each ending on a complete block: what sinks need to checkpoint
 * exactly (`completeThrough` advances through empty stretches too).
 *
 * @since 0.1.0
 * @category streams
 */
export const batches = <A, E>(options: BlockCursorOptions<A, E>): Stream.Stream<BlockBatch<A>, E | StreamError> => {
  const { rowsPerRequest: cap, blockOf } = options
  let window = options.window
  const where = { chainId: options.chainId, module: options.module, action: options.action }
  const splitOnTimeout = options.splitOnTimeout ?? true
  const total = options.toBlock - options.fromBlock + 1

  const tick = (f: (p: Progress.Progress) => Progress.Progress) => Progress.update(options.progress, f)

  // Fetch one page, halving the sub-range on query timeouts down to a single block, whose request
  // asks the fetch to retry a timeout instead (splitting cannot help there).
  const request = (state: State<A>, priority?: { level: number }): BlockPageRequest => ({
    fromBlock: state.cursor,
    toBlock: state.subEnd,
    page: state.page,
    offset: cap,
    retryQueryTimeout: !splitOnTimeout || state.subEnd <= state.cursor,
    ...(priority === undefined ? {} : { priority })
  })
  // One request, counted in `progress` once answered (a page asked ahead and given up while it waited
  // at the limiter was never sent), and in `Bound.inFlight` while it is out.
  const send = (state: State<A>, priority?: { level: number }): Effect.Effect<ReadonlyArray<A>, E> =>
    Effect.sync(() => void (limit.inFlight = (limit.inFlight ?? 0) + 1)).pipe(
      Effect.zipRight(options.fetch(request(state, priority))),
      Effect.onExit((exit) => Exit.isInterrupted(exit) ? Effect.void : tick((p) => ({ ...p, calls: p.calls + 1 }))),
      Effect.ensuring(Effect.sync(() => void (limit.inFlight = (limit.inFlight ?? 1) - 1)))
    )
  const fetchPage = (state: State<A>): Effect.Effect<readonly [ReadonlyArray<A>, State<A>], E | StreamError> =>
    Effect.suspend(() => {
      // A page asked ahead (same query start, same page) is that page: a narrower end since (a cut, a
      // query timeout) only drops rows past it, and the page keeps the end it was asked with.
      const early = ahead.get(state.page)
      if (early !== undefined && early.cursor === state.cursor) {
        ahead.delete(state.page)
        // The cursor waits for it now: the most urgent of its key's calls.
        relevel(early.ask, 0)
        return Effect.map(Fiber.join(early.fiber), (rows) => [rows, { ...state, subEnd: Math.max(state.subEnd, early.subEnd) }] as const).pipe(
          // A page asked ahead that timed out is asked again as the engine splits it.
          Effect.catchIf((e): e is E & QueryTimeoutError => splitOnTimeout && isQueryTimeout(e) && state.subEnd > state.cursor,
            () => fetchFresh(state))
        )
      }
      return fetchFresh(state)
    })
  const fetchFresh = (state: State<A>): Effect.Effect<readonly [ReadonlyArray<A>, State<A>], E | StreamError> =>
    send(state).pipe(
      Effect.map((rows) => [rows, state] as const),
      Effect.catchIf(
        (e): e is E & QueryTimeoutError => splitOnTimeout && isQueryTimeout(e) && state.subEnd > state.cursor,
        () => {
          // Paging on past the cursor's block (a later block's rows carried): a narrower range is
          // another query whose pages do not continue these, so start again at the carried block.
          const carried = state.carry.length === 0 ? state.cursor : blockOf(state.carry[0] as A)
          if (carried > state.cursor) return fetchFresh({ ...state, cursor: carried, page: 1, carry: [] })
          const half = Math.max(1, Math.floor((state.subEnd - state.cursor + 1) / 2))
          return fetchFresh({ ...state, subEnd: state.cursor + half - 1, span: half })
        }
      )
    )

  const checkOrder = (rows: ReadonlyArray<A>, state: State<A>): Effect.Effect<void, DecodeError> => {
    let previous = state.cursor
    for (const row of rows) {
      const block = blockOf(row)
      if (block < previous || block > state.subEnd) {
        return new DecodeError({
          ...where,
          transient: false,
          detail: `the answer for blocks ${state.cursor}..${state.subEnd} holds block ${block} out of order or range`
        })
      }
      previous = block
    }
    return Effect.void
  }

  const limit = options.bound ?? bound(options.fromBlock, options.toBlock)
  // Pages asked ahead (see `Bound.ahead`), by page number, with the query start and end they were asked
  // with; forked in the stream's scope, so they end with it.
  const ahead = new Map<number, {
    readonly cursor: number
    readonly subEnd: number
    readonly fiber: Fiber.Fiber<ReadonlyArray<A>, E>
    readonly ask: Ask
  }>()
  /** A page asked ahead is a guess (counted in `Bound.guesses`) until it is answered or found needed. */
  const settleGuess = (ask: Ask) => {
    if (!ask.guess) return
    ask.guess = false
    limit.guesses = Math.max(0, (limit.guesses ?? 1) - 1)
  }
  const relevel = (ask: Ask, level: number) => {
    if (level < ask.priority.level) ask.priority.level = level
    if (level < guessLevel) settleGuess(ask)
  }
  let aheadScope: Scope.Scope | undefined
  let pagesInWindow = Math.max(1, Math.floor(window / cap))
  /**
   * The window is used up inside the cursor's block: before that block is declared too dense, the
   * server is asked for the next page (`learnWindow`); a wider window it settles is paged on, the page
   * it served kept as if asked ahead.
   */
  const learnWindow = options.learnWindow
  const widen = (at: State<A>, end: number): Effect.Effect<void, E> =>
    learnWindow === undefined ? Effect.void : Effect.gen(function*() {
      const next: State<A> = { ...at, subEnd: Math.min(at.subEnd, end), page: at.page + 1 }
      const learned = yield* learnWindow(request(next))
      if (learned.asked) yield* tick((p) => ({ ...p, calls: p.calls + 1 }))
      if (learned.window <= window) return
      window = learned.window
      pagesInWindow = Math.max(1, Math.floor(window / cap))
      if (learned.rows !== undefined) {
        ahead.set(next.page, { cursor: next.cursor, subEnd: next.subEnd, fiber: Fiber.succeed(learned.rows), ask: { priority: { level: 0 }, guess: false } })
      }
    })
  /**
   * Pages `state.page`..`lastPage` of the state's query on the wire (those not there yet), after
   * `delay` ms (given up, unsent, if the query ends before), at the limiter's `level` (pages already
   * asked at a higher level are raised to it).
   */
  const askAhead = (state: State<A>, lastPage: number, delay = 0, level: number = aheadLevel): Effect.Effect<void> =>
    Effect.suspend(() => {
      const scope = aheadScope
      if (scope === undefined) return Effect.void
      const pages: Array<number> = []
      for (let page = state.page; page <= Math.min(lastPage, pagesInWindow); page++) {
        const held = ahead.get(page)
        if (held === undefined || held.cursor !== state.cursor) pages.push(page)
        else relevel(held.ask, level)
      }
      // Delayed pages wake a millisecond apart, so they reach the limiter in page order (the last
      // ones, given up first when the query ends, are sent last).
      return Effect.forEach(pages, (page, i) => {
        const ask: Ask = { priority: { level }, guess: level >= guessLevel }
        if (ask.guess) limit.guesses = (limit.guesses ?? 0) + 1
        const asked = send({ ...state, page }, ask.priority).pipe(Effect.ensuring(Effect.sync(() => settleGuess(ask))))
        return Effect.map(Effect.forkIn(delay > 0 ? Effect.zipRight(Effect.raceFirst(Effect.sleep(delay + i), Deferred.await(go)), asked) : asked, scope), (fiber) =>
          void ahead.set(page, { cursor: state.cursor, subEnd: state.subEnd, fiber, ask }))
      }, { discard: true })
    })
  /** Opened once a full page says the query goes on: pages waiting for `patience` go at once. */
  const go = Deferred.unsafeMake<void>(FiberId.none)
  /** The query ended (or started again elsewhere): pages asked ahead for it are given up. */
  const dropAhead = Effect.suspend(() => {
    if (ahead.size === 0) return Effect.void
    const fibers = [...ahead.values()].map((held) => held.fiber)
    ahead.clear()
    return Fiber.interruptAll(fibers)
  })
  // A bounded engine is one partition of an export: the export keeps the block position of the whole.
  const blockFields = options.bound === undefined
  const done: readonly [Chunk.Chunk<BlockBatch<A>>, Option.Option<State<A>>] = [Chunk.empty(), Option.none()]

  const step = (
    state: State<A>
  ): Effect.Effect<readonly [Chunk.Chunk<BlockBatch<A>>, Option.Option<State<A>>], E | StreamError> =>
    Effect.gen(function*() {
      // The end may have been lowered since the last page: ask no further than it.
      if (state.cursor > limit.end) return done
      // A range expected to hold several pages (the density of the range it was cut from) asks them
      // together from the start, as many as `ahead` allows.
      if (state.page === 1 && state.cursor === options.fromBlock && ahead.size === 0 && (limit.ahead ?? 0) > 0) {
        if (limit.expected !== undefined && limit.expected > cap) {
          yield* askAhead(state, Math.min(1 + (limit.ahead ?? 0), Math.ceil(limit.expected / cap)), 0, guessLevel)
        } else if (limit.expected === undefined && limit.patience !== undefined) {
          // Nothing known of the range: the pages after the first go if it has not answered by then.
          yield* askAhead({ ...state, page: 2 }, Math.min(1 + (limit.ahead ?? 0), limit.patiencePages ?? Number.POSITIVE_INFINITY), limit.patience, guessLevel)
        }
      }
      const [rows, at] = yield* fetchPage(state.subEnd > limit.end ? { ...state, subEnd: limit.end } : state)
      yield* checkOrder(rows, at)
      const settling = limit.settle
      if (settling !== undefined) {
        delete limit.settle
        yield* settling
      }
      // From here to the batch nothing yields: the end read now is the one the rows are cut at, and
      // the blocks claimed are recorded before anyone can lower the end again.
      const end = limit.end
      const read = at.carry.length === 0 ? rows : [...at.carry, ...rows]
      const upTo = (last: number) => read.length === 0 || blockOf(read[read.length - 1] as A) <= last
        ? read
        : read.filter((row) => blockOf(row) <= last)
      let emit: ReadonlyArray<A>
      let completeThrough: number
      let next: Option.Option<State<A>>
      // Pages expected of the query the next state starts, when a used-up window starts one.
      let restart = 0
      if (rows.length < cap) {
        // The sub-range is exhausted: everything read is complete (up to the end, if it was lowered
        // while the page was on the wire).
        completeThrough = Math.min(at.subEnd, end)
        emit = upTo(completeThrough)
        if (completeThrough >= end) {
          next = Option.none()
        } else {
          const span = Math.min(at.span * 2, total)
          const cursor = completeThrough + 1
          next = Option.some({ cursor, subEnd: Math.min(end, cursor + span - 1), span, page: 1, carry: [] })
        }
      } else {
        // A full page holds `cap` ≥ 1 rows, so the last one exists.
        const last = blockOf(rows[rows.length - 1] as A)
        if (last <= end && last <= at.cursor && (at.page + 1) * cap > window) yield* widen(at, end)
        if (last > end) {
          // The end was lowered to before the page's last block: every row up to it is in the page.
          emit = upTo(end)
          completeThrough = end
          next = Option.none()
        } else if ((at.page + 1) * cap <= window) {
          // The window holds another page of this query: ask for it rather than start again at the
          // last block, so no row is read twice. The rows of the last block may go on there: they
          // are carried, and that block is claimed (a cut may not take it from this cursor).
          completeThrough = last - 1
          emit = upTo(completeThrough)
          const following: State<A> = {
            cursor: at.cursor,
            subEnd: Math.min(at.subEnd, end),
            span: at.span,
            page: at.page + 1,
            carry: emit.length === read.length ? [] : read.slice(emit.length),
            firstRow: at.firstRow ?? blockOf(read[0] as A)
          }
          next = Option.some(following)
          limit.claimed = Math.max(limit.claimed, last)
          yield* Deferred.succeed(go, undefined)
          // The next pages of this query, while it is expected to go on (see `Bound.ahead`).
          const depth = limit.ahead ?? 0
          if (depth > 0) {
            const to = Math.min(at.subEnd, end)
            const expected = pagesExpected({ first: following.firstRow ?? at.cursor, last, page: at.page, cap, end: to })
            yield* askAhead(following, at.page + Math.min(depth + 1, expected))
            // Where the rows are now (this page's density) says more: those go as guesses, in slots no
            // needed page takes (a burst reached after a quiet stretch is read a window at a time, not a
            // page a round trip).
            const here = pagesExpected({ first: blockOf(rows[0] as A), last, page: 1, cap, end: to })
            if (here > expected) yield* askAhead(following, at.page + Math.min(depth + 1, here), 0, guessLevel)
          }
        } else if (last > at.cursor) {
          // The window is used up: start again at the last block, whose rows are dropped and read
          // whole by the next request.
          emit = upTo(last - 1)
          completeThrough = last - 1
          next = Option.some({ cursor: last, subEnd: Math.min(at.subEnd, end), span: at.span, page: 1, carry: [] })
          // The next query's pages together from its start, as many as the window's density says the
          // rest of the range holds (asked one by one, each window would cost a round trip).
          restart = pagesExpected({ first: at.firstRow ?? blockOf(read[0] as A), last, page: at.page, cap, end: Math.min(at.subEnd, end) })
        } else {
          // The whole window is the cursor's block: it cannot be proven complete.
          return yield* new DenseBlockError({
            ...where,
            blockNumber: at.cursor,
            rowsSeen: read.length,
            detail: `paging stopped at the result window of ${window} rows (page × offset); ` +
              `the block cannot be proven complete, so the export stops rather than drop rows`
          })
        }
      }
      limit.claimed = Math.max(limit.claimed, completeThrough)
      // A full page inside one block says that block holds a page or more, nothing of the blocks after
      // it: the density stays what it was (a window of blocks of about a page each, 20 blocks apart,
      // looked a block a page dense, and the cut fell among the pages already on the wire).
      const lastRow = rows.length === 0 ? undefined : blockOf(rows[rows.length - 1] as A)
      if (rows.length === 0) limit.density = 0
      else if (rows.length < cap || lastRow !== blockOf(rows[0] as A)) {
        limit.density = rows.length / (Math.max(lastRow as number, completeThrough) - blockOf(rows[0] as A) + 1)
      }
      if (Option.isNone(next) || next.value.cursor !== at.cursor) yield* dropAhead
      if (restart > 0 && Option.isSome(next) && (limit.ahead ?? 0) > 0) {
        yield* askAhead(next.value, Math.min(1 + (limit.ahead ?? 0), restart))
      }
      limit.pagesLeft = Option.isSome(next) && next.value.cursor === at.cursor ? pagesInWindow - at.page : pagesInWindow
      yield* tick((p) => ({
        ...p,
        pages: p.pages + 1,
        rows: p.rows + emit.length,
        ...(blockFields
          ? {
            completeThrough: Math.max(p.completeThrough ?? completeThrough, completeThrough),
            completeness: Option.isNone(next) ? "complete" as const : p.completeness
          }
          : {})
      }))
      const batch: BlockBatch<A> = emit.length === 0
        ? { rows: emit, completeThrough }
        : { rows: emit, completeThrough, firstBlock: blockOf(emit[0] as A) }
      return [Chunk.of(batch), next] as const
    })

  if (options.toBlock < options.fromBlock) {
    return blockFields
      ? Stream.fromEffect(
        tick((p) => ({ ...p, fromBlock: options.fromBlock, targetBlock: options.toBlock, completeness: "complete" }))
      ).pipe(Stream.drain)
      : Stream.empty
  }
  const initial: State<A> = {
    cursor: options.fromBlock,
    subEnd: options.toBlock,
    span: total,
    page: 1,
    carry: []
  }
  const pages = Stream.unwrapScoped(Effect.map(Effect.scope, (scope) => {
    aheadScope = scope
    return Stream.paginateChunkEffect(initial, step)
  }))
  return blockFields
    ? Stream.fromEffect(
      tick((p) => ({ ...p, fromBlock: options.fromBlock, targetBlock: options.toBlock, completeThrough: options.fromBlock - 1 }))
    ).pipe(Stream.drain, Stream.concat(pages))
    : pages
}

/**
 * The engine as a stream of rows, each exactly once, in ascending block order.
 *
 * @since 0.1.0
 * @category streams
 */
export const rows = <A, E>(options: BlockCursorOptions<A, E>): Stream.Stream<A, E | StreamError> =>
  batches(options).pipe(Stream.mapConcat((batch) => batch.rows))
