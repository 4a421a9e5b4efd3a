/**
 * The simulator's row index: the data set's rows by block, and block-ordered selection over them (the
 * server side of paging; the library's paging engines are in `streams/`). A source is a sorted `Int32Array` of block numbers plus
 * a function from row index to row; the query engine binary-searches the block range, merges several
 * sources of one entity by (block, source order), filters, and skips/takes a page — without ever
 * touching rows outside the page (except to test a filter).
 */
import type { Log } from "./rows.js"

/** Rows of one kind, in ascending block order; `get(i)` builds row `i` (possibly on the fly). */
export interface RowSource<R> {
  readonly blocks: Int32Array
  readonly get: (i: number) => R
}

/** A log source: also answers one topic of a row without building the row (fast topic filters). */
export interface LogSource extends RowSource<Log> {
  readonly topicAt: (i: number, k: number) => string | undefined
}

/** A source over a materialised, block-sorted array. */
export const arraySource = <R>(rows: ReadonlyArray<R>, blockOf: (r: R) => number): RowSource<R> => {
  const blocks = new Int32Array(rows.length)
  for (let i = 0; i < rows.length; i++) blocks[i] = blockOf(rows[i] as R)
  return { blocks, get: (i) => rows[i] as R }
}

/** A log source over a materialised, block-sorted array of logs. */
export const arrayLogSource = (rows: ReadonlyArray<Log>): LogSource => ({
  ...arraySource(rows, (l) => l.block),
  topicAt: (i, k) => (rows[i] as Log).topics[k]
})

/** First index whose block is ≥ `block`. */
export const lowerBound = (blocks: Int32Array, block: number): number => {
  let lo = 0
  let hi = blocks.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((blocks[mid] as number) < block) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** First index whose block is > `block`. */
export const upperBound = (blocks: Int32Array, block: number): number => {
  let lo = 0
  let hi = blocks.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((blocks[mid] as number) <= block) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** What to read from a set of sources. */
export interface Selection<R> {
  readonly sources: ReadonlyArray<RowSource<R>>
  /** Inclusive block range. */
  readonly fromBlock: number
  readonly toBlock: number
  readonly desc: boolean
  /** Keep row `i` of source `s`? (undefined: keep all) */
  readonly test?: ((s: number, i: number) => boolean) | undefined
}

/**
 * Visit the selected rows in order, skipping `skip` matches and stopping after `take`; `visit` gets
 * (source index, row index). Returns the number of rows visited.
 */
export const walk = <R>(
  sel: Selection<R>,
  skip: number,
  take: number,
  visit: (s: number, i: number) => void
): number => {
  const n = sel.sources.length
  if (take <= 0 || n === 0 || sel.fromBlock > sel.toBlock) return 0
  const lo: Array<number> = []
  const hi: Array<number> = []
  for (const src of sel.sources) {
    lo.push(lowerBound(src.blocks, sel.fromBlock))
    hi.push(upperBound(src.blocks, sel.toBlock))
  }
  const test = sel.test
  // Fast path: one source, no filter: index arithmetic.
  if (n === 1 && test === undefined) {
    const a = lo[0] as number
    const b = hi[0] as number
    let visited = 0
    if (!sel.desc) {
      for (let i = a + skip; i < b && visited < take; i++, visited++) visit(0, i)
    } else {
      for (let i = b - 1 - skip; i >= a && visited < take; i--, visited++) visit(0, i)
    }
    return visited
  }
  let skipped = 0
  let visited = 0
  if (!sel.desc) {
    const pos = lo.slice()
    for (;;) {
      let best = -1
      let bestBlock = 0
      for (let s = 0; s < n; s++) {
        const p = pos[s] as number
        if (p < (hi[s] as number)) {
          const b = (sel.sources[s] as RowSource<R>).blocks[p] as number
          if (best < 0 || b < bestBlock) {
            best = s
            bestBlock = b
          }
        }
      }
      if (best < 0) return visited
      const i = pos[best] as number
      pos[best] = i + 1
      if (test !== undefined && !test(best, i)) continue
      if (skipped < skip) {
        skipped++
        continue
      }
      visit(best, i)
      if (++visited >= take) return visited
    }
  } else {
    const pos = hi.map((h) => h - 1)
    for (;;) {
      let best = -1
      let bestBlock = 0
      for (let s = n - 1; s >= 0; s--) {
        const p = pos[s] as number
        if (p >= (lo[s] as number)) {
          const b = (sel.sources[s] as RowSource<R>).blocks[p] as number
          if (best < 0 || b > bestBlock) {
            best = s
            bestBlock = b
          }
        }
      }
      if (best < 0) return visited
      const i = pos[best] as number
      pos[best] = i - 1
      if (test !== undefined && !test(best, i)) continue
      if (skipped < skip) {
        skipped++
        continue
      }
      visit(best, i)
      if (++visited >= take) return visited
    }
  }
}

