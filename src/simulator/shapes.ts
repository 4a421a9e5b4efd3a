/**
 * Log data sets of named density shapes, for measuring a paging engine on the shapes users meet: a
 * contract whose Transfer logs are spread thin, packed into every block, bunched in bursts, crowded into
 * one hot range, or held in blocks of about a page each. Each shape exists at four sizes, measured in
 * seconds of a plan's budget (rows ÷ (plan calls/s × 1,000 rows a getLogs call returns)), for the free,
 * standard and professional plans: `bursty-standard-5s` is a bursty contract of 50,000 logs, 5 s of the
 * standard plan's budget.
 *
 * Every set is one contract address of a populated chain, named `shape:<name>`; its layout (rows, block
 * range) is known without building it, and its rows are built on the first query of its address, from a
 * seed of (chain, name): the same rows every time. They answer getLogs by address only (a chain-wide
 * getLogs without an address does not include them, so the other data sets' answers stay as they were).
 */
import { Prng } from "./hash.js"
import { planRates, resultWindow, rowsPerRequest } from "./rules.js"

/**
 * The density shapes.
 *
 * @since 0.1.0
 * @category constants
 */
export const shapeNames = ["sparse", "dense", "bursty", "hot", "window"] as const
/**
 * A density shape.
 *
 * @since 0.1.0
 * @category models
 */
export type ShapeName = (typeof shapeNames)[number]

/**
 * The sizes, as seconds of the plan's budget.
 *
 * @since 0.1.0
 * @category constants
 */
export const shapeSizes = { "2s": 2, "5s": 5, "30s": 30, "5m": 300 } as const
/**
 * A size of a shape data set.
 *
 * @since 0.1.0
 * @category models
 */
export type ShapeSize = keyof typeof shapeSizes

/**
 * The plans the sizes are measured against.
 *
 * @since 0.1.0
 * @category constants
 */
export const shapePlans = ["free", "standard", "professional"] as const
/**
 * A plan of a shape data set.
 *
 * @since 0.1.0
 * @category models
 */
export type ShapePlan = (typeof shapePlans)[number]

/**
 * What each shape claims, in words (the test checks the numbers).
 *
 * @since 0.1.0
 * @category constants
 */
export const shapeDescriptions: Readonly<Record<ShapeName, string>> = {
  sparse: "uniform sparse: about 1 log per 20 blocks (denser only where the chain is too short), rarely more than 2 in a block",
  dense: "uniform dense: every block of the range holds 5–35 logs (mean 20)",
  bursty:
    "bursty: quiet stretches with 2% of the logs in blocks of 1–3, then runs of 1–12 consecutive blocks holding 100–1,500 logs each; about 1 log per 10 blocks overall",
  hot: "one hot range inside a quiet one: 90% of the logs in consecutive blocks of 50–150, the rest single logs at about 1 per 100 blocks around it",
  window: "next to the page window: blocks of 900–1,500 logs (900–999 on free, whose window is 1,000), 1–40 blocks apart"
}

/**
 * One shape data set: what to query and what it holds.
 *
 * @since 0.1.0
 * @category models
 */
export interface ShapeRef {
  /** `<shape>-<plan>-<size>`, e.g. `bursty-standard-5s`. */
  readonly name: string
  readonly shape: ShapeName
  readonly plan: ShapePlan
  readonly size: ShapeSize
  /** Seconds of the plan's budget the set takes at the physical limit. */
  readonly budgetSeconds: number
  /** The emitting contract: query getLogs with this address. */
  readonly address: string
  readonly rows: number
  /** The block range that holds every row (query it whole). */
  readonly fromBlock: number
  readonly toBlock: number
  /** Most logs one block may hold in this set. */
  readonly maxRowsPerBlock: number
  readonly description: string
}

/** The layout of a set before its rows are built. */
export interface ShapePlanned extends ShapeRef {
  /** Seed of the set's generator. */
  readonly seed: number
  /** Blocks of the hot range (hot), of the bursts (bursty), of the set (window); 0 for the others. */
  readonly denseBlocks: number
  /** Rows outside the hot range or the bursts (hot, bursty); 0 for the others. */
  readonly quietRows: number
}

/** Longest block range of a set: a fifth of a chain of 100M blocks, or the chain less 1,000 blocks. */
const MAX_SPAN = 20_000_000

/** How many blocks of `lo..hi` rows hold about `n` rows, and the rows that fit them exactly. */
const fit = (n: number, lo: number, hi: number): { readonly blocks: number; readonly rows: number } => {
  const blocks = Math.max(1, Math.round(n / ((lo + hi) / 2)))
  return { blocks, rows: Math.min(Math.max(n, blocks * lo), blocks * hi) }
}

const rowsCap = (plan: ShapePlan): number => Math.min(1_500, resultWindow(plan, "getLogs") - 1)

/** The layout of one set (rows, range) from its shape, plan and size, and the chain's last block. */
export const planShape = (
  shape: ShapeName,
  plan: ShapePlan,
  size: ShapeSize,
  latestBlock: number,
  address: string,
  seed: number
): ShapePlanned => {
  const budgetSeconds = shapeSizes[size]
  const wanted = budgetSeconds * planRates[plan].perSecond * rowsPerRequest(plan, "getLogs")
  const maxSpan = Math.max(1_000, Math.min(MAX_SPAN, latestBlock - 1_000))
  const toBlock = latestBlock - 100
  const cap = rowsCap(plan)
  let rows = wanted
  let span: number
  let denseBlocks = 0
  let quietRows = 0
  let maxRowsPerBlock: number
  switch (shape) {
    case "sparse":
      span = Math.min(rows * 20, maxSpan)
      maxRowsPerBlock = 64
      break
    case "dense":
      span = Math.ceil(rows / 20)
      rows = Math.min(Math.max(rows, span * 5), span * 35)
      maxRowsPerBlock = 35
      break
    case "bursty": {
      const quiet = Math.round(rows * 0.02)
      const f = fit(rows - quiet, 100, cap)
      rows = quiet + f.rows
      denseBlocks = f.blocks
      quietRows = quiet
      span = Math.max(Math.min(rows * 10, maxSpan), 4 * (f.blocks + quiet))
      maxRowsPerBlock = cap
      break
    }
    case "hot": {
      const quiet = Math.round(rows * 0.1)
      const f = fit(rows - quiet, 50, 150)
      rows = quiet + f.rows
      denseBlocks = f.blocks
      quietRows = quiet
      span = Math.max(Math.min(quiet * 100, maxSpan), 20 * f.blocks, 2 * (f.blocks + quiet))
      maxRowsPerBlock = 150
      break
    }
    case "window": {
      const lo = 900
      const f = fit(rows, lo, cap)
      rows = f.rows
      denseBlocks = f.blocks
      span = f.blocks * 40
      maxRowsPerBlock = cap
      break
    }
  }
  return {
    name: `${shape}-${plan}-${size}`,
    shape,
    plan,
    size,
    budgetSeconds,
    address,
    rows,
    fromBlock: toBlock - span + 1,
    toBlock,
    maxRowsPerBlock,
    description: shapeDescriptions[shape],
    seed,
    denseBlocks,
    quietRows
  }
}

/** Counts of `blocks` blocks within [lo, hi] summing to exactly `rows` (which must fit). */
const exactCounts = (rows: number, blocks: number, lo: number, hi: number, rng: Prng): Int32Array => {
  const c = new Int32Array(blocks)
  let sum = 0
  for (let i = 0; i < blocks; i++) {
    c[i] = rng.range(lo, hi)
    sum += c[i] as number
  }
  // Bring the sum to `rows`: first an even share to every block, then the rest where there is room.
  let diff = rows - sum
  const share = Math.trunc(diff / blocks)
  for (let pass = 0; pass < 2 && diff !== 0; pass++) {
    for (let i = 0; i < blocks && diff !== 0; i++) {
      const v = c[i] as number
      const want = pass === 0 ? share : diff
      const step = Math.max(lo - v, Math.min(hi - v, want))
      c[i] = v + step
      diff -= step
    }
  }
  if (diff !== 0) throw new Error(`shape counts: ${rows} rows do not fit ${blocks} blocks of ${lo}..${hi}`)
  return c
}

/** Expands sorted (block, count) pairs into one block number per row. */
const expand = (pairs: ReadonlyArray<readonly [number, number]>, rows: number): Int32Array => {
  const out = new Int32Array(rows)
  let k = 0
  for (const [b, n] of pairs) for (let r = 0; r < n; r++) out[k++] = b
  if (k !== rows) throw new Error(`shape rows: built ${k}, planned ${rows}`)
  return out
}

/** `n` distinct blocks in [from, to] outside `taken`, uniformly drawn. */
const scatter = (n: number, from: number, to: number, taken: Set<number>, rng: Prng): Array<number> => {
  const out: Array<number> = []
  while (out.length < n) {
    const b = rng.range(from, to)
    if (taken.has(b)) continue
    taken.add(b)
    out.push(b)
  }
  return out
}

/**
 * The block number of every row of a planned set, ascending (rows of a block together). Deterministic:
 * the same plan gives the same array.
 */
export const buildShape = (p: ShapePlanned): Int32Array => {
  const rng = new Prng(p.seed)
  const span = p.toBlock - p.fromBlock + 1
  switch (p.shape) {
    case "sparse": {
      // A Poisson process: exponential gaps, scaled so the rows fill the range end to end.
      const total = (() => {
        const r = new Prng(p.seed)
        let s = 0
        for (let i = 0; i < p.rows; i++) s += -Math.log(1 - r.float())
        return s
      })()
      const out = new Int32Array(p.rows)
      let cum = 0
      for (let i = 0; i < p.rows; i++) {
        cum += -Math.log(1 - rng.float())
        out[i] = p.fromBlock + Math.min(span - 1, Math.floor((cum / total) * (span - 1)))
      }
      return out
    }
    case "dense": {
      const c = exactCounts(p.rows, span, 5, 35, rng)
      const pairs: Array<readonly [number, number]> = []
      for (let i = 0; i < span; i++) pairs.push([p.fromBlock + i, c[i] as number])
      return expand(pairs, p.rows)
    }
    case "bursty": {
      const counts = exactCounts(p.rows - p.quietRows, p.denseBlocks, 100, p.maxRowsPerBlock, rng)
      // Runs of 1–12 consecutive blocks, with quiet stretches of random length between them.
      const runs: Array<number> = []
      for (let left = p.denseBlocks; left > 0;) {
        const l = Math.min(left, rng.range(1, 12))
        runs.push(l)
        left -= l
      }
      const weights = Array.from({ length: runs.length + 1 }, () => -Math.log(1 - rng.float()))
      const wsum = weights.reduce((a, b) => a + b, 0)
      const quietBlocks = span - p.denseBlocks
      const pairs: Array<readonly [number, number]> = []
      const taken = new Set<number>()
      let b = p.fromBlock
      let k = 0
      for (let r = 0; r < runs.length; r++) {
        b += Math.floor(((weights[r] as number) / wsum) * quietBlocks)
        for (let j = 0; j < (runs[r] as number); j++, b++, k++) {
          pairs.push([b, counts[k] as number])
          taken.add(b)
        }
      }
      // The quiet logs: blocks of 1–3 outside the bursts.
      const quietCounts: Array<number> = []
      for (let left = p.quietRows; left > 0;) {
        const n = Math.min(left, rng.range(1, 3))
        quietCounts.push(n)
        left -= n
      }
      const quiet = scatter(quietCounts.length, p.fromBlock, p.toBlock, taken, rng)
      quiet.forEach((qb, i) => pairs.push([qb, quietCounts[i] as number]))
      pairs.sort((x, y) => x[0] - y[0])
      return expand(pairs, p.rows)
    }
    case "hot": {
      const counts = exactCounts(p.rows - p.quietRows, p.denseBlocks, 50, 150, rng)
      const start = p.fromBlock + Math.floor((span - p.denseBlocks) * 0.45)
      const pairs: Array<readonly [number, number]> = []
      const taken = new Set<number>()
      for (let i = 0; i < p.denseBlocks; i++) {
        pairs.push([start + i, counts[i] as number])
        taken.add(start + i)
      }
      for (const qb of scatter(p.quietRows, p.fromBlock, p.toBlock, taken, rng)) pairs.push([qb, 1])
      pairs.sort((x, y) => x[0] - y[0])
      return expand(pairs, p.rows)
    }
    case "window": {
      const counts = exactCounts(p.rows, p.denseBlocks, 900, p.maxRowsPerBlock, rng)
      const pairs: Array<readonly [number, number]> = []
      let b = p.fromBlock + rng.range(0, 39)
      for (let i = 0; i < p.denseBlocks; i++) {
        pairs.push([b, counts[i] as number])
        b += rng.range(1, 40)
      }
      return expand(pairs, p.rows)
    }
  }
}

/** Every set of a chain, by address, laid out (rows not built). */
export const planShapes = (
  latestBlock: number,
  addressOf: (name: string) => string,
  seedOf: (name: string) => number
): ReadonlyArray<ShapePlanned> =>
  shapeNames.flatMap((shape) =>
    shapePlans.flatMap((plan) =>
      (Object.keys(shapeSizes) as Array<ShapeSize>).map((size) => {
        const name = `${shape}-${plan}-${size}`
        return planShape(shape, plan, size, latestBlock, addressOf(`shape:${name}`), seedOf(name))
      })
    )
  )

/** The public description of a planned set. */
export const shapeRef = (p: ShapePlanned): ShapeRef => ({
  name: p.name,
  shape: p.shape,
  plan: p.plan,
  size: p.size,
  budgetSeconds: p.budgetSeconds,
  address: p.address,
  rows: p.rows,
  fromBlock: p.fromBlock,
  toBlock: p.toBlock,
  maxRowsPerBlock: p.maxRowsPerBlock,
  description: p.description
})

