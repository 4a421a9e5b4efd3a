/**
 * Groundwork of partitioned exports (issue 14): how a block range splits into disjoint partitions, and
 * how many requests to keep in flight for a key's rate and a measured latency (Little's law). Pure
 * functions, used by partitioned exports (`sinks/Partitioned.ts`).
 *
 * @example
 * Partitions.split({ fromBlock: 0, toBlock: 99 }, 4)
 * // [{ fromBlock: 0, toBlock: 24 }, { fromBlock: 25, toBlock: 49 }, { fromBlock: 50, toBlock: 74 }, { fromBlock: 75, toBlock: 99 }]
 * Partitions.concurrencyFor({ callsPerSecond: 10, latencyMs: 450 }) // ceil(10 × 0.45 × 1.5) = 7
 */

/** An inclusive block range. */
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
 * What the partitioned exports of one key share: the partitions being read by all of them and the
 * latency they measure, so exports running at once (a pipeline's targets, merged streams) size their
 * requests in flight together, not each for the whole rate.
 */
export interface Pool {
  running: number
  latency: number | undefined
}

/** A pool with nothing running. */
export const pool = (): Pool => ({ running: 0, latency: undefined })
