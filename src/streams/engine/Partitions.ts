/**
 * Groundwork of partitioned exports (issue 14): how a block range splits into disjoint partitions, and
 * how many requests to keep in flight for a key's rate and a measured latency (Little's law). Pure
 * functions, used by the scheduler (`Scheduler.ts`) for exports and Streams alike.
 *
 * @example
 * Partitions.split({ fromBlock: 0, toBlock: 99 }, 4)
 * // [{ fromBlock: 0, toBlock: 24 }, { fromBlock: 25, toBlock: 49 }, { fromBlock: 50, toBlock: 74 }, { fromBlock: 75, toBlock: 99 }]
 * Partitions.concurrencyFor({ callsPerSecond: 10, latencyMs: 450 }) // ceil(10 × 0.45 × 1.5) = 7
 */

/**
 * A range of blocks, both ends included.
 *
 * @since 0.1.0
 * @category models
 */
export interface BlockRange {
  readonly fromBlock: number
  readonly toBlock: number
}

/**
 * `range` cut into at most `parts` disjoint, ascending, contiguous ranges of near-equal width (the
 * first ones one block wider), covering it exactly; fewer when the range holds fewer blocks.
 */
export const split = (range: BlockRange, parts: number): ReadonlyArray<BlockRange> => {
  const width = range.toBlock - range.fromBlock + 1
  if (width <= 0) return []
  const n = Math.max(1, Math.min(Math.floor(parts), width))
  const base = Math.floor(width / n)
  const extra = width % n
  const out: Array<BlockRange> = []
  let from = range.fromBlock
  for (let i = 0; i < n; i++) {
    const w = base + (i < extra ? 1 : 0)
    out.push({ fromBlock: from, toBlock: from + w - 1 })
    from += w
  }
  return out
}

/** Inputs of `concurrencyFor`. */
export interface ConcurrencyInput {
  /** The key's rate (calls/s the limiter lets through). */
  readonly callsPerSecond: number
  /** Measured latency of one call (send to answer), in milliseconds. */
  readonly latencyMs: number
  /** Multiplier over Little's law, for latency jitter (default 1.5). */
  readonly headroom?: number
  /** User cap (`--concurrency N`); default none. */
  readonly cap?: number | undefined
  /**
   * Mean time a call waited at the limiter before it was sent, in milliseconds (default 0). Calls that
   * queue there are requests the limiter cannot send yet: that many fewer are needed in flight.
   */
  readonly queuedMs?: number
}

/**
 * Requests to keep in flight so the limiter never waits for an answer and no more: Little's law,
 * in flight ≈ rate × latency, times `headroom`, at least 1, at most `cap`; shrunk by the calls that
 * wait at the limiter (rate × mean wait).
 */
export const concurrencyFor = (input: ConcurrencyInput): number => {
  const rate = Math.max(0, input.callsPerSecond)
  const latency = Math.max(0, input.latencyMs) / 1000
  const queued = Math.max(0, input.queuedMs ?? 0) / 1000
  const wanted = Math.ceil(rate * latency * (input.headroom ?? 1.5) - rate * queued)
  const cap = input.cap === undefined ? Number.POSITIVE_INFINITY : Math.max(1, Math.floor(input.cap))
  return Math.max(1, Math.min(cap, wanted))
}

/** An exponentially weighted mean of measured latencies (ms): `alpha` the weight of a new sample. */
export const ewma = (previous: number | undefined, sample: number, alpha = 0.2): number =>
  previous === undefined ? sample : previous + alpha * (sample - previous)

/**
 * What the partitioned exports of one key share: the partitions being read by all of them, the
 * latency they measure, and how many this process can feed (`cpuCap`), so exports running at once (a
 * pipeline's targets, merged streams) size their requests in flight together, not each for the whole
 * rate.
 */
export interface Pool {
  running: number
  /** Of the running partitions, those asking for pages (not paused for the CPU). */
  active: number
  latency: number | undefined
  /** Partitions this process's CPU keeps up with (see {@link nextCpuCap}); unbounded until it saturates. */
  cpuCap: number
  /** When the event loop was last sampled (ms, `performance.now()`), and its reading then. */
  sampledAt: number
  loopReading: unknown
  /** Pages the partitions have written (each export adds its own), and their count at the last sample. */
  pages: number
  pagesAtSample: number
  /** The fastest answer measured (ms): the server's distance, without the time answers wait for the CPU. */
  fastest: number | undefined
  /** Event-loop time a page took over the last sample (ms), once measured. */
  msPerPage: number | undefined
  /** When true, the CPU is not sampled and `cpuCap` stays as set (a model run in virtual time). */
  fixedCpuCap?: boolean
}

/** A pool with nothing running. */
export const pool = (): Pool => ({
  running: 0,
  active: 0,
  latency: undefined,
  cpuCap: Number.POSITIVE_INFINITY,
  sampledAt: 0,
  loopReading: undefined,
  pages: 0,
  pagesAtSample: 0,
  fastest: undefined,
  msPerPage: undefined
})

/** Event-loop utilisation at or above which the process is saturated: more partitions would only queue. */
export const saturated = 0.97

/** Below this utilisation the process has room again. */
export const roomy = 0.85

/**
 * The partitions the process can feed, after a sample of its event loop's utilisation (the share of
 * the time it ran code rather than waited for I/O) while `running` partitions were read. Saturated: a
 * fifth fewer than were running (an answer that waits for the CPU is latency Little's law would answer
 * with yet more partitions, each holding a page), but not fewer than `floor` (see {@link busyFloor});
 * roomy: half as many again, unbounded once past twice the running ones; in between, as it is.
 *
 * @example
 * Partitions.nextCpuCap(Infinity, 30, 0.99) // 24
 * Partitions.nextCpuCap(24, 20, 0.5)        // 36: roomy, grows back
 */
export const nextCpuCap = (cap: number, running: number, utilization: number, floor = 1): number => {
  if (utilization >= saturated) return Math.max(1, floor, Math.floor(Math.min(cap, running) * 0.8))
  if (utilization < roomy && Number.isFinite(cap)) {
    const grown = Math.ceil(cap * 1.5)
    return grown > 2 * Math.max(1, running) + 8 ? Number.POSITIVE_INFINITY : grown
  }
  return cap
}

interface LoopUtilization {
  readonly idle: number
  readonly active: number
  readonly utilization: number
}
type LoopClock = {
  readonly now: () => number
  readonly eventLoopUtilization?: (a?: LoopUtilization, b?: LoopUtilization) => LoopUtilization
}

/**
 * The fewest partitions that keep a saturated process busy: while one page is being processed (`busyMs`
 * of the event loop for `pages` pages), the others' requests are on the wire for a latency each, so
 * `latency ÷ time a page` of them (plus the one processed) must be out for the next answers to be there
 * when the CPU is free. Fewer, and the CPU idles a latency after every round (seen: pro-plan
 * transaction pages of 10,000 rows, 0.2 s of CPU each at 450 ms, arriving in bursts with second-long
 * gaps while the cap fell to a fifth fewer again and again).
 *
 * @example
 * Partitions.busyFloor(450, 1_000, 5) // 200 ms a page: ceil(450 / 200) + 1 = 4
 */
export const busyFloor = (latencyMs: number | undefined, busyMs: number, pages: number): number =>
  latencyMs === undefined || pages <= 0 || busyMs <= 0 ? 1 : Math.ceil(latencyMs / (busyMs / pages)) + 1

/**
 * Whether partitions should read a page ahead: when even the fastest answer takes longer than the
 * event loop spends on a page, the next request is worth sending while this page is written (it
 * arrives when the CPU is free again). Against a server that answers at once it is not: the page read
 * ahead would only wait in memory. Unknown (nothing measured yet): no.
 *
 * @example
 * Partitions.readAheadPays({ ...Partitions.pool(), fastest: 300, msPerPage: 200 }) // true: 10,000-row pages 300 ms away
 * Partitions.readAheadPays({ ...Partitions.pool(), fastest: 3, msPerPage: 14 })    // false: the simulator next door
 */
export const readAheadPays = (p: Pool): boolean =>
  p.fastest !== undefined && p.msPerPage !== undefined && p.fastest > p.msPerPage

/**
 * Samples this process's event loop for the pool, at most every `everyMs` (Node's
 * `performance.eventLoopUtilization`; where the runtime has none, nothing changes), and returns the
 * partitions the process can feed: never fewer, once saturated, than keep it busy (`busyFloor`).
 */
export const cpuCapOf = (p: Pool, everyMs = 500): number => {
  const perf = (globalThis as { readonly performance?: LoopClock }).performance
  const elu = perf?.eventLoopUtilization
  if (perf === undefined || elu === undefined || p.fixedCpuCap === true) return p.cpuCap
  const now = perf.now()
  if (p.loopReading === undefined) {
    p.loopReading = elu.call(perf)
    p.sampledAt = now
    p.pagesAtSample = p.pages
  } else if (now - p.sampledAt >= everyMs) {
    const reading = elu.call(perf)
    const since = elu.call(perf, reading, p.loopReading as LoopUtilization)
    p.loopReading = reading
    p.sampledAt = now
    const pages = p.pages - p.pagesAtSample
    if (pages > 0) p.msPerPage = since.active / pages
    const floor = busyFloor(p.latency, since.active, pages)
    p.pagesAtSample = p.pages
    p.cpuCap = nextCpuCap(p.cpuCap, p.active, since.utilization, floor)
  }
  return p.cpuCap
}
