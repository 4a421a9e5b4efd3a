/**
 * The paging engine on a model of the API in virtual time: what the engine's decisions cost, apart from
 * this machine's CPU and whatever else runs on it.
 *
 * A model of getLogs (1,000 rows a call; result window 10,000 on paid plans, 1,000 on free) over data of
 * named density shapes, behind a limiter that lets the plan's calls/s through (a slot every 1/rate s)
 * and answers each call 300–600 ms after its slot (seeded). The engine (`Scheduler.rowsInOrder`, the
 * reader of `Streams.*`; exports use the same scheduler with spool files) reads it under Effect's
 * TestClock, which moves only when every fiber waits: the figures are the engine's alone, the same on
 * any machine. Per shape × size × plan: calls ÷ ideal calls (rows ÷ 1,000, rounded up), rows per call ÷
 * 1,000, and the ratio to the physical limit (rows ÷ seconds ÷ (rate × 1,000), the seconds from the
 * first call's slot to the last one's plus one slot, as bench/distance.ts counts them at the server);
 * every run is checked row for row against the data.
 *
 * The CPU side (parsing, writing) and a real server are measured by the simulator sections
 * (bench/shapes.ts, bench/distance.ts); this one says where the engine itself stands.
 *
 * Usage: tsx bench/engine.ts [--data model|simulator|heavy] [--only bursty:standard:5,…] [--sizes 2,5,30,300]
 * [--readers export,stream,one-page] [--seeds N] [--json FILE] [--merge] [--trace] [--step MS] (--merge: each
 * cell measured replaces the same cell of bench/results.json's `engine`, the others stay; then
 * `npm run bench -- --render` shows them as section 11 of RESULTS.md).
 */
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import { execSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import * as BlockCursor from "../src/streams/engine/BlockCursor.js"
import * as Partitions from "../src/streams/engine/Partitions.js"
import * as Scheduler from "../src/streams/engine/Scheduler.js"
import * as SimShapes from "../src/simulator/shapes.js"
import { Dataset } from "../src/simulator/dataset.js"

const argv = process.argv.slice(2)
const flag = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`)
  return i < 0 ? undefined : argv[i + 1]
}
const only = flag("only")?.split(",")
/**
 * Whose data: `model` (the generators below) or `simulator` (the simulator's own density-shape sets,
 * `src/simulator/shapes.ts`, the rows section 8 reads over HTTP: bursts of 1–12 blocks, a hot range of
 * 50–150 logs a block, blocks of 900–1,500 logs `window`) or `heavy` (the heavy contract's logs, section
 * 6's rows: clusters with long quiet gaps, every shape name reads them); the seed varies the generator.
 */
const data = (flag("data") ?? "model") as "model" | "simulator" | "heavy"
const trace = argv.includes("--trace")
/** Virtual milliseconds a step of the clock (`--step`; the figures do not depend on it). */
const step = Number(flag("step") ?? 1_000)

/** A seeded generator (mulberry32): the same data and latencies at every run. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

interface Row {
  readonly block: number
  readonly id: number
}

/** Blocks holding rows: [block, rows] ascending, about `rows` rows in all, from block 1,000,000. */
type Shape = (rows: number, next: () => number) => Array<readonly [number, number]>

const between = (next: () => number, lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1))

export const shapes: Readonly<Record<string, Shape>> = {
  // One to three rows every ~20 blocks.
  sparse: (rows, next) => {
    const out: Array<readonly [number, number]> = []
    let block = 1_000_000
    for (let n = 0; n < rows;) {
      block += between(next, 1, 40)
      const k = Math.min(rows - n, between(next, 1, 3))
      out.push([block, k])
      n += k
    }
    return out
  },
  // 10–30 rows in every block.
  dense: (rows, next) => {
    const out: Array<readonly [number, number]> = []
    let block = 1_000_000
    for (let n = 0; n < rows; block++) {
      const k = Math.min(rows - n, between(next, 10, 30))
      out.push([block, k])
      n += k
    }
    return out
  },
  // A popular token: quiet stretches (a row every ~200 blocks), then runs of 5–60 consecutive blocks
  // holding 100–1,500 rows each.
  bursty: (rows, next) => {
    const out: Array<readonly [number, number]> = []
    let block = 1_000_000
    for (let n = 0; n < rows;) {
      const quiet = between(next, 2_000, 20_000)
      for (let end = block + quiet; block < end && n < rows;) {
        block += between(next, 50, 350)
        out.push([block, 1])
        n++
      }
      const burst = between(next, 5, 60)
      for (let i = 0; i < burst && n < rows; i++) {
        block++
        const k = Math.min(rows - n, between(next, 100, 1_500))
        out.push([block, k])
        n += k
      }
    }
    return out
  },
  // Quiet (a row every ~100 blocks) but for one range of 40 rows a block holding 80 % of the rows.
  hot: (rows, next) => {
    const out: Array<readonly [number, number]> = []
    let block = 1_000_000
    const quietRows = Math.floor(rows * 0.2)
    let n = 0
    for (; n < quietRows / 2; n++) out.push([(block += between(next, 50, 150)), 1])
    for (const end = Math.floor(rows * 0.8) + n; n < end;) {
      const k = Math.min(end - n, between(next, 30, 50))
      out.push([++block, k])
      n += k
    }
    for (; n < rows; n++) out.push([(block += between(next, 50, 150)), 1])
    return out
  },
  // Blocks of 900–1,500 rows one after another: every page ends inside a block (free: up to 999).
  nearWindow: (rows, next) => {
    const out: Array<readonly [number, number]> = []
    let block = 1_000_000
    for (let n = 0; n < rows;) {
      const k = Math.min(rows - n, between(next, 900, 1_500))
      out.push([block++, k])
      n += k
    }
    return out
  }
}

export const plans = { free: 3, standard: 10, professional: 30 } as const
type PlanName = keyof typeof plans

export interface EngineRow {
  readonly reader: Reader
  /** Whose rows (`--data`): the model's generators, or the simulator's sets; absent: the model. */
  readonly data?: "model" | "simulator" | "heavy"
  readonly shape: string
  readonly plan: PlanName
  /** Seconds of the plan's budget the rows are worth (rows ÷ (rate × 1,000)). */
  readonly budgetSeconds: number
  readonly rows: number
  readonly calls: number
  readonly idealCalls: number
  /**
   * Calls one cursor makes over the same data (page after page, a used-up window starting again at its
   * last block, whose rows it reads again): where blocks are large next to the window (the free plan's
   * one page), the rows of the block a page ends in are read twice, which no reader avoids.
   */
  readonly cursorCalls?: number
  /** Rows a call returned ÷ 1,000. */
  readonly fill: number
  readonly seconds: number
  /** Rows/s ÷ (rate × 1,000). */
  readonly ratio: number
  readonly mostInFlight: number
  /** Where the calls and the time beyond the ideal went: calls that returned no row, fewer than a page, or were sent and then given up (their answer unread); milliseconds the limiter had a slot and nobody asked. */
  readonly empty?: number
  readonly short?: number
  readonly givenUp?: number
  readonly idleMs?: number
  readonly exact: boolean
  /** Data sets and latencies drawn (`--seeds`): the figures above are their means. */
  readonly seeds?: number
  /** The lowest ratio of those seeds. */
  readonly worstRatio?: number
  /** When and at which commit the cell was merged on its own (`--merge`); absent: as the section says. */
  readonly measured?: { readonly date: string; readonly commit: string }
}

const cap = 1_000

/**
 * How the engine reads: `export`, spills of any size (an export's spool files); `stream`, spills held in
 * memory up to the Stream's default; `one-page`, an export as if every query had a window of one page
 * (partitions only: the scheduler as it was before pages of one query were asked together), the
 * baseline measured in the same run.
 */
export type Reader = "export" | "stream" | "one-page"

/** One read of `shape` worth `budgetSeconds` of `plan`'s budget, in virtual time. */
export const measure = (shape: string, plan: PlanName, budgetSeconds: number, reader: Reader, seed = 0): Promise<EngineRow> => {
  const rate = plans[plan]
  const window = plan === "free" ? 1_000 : 10_000
  const wanted = Math.round(budgetSeconds * rate * cap)
  const next = random(budgetSeconds * 7919 + shape.length * 104729 + rate + seed * 1_000_003)
  const all: Array<Row> = []
  if (data === "heavy") {
    // The heavy contract's logs as the simulator serves them to section 6 (its data set of seed 11, the
    // first seed; others vary it): the first `wanted` of them, to the end of a block.
    const blocks = new Dataset(11 + seed, { heavyContractLogs: 1_000_000, chains: [1] }).chain(1).heavy()?.blocks ?? new Int32Array(0)
    let n = Math.min(wanted, blocks.length)
    while (n < blocks.length && blocks[n] === blocks[n - 1]) n++
    for (let i = 0; i < n; i++) all.push({ block: blocks[i] as number, id: i })
  } else if (data === "simulator") {
    const name = (shape === "nearWindow" ? "window" : shape) as SimShapes.ShapeName
    const size = (Object.entries(SimShapes.shapeSizes).find(([, s]) => s === budgetSeconds)?.[0] ?? "5s") as SimShapes.ShapeSize
    const planned = SimShapes.planShape(name, plan, size, 100_000_000, `shape:${name}`, 1_000_003 * (seed + 1) + name.length)
    for (const block of SimShapes.buildShape(planned)) all.push({ block, id: all.length })
  } else {
    const blocks = (shapes[shape] as Shape)(wanted, next).map(([block, k]) =>
      [block, plan === "free" ? Math.min(k, cap - 1) : k] as const
    )
    for (const [block, k] of blocks) for (let i = 0; i < k; i++) all.push({ block, id: all.length })
  }
  const blockIndex = all.map((row) => row.block)
  const lowerBound = (block: number) => {
    let lo = 0
    let hi = blockIndex.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if ((blockIndex[mid] as number) < block) lo = mid + 1
      else hi = mid
    }
    return lo
  }
  const fromBlock = data === "model" ? 1_000_000 : (all[0]?.block ?? 1_000_000)
  const toBlock = (all.at(-1)?.block ?? fromBlock) + 10
  const latency = random(rate * 31 + budgetSeconds + seed * 7_919)
  const stats = { calls: 0, inFlight: 0, most: 0, nextSlot: 0, first: Number.POSITIVE_INFINITY, last: 0, empty: 0, short: 0, givenUp: 0, idleMs: 0 }
  // Requests waiting for a slot, with their level at the limiter (`BlockPageRequest.priority`).
  const waiting: Array<{ readonly turn: Deferred.Deferred<void>; readonly priority: { level: number } | undefined }> = []
  const signal = Effect.runSync(Queue.sliding<void>(1))
  // The next request: the first of the lowest level (as the client's Throttle picks it).
  const nextTurn: Effect.Effect<Deferred.Deferred<void>> = Effect.suspend(function loop(): Effect.Effect<Deferred.Deferred<void>> {
    let best = -1
    for (let i = 0; i < waiting.length; i++) {
      if (best < 0 || (waiting[i]?.priority?.level ?? 0) < (waiting[best]?.priority?.level ?? 0)) best = i
    }
    if (best >= 0) return Effect.succeed(waiting.splice(best, 1)[0]!.turn)
    return Effect.zipRight(Queue.take(signal), Effect.suspend(loop))
  })
  // The limiter's loop: the next request still waiting gets the slot, then the next slot is 1/rate s on.
  const grants = Effect.forever(Effect.gen(function*() {
    let taken = false
    while (!taken) taken = yield* Deferred.succeed(yield* nextTurn, undefined)
    const now = yield* TestClockNow
    if (stats.calls > 0 && now > stats.nextSlot + 1) {
      stats.idleMs += now - stats.nextSlot
      if (trace) console.error(`idle ${Math.round(stats.nextSlot)}..${Math.round(now)} (${Math.round(now - stats.nextSlot)} ms)`)
    }
    stats.nextSlot = now + 1_000 / rate
    yield* Effect.sleep(1_000 / rate)
  }))
  const fetch = (r: BlockCursor.BlockPageRequest, onAnswer: (millis: number) => void) =>
    Effect.gen(function*() {
      // The limiter: a slot every 1/rate s, the lowest level first, then in the order asked; a request
      // given up while it waits leaves its slot to the next one (as the client's Throttle does).
      const turn = yield* Deferred.make<void>()
      const entry = { turn, priority: r.priority }
      waiting.push(entry)
      yield* Queue.offer(signal, undefined)
      yield* Effect.onInterrupt(Deferred.await(turn), () =>
        Effect.suspend(() => {
          const i = waiting.indexOf(entry)
          if (i >= 0) waiting.splice(i, 1)
          return Deferred.interrupt(turn)
        }))
      const slot = yield* TestClockNow
      stats.first = Math.min(stats.first, slot)
      stats.last = Math.max(stats.last, slot)
      stats.calls++
      stats.inFlight++
      stats.most = Math.max(stats.most, stats.inFlight)
      // The latency the client measures: from its slot at the limiter to the answer.
      const millis = 300 + Math.floor(latency() * 300)
      yield* Effect.sleep(millis).pipe(Effect.onInterrupt(() => Effect.sync(() => {
        stats.inFlight--
        stats.givenUp++
        if (trace) console.error(`given up @${Math.round(slot)} ${r.fromBlock}-${r.toBlock} p${r.page}`)
      })))
      onAnswer(millis)
      stats.inFlight--
      if (r.page * r.offset > window) return yield* Effect.die(new Error("Result window is too large"))
      const start = lowerBound(r.fromBlock) + (r.page - 1) * r.offset
      const end = Math.min(lowerBound(r.toBlock + 1), start + Math.min(r.offset, cap))
      const rows = all.slice(start, Math.max(start, end))
      if (rows.length === 0) stats.empty++
      else if (rows.length < r.offset) stats.short++
      if (trace) console.error(`call @${Math.round(slot)}+${millis} ${r.fromBlock}-${r.toBlock} p${r.page} → ${rows.length}`)
      return rows
    })
  // Virtual time: the CPU this simulation spends is no reader's.
  const pool: Partitions.Pool = { ...Partitions.pool(), fixedCpuCap: true }
  const stream = Scheduler.rowsInOrder<Row, never, never>({
    range: { fromBlock, toBlock },
    // An export's spools hold any number of rows; a Stream's memory is bounded (its default).
    ...(reader === "stream" ? {} : { heldRows: Number.POSITIVE_INFINITY }),
    parallel: { callsPerSecond: rate, rowsPerCall: cap, pagesPerQuery: reader === "one-page" ? 1 : window / cap, pool },
    read: (range, bound, onAnswer) =>
      BlockCursor.batches({
        chainId: 1,
        module: "logs",
        action: "getLogs",
        fromBlock: range.fromBlock,
        toBlock: range.toBlock,
        rowsPerRequest: cap,
        window,
        blockOf: (row: Row) => row.block,
        fetch: (r) => fetch(r, onAnswer),
        bound
      }).pipe(Stream.orDie)
  })
  const program = Effect.gen(function*() {
    const limiter = yield* Effect.fork(grants)
    const fiber = yield* Effect.fork(Stream.runCollect(stream))
    // Time moves until the reader is done. One step fires every sleep due within it in order, each at
    // its own instant, every fiber settled in between: the step's size changes nothing but the real time
    // spent (each step waits for real timers).
    while (fiber.unsafePoll() === null) yield* TestClock.adjust(step)
    const rows = Chunk.toReadonlyArray(yield* Fiber.join(fiber))
    yield* Fiber.interrupt(limiter)
    // As the server's windows count them: from the first call's slot to the last one's, plus a slot.
    const seconds = (stats.last - stats.first + 1_000 / rate) / 1_000
    const exact = rows.length === all.length && rows.every((row, i) => row.id === i)
    const idealCalls = Math.max(1, Math.ceil(all.length / cap))
    const cursorCalls = oneCursorCalls(blockIndex, lowerBound, fromBlock, toBlock, window)
    return {
      reader,
      data,
      shape,
      plan,
      budgetSeconds,
      rows: all.length,
      calls: stats.calls,
      idealCalls,
      cursorCalls,
      fill: Math.round((all.length / (stats.calls * cap)) * 1000) / 1000,
      seconds: Math.round(seconds * 10) / 10,
      ratio: Math.round((all.length / seconds / (rate * cap)) * 1000) / 1000,
      mostInFlight: stats.most,
      empty: stats.empty,
      short: stats.short,
      givenUp: stats.givenUp,
      // The idle time the span counts (before the first slot nothing is measured).
      idleMs: Math.round(stats.idleMs),
      exact
    } satisfies EngineRow
  })
  return Effect.runPromise(program.pipe(Effect.provide(TestContext.TestContext)))
}

const TestClockNow = Effect.clockWith((clock) => clock.currentTimeMillis)

/** The calls of one block cursor reading `fromBlock..toBlock` (see `EngineRow.cursorCalls`), counted without time. */
const oneCursorCalls = (
  blockIndex: ReadonlyArray<number>,
  lowerBound: (block: number) => number,
  fromBlock: number,
  toBlock: number,
  window: number
): number => {
  let calls = 0
  let cursor = fromBlock
  const end = lowerBound(toBlock + 1)
  for (;;) {
    const start = lowerBound(cursor)
    let page = 1
    for (;;) {
      calls++
      const first = start + (page - 1) * cap
      const last = Math.min(end, first + cap)
      if (last - first < cap) return calls
      const lastBlock = blockIndex[last - 1] as number
      if ((page + 1) * cap <= window) page++
      else if (lastBlock > cursor) {
        cursor = lastBlock
        break
      } else return calls // a block denser than the window: the engine would stop (DenseBlockError)
    }
  }
}

const sizes = (flag("sizes") ?? "2,5,30").split(",").map(Number)
const readers = (flag("readers") ?? "export,stream,one-page").split(",") as Array<Reader>
const seeds = Math.max(1, Number(flag("seeds") ?? 1))

const main = async () => {
  const results: Array<EngineRow> = []
  for (const reader of readers) {
    for (const shape of Object.keys(shapes)) {
      for (const plan of Object.keys(plans) as Array<PlanName>) {
        for (const size of sizes) {
          if (only !== undefined && !only.some((o) => `${shape}:${plan}:${size}`.startsWith(o))) continue
          // Several seeds (`--seeds N`): the cell's figures are their means, `worstRatio` the lowest.
          const runs: Array<EngineRow> = []
          for (let seed = 0; seed < seeds; seed++) runs.push(await measure(shape, plan, size, reader, seed))
          const mean = (f: (r: EngineRow) => number, digits: number) =>
            Math.round((runs.reduce((a, r) => a + f(r), 0) / runs.length) * 10 ** digits) / 10 ** digits
          const first = runs[0] as EngineRow
          const row: EngineRow = seeds === 1 ? first : {
            ...first,
            rows: mean((r) => r.rows, 0),
            calls: mean((r) => r.calls, 1),
            idealCalls: mean((r) => r.idealCalls, 1),
            cursorCalls: mean((r) => r.cursorCalls ?? 0, 1),
            fill: mean((r) => r.fill, 3),
            seconds: mean((r) => r.seconds, 1),
            ratio: mean((r) => r.ratio, 3),
            mostInFlight: Math.max(...runs.map((r) => r.mostInFlight)),
            empty: mean((r) => r.empty ?? 0, 1),
            short: mean((r) => r.short ?? 0, 1),
            givenUp: mean((r) => r.givenUp ?? 0, 1),
            idleMs: mean((r) => r.idleMs ?? 0, 0),
            exact: runs.every((r) => r.exact),
            seeds,
            worstRatio: Math.min(...runs.map((r) => r.ratio))
          }
          results.push(row)
          console.log(JSON.stringify(row))
        }
      }
    }
  }
  for (const reader of readers) {
    const mine = results.filter((r) => r.reader === reader)
    if (mine.length === 0) continue
    const worst = mine.reduce((a, b) => (b.ratio < a.ratio ? b : a))
    const best = mine.reduce((a, b) => (b.ratio > a.ratio ? b : a))
    const worstFill = mine.reduce((a, b) => (b.fill < a.fill ? b : a))
    console.log(`${reader}: worst ratio ${worst.ratio} (${worst.shape} ${worst.plan} ${worst.budgetSeconds}s), best ${best.ratio} (${best.shape} ${best.plan} ${best.budgetSeconds}s); worst fill ${worstFill.fill} (${worstFill.shape} ${worstFill.plan} ${worstFill.budgetSeconds}s); all exact: ${mine.every((r) => r.exact)}`)
  }
  const json = flag("json")
  if (json !== undefined) writeFileSync(json, JSON.stringify(results, null, 2))
  if (argv.includes("--merge")) {
    // Cell by cell: a row measured now replaces the row of the same reader, data, shape, plan and size
    // (it says when and at which commit: `measured`); the others, and the section's note, stay.
    const file = new URL("./results.json", import.meta.url)
    const commit = execSync("git rev-parse --short HEAD", { encoding: "utf8" }).trim()
    const date = new Date().toISOString()
    const all = JSON.parse(readFileSync(file, "utf8"))
    const key = (r: EngineRow) => `${r.reader}|${r.data ?? "model"}|${r.shape}|${r.plan}|${r.budgetSeconds}`
    const fresh = new Map(results.map((r) => [key(r), { ...r, measured: { date, commit } }]))
    const before: Array<EngineRow> = all.engine?.rows ?? []
    const rows = before.map((r) => fresh.get(key(r)) ?? r)
    for (const [k, r] of fresh) if (!before.some((b) => key(b) === k)) rows.push(r)
    const engine = all.engine === undefined ? { date, commit, rows } : { ...all.engine, rows }
    writeFileSync(file, JSON.stringify({ ...all, engine }, null, 2) + "\n")
  }
}

if (import.meta.url === `file://${process.argv[1]}`) void main()
