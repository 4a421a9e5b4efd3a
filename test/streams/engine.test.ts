/**
 * The paging engines against an in-memory model of the API's paging rules (window, per-request cap,
 * ascending block order, query timeouts on heavy ranges), over random rows-per-block distributions.
 * The simulator-backed tests (streams.test.ts) prove the same through HTTP; these explore many more
 * shapes quickly.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, FastCheck as fc, Stream } from "effect"
import { QueryTimeoutError, ResultWindowError } from "../../src/ExplorerError.js"
import * as BlockCursor from "../../src/streams/engine/BlockCursor.js"
import * as PageNumbers from "../../src/streams/engine/PageNumbers.js"
import * as Progress from "../../src/streams/Progress.js"
import { type Row, rowsOf, where } from "./rows.js"

/** The API's paging rules over a fixed row set; counts requests. */
const model = (all: ReadonlyArray<Row>, cap: number, window: number, timeoutAbove = Infinity) => {
  let requests = 0
  const fetch = (r: BlockCursor.BlockPageRequest) =>
    Effect.suspend((): Effect.Effect<ReadonlyArray<Row>, ResultWindowError | QueryTimeoutError> => {
      requests++
      if (r.page * r.offset > window) {
        return Effect.fail(new ResultWindowError({ ...where, window, detail: "Result window is too large" }))
      }
      const inRange = all.filter((row) => row.block >= r.fromBlock && row.block <= r.toBlock)
      if (inRange.length > timeoutAbove) {
        return Effect.fail(new QueryTimeoutError({ ...where, detail: "Query Timeout occured" }))
      }
      const start = (r.page - 1) * r.offset
      return Effect.succeed(inRange.slice(start, start + Math.min(r.offset, cap)))
    })
  return { fetch, requests: () => requests }
}

/** Distributions with empty stretches, single rows, exactly-a-page blocks and dense blocks. */
const distribution = (cap: number, maxPerBlock: number) =>
  fc.array(
    fc.tuple(
      fc.integer({ min: 0, max: 40 }), // gap of empty blocks before this block
      fc.oneof(
        fc.integer({ min: 1, max: 3 }),
        fc.constant(cap),
        fc.constant(cap - 1),
        fc.constant(cap + 1),
        fc.integer({ min: 1, max: maxPerBlock })
      )
    ),
    { maxLength: 40 }
  ).map((pairs) => {
    let block = 100
    return pairs.map(([gap, count]) => {
      block += gap + 1
      return [block, count] as const
    })
  })

const run = <A, E>(stream: Stream.Stream<A, E>) => Stream.runCollect(stream).pipe(Effect.map(Chunk.toReadonlyArray), Effect.either)

describe("block cursor engine", () => {
  // cap 10 / window 100 stands for getLogs on a paid plan (1,000 / 10,000): blocks up to 99 rows pass.
  it.effect.prop(
    "emits every row exactly once, in order, for any distribution below the window",
    [distribution(10, 99), fc.integer({ min: 0, max: 60 })],
    ([dist, tailGap]) =>
      Effect.gen(function*() {
        const all = rowsOf(dist)
        const api = model(all, 10, 100)
        const toBlock = (dist.at(-1)?.[0] ?? 100) + tailGap
        const result = yield* run(BlockCursor.rows({
          ...where,
          fromBlock: 0,
          toBlock,
          rowsPerRequest: 10,
          window: 100,
          blockOf: (r: Row) => r.block,
          fetch: api.fetch
        }))
        expect(Either.getOrThrow(result)).toEqual(all)
      }),
    { fastCheck: { numRuns: 150 } }
  )

  it.effect.prop(
    "reads no row twice while the window holds the query: the next page, not the cut block again",
    [distribution(10, 9)],
    ([dist]) =>
      Effect.gen(function*() {
        // Fewer rows than the window (100): one query's pages hold them all.
        const all = rowsOf(dist).slice(0, 99)
        const api = model(all, 10, 100)
        let fetched = 0
        const result = yield* run(BlockCursor.rows({
          ...where,
          fromBlock: 0,
          toBlock: 100_000,
          rowsPerRequest: 10,
          window: 100,
          blockOf: (r: Row) => r.block,
          fetch: (r) => Effect.tap(api.fetch(r), (rows) => Effect.sync(() => void (fetched += rows.length)))
        }))
        expect(Either.getOrThrow(result)).toEqual(all)
        // Each page is the next 10 rows of the one query.
        expect(fetched).toBe(all.length)
        expect(api.requests()).toBe(Math.floor(all.length / 10) + 1)
      }),
    { fastCheck: { numRuns: 100 } }
  )

  it.effect.prop(
    "pages asked ahead (Bound.ahead) give the one-cursor rows, with several requests on the wire, lowered ends and timeouts too",
    [distribution(10, 40), fc.integer({ min: 1, max: 9 }), fc.option(fc.integer({ min: 0, max: 3_000 })),
      fc.option(fc.integer({ min: 0, max: 4_000 })), fc.boolean()],
    ([dist, depth, expected, lowerTo, timeouts]) =>
      Effect.gen(function*() {
        const all = rowsOf(dist)
        const api = model(all, 10, 100, timeouts ? 60 : Infinity)
        const toBlock = (dist.at(-1)?.[0] ?? 100) + 5
        const stats = { inFlight: 0, most: 0 }
        const fetch = (r: BlockCursor.BlockPageRequest) =>
          Effect.gen(function*() {
            stats.inFlight++
            stats.most = Math.max(stats.most, stats.inFlight)
            // Answers in any order (the test clock does not move: yields stand for the network; at least
            // one, so that an answer is never back before the page asked ahead of it has gone out).
            for (let i = 1 + Math.floor(Math.random() * 5); i > 0; i--) yield* Effect.yieldNow()
            return yield* api.fetch(r)
          }).pipe(Effect.ensuring(Effect.sync(() => void stats.inFlight--)))
        const limit: BlockCursor.Bound = {
          ...BlockCursor.bound(0, toBlock),
          ahead: depth,
          ...(expected === null ? {} : { expected })
        }
        // A cut, as a partitioned export makes one: the end lowered while pages are on the wire.
        const end = lowerTo === null ? toBlock : Math.min(toBlock, 100 + lowerTo)
        const result = yield* run(BlockCursor.rows({
          ...where,
          fromBlock: 0,
          toBlock,
          rowsPerRequest: 10,
          window: 100,
          blockOf: (r: Row) => r.block,
          fetch: (r) => Effect.tap(fetch(r), () => Effect.sync(() => void BlockCursor.lower(limit, Math.max(limit.claimed, end)))),
          bound: limit
        }))
        const rows = Either.getOrThrow(result)
        expect(rows).toEqual(all.filter((row) => row.block <= limit.end))
        expect(limit.inFlight ?? 0).toBe(0)
        // Rows expected beyond a page: the first pages go together, before any answer. (Without it, the
        // rows read decide, and a few dense blocks may say no more than the next page is to come.)
        if (expected !== null && expected > 10) expect(stats.most).toBeGreaterThan(1)
      }),
    { fastCheck: { numRuns: 120, examples: [[[[101, 22], [121, 19]], 1, null, null, false]] } }
  )

  it.effect("pages asked ahead cost about the calls of one cursor on a query that fills its window", () =>
    Effect.gen(function*() {
      // 1 to 9 rows a block up to the range's end: pages ahead are asked only while the rows seen say the
      // query goes on, so they are the pages one cursor asks for.
      const all = rowsOf(Array.from({ length: 400 }, (_, i) => [100 + i, 1 + (i % 9)] as const))
      const serial = model(all, 10, 100)
      const parallel = model(all, 10, 100)
      const options = { ...where, fromBlock: 100, toBlock: 499, rowsPerRequest: 10, window: 100, blockOf: (r: Row) => r.block }
      expect(Either.getOrThrow(yield* run(BlockCursor.rows({ ...options, fetch: serial.fetch })))).toEqual(all)
      const limit: BlockCursor.Bound = { ...BlockCursor.bound(100, 499), ahead: 9 }
      expect(Either.getOrThrow(yield* run(BlockCursor.rows({ ...options, fetch: parallel.fetch, bound: limit })))).toEqual(all)
      // At most a page or two asked past the end, where the rows seen promised more.
      expect(parallel.requests()).toBeLessThanOrEqual(serial.requests() + 2)
    }))

  // cap = window = 10 stands for the free plan's lists (1,000 / 1,000).
  it.effect.prop(
    "on a window equal to the page, fails with DenseBlockError exactly when a block fills a page",
    [distribution(10, 15)],
    ([dist]) =>
      Effect.gen(function*() {
        const all = rowsOf(dist)
        const api = model(all, 10, 10)
        const result = yield* run(BlockCursor.rows({
          ...where,
          fromBlock: 0,
          toBlock: 10_000,
          rowsPerRequest: 10,
          window: 10,
          blockOf: (r: Row) => r.block,
          fetch: api.fetch
        }))
        const dense = dist.find(([, count]) => count >= 10)
        if (dense === undefined) {
          expect(Either.getOrThrow(result)).toEqual(all)
        } else {
          expect(Either.isLeft(result)).toBe(true)
          if (Either.isLeft(result)) {
            expect(result.left._tag).toBe("DenseBlockError")
            expect(result.left.message).toContain(`block ${dense[0]}`)
          }
        }
      }),
    { fastCheck: { numRuns: 150 } }
  )

  it.effect("pages inside a block denser than a page while the window allows", () =>
    Effect.gen(function*() {
      const all = rowsOf([[5, 3], [6, 95], [7, 2]])
      const api = model(all, 10, 100)
      const result = yield* run(BlockCursor.rows({
        ...where, fromBlock: 0, toBlock: 10, rowsPerRequest: 10, window: 100,
        blockOf: (r: Row) => r.block, fetch: api.fetch
      }))
      expect(Either.getOrThrow(result)).toEqual(all)
    }))

  it.effect("a block holding the whole window fails with DenseBlockError naming it, after the rows before it", () =>
    Effect.gen(function*() {
      const all = rowsOf([[5, 3], [6, 100], [7, 2]])
      const api = model(all, 10, 100)
      const seen: Array<Row> = []
      const result = yield* BlockCursor.rows({
        ...where, fromBlock: 0, toBlock: 10, rowsPerRequest: 10, window: 100,
        blockOf: (r: Row) => r.block, fetch: api.fetch
      }).pipe(Stream.runForEach((r) => Effect.sync(() => seen.push(r))), Effect.flip)
      expect(result._tag).toBe("DenseBlockError")
      expect(result.message).toContain("block 6")
      expect(seen).toEqual(all.filter((r) => r.block === 5))
    }))

  it.effect.prop(
    "splits the block range on query timeouts and still emits every row once",
    [distribution(10, 30)],
    ([dist]) =>
      Effect.gen(function*() {
        const all = rowsOf(dist)
        const api = model(all, 10, 100, 35)
        const result = yield* run(BlockCursor.rows({
          ...where, fromBlock: 0, toBlock: 5_000, rowsPerRequest: 10, window: 100,
          blockOf: (r: Row) => r.block, fetch: api.fetch
        }))
        expect(Either.getOrThrow(result)).toEqual(all)
      }),
    { fastCheck: { numRuns: 100 } }
  )

  it.effect("a single block that still times out fails with QueryTimeoutError", () =>
    Effect.gen(function*() {
      const api = model(rowsOf([[5, 50]]), 10, 100, 35)
      const error = yield* BlockCursor.rows({
        ...where, fromBlock: 0, toBlock: 10, rowsPerRequest: 10, window: 100,
        blockOf: (r: Row) => r.block, fetch: api.fetch
      }).pipe(Stream.runDrain, Effect.flip)
      expect(error._tag).toBe("QueryTimeoutError")
    }))

  it.effect("batches end on complete blocks and report progress through empty stretches", () =>
    Effect.gen(function*() {
      const all = rowsOf([[3, 4], [4, 8], [900, 1]])
      const api = model(all, 10, 100)
      const progress = yield* Progress.make("logs", 1)
      const batches = yield* Stream.runCollect(BlockCursor.batches({
        ...where, fromBlock: 0, toBlock: 1_000, rowsPerRequest: 10, window: 100,
        blockOf: (r: Row) => r.block, fetch: api.fetch, progress
      })).pipe(Effect.map(Chunk.toReadonlyArray))
      expect(batches.map((b) => b.completeThrough)).toEqual([3, 1_000])
      expect(batches.flatMap((b) => b.rows)).toEqual(all)
      const last = yield* progress.get
      expect(last).toMatchObject({ rows: 13, pages: 2, calls: 2, completeThrough: 1_000, targetBlock: 1_000, completeness: "complete" })
      expect(Progress.fraction(last)).toBe(1)
    }))

  it.effect("refuses an answer out of block order instead of emitting it", () =>
    Effect.gen(function*() {
      const error = yield* BlockCursor.rows({
        ...where, fromBlock: 0, toBlock: 10, rowsPerRequest: 10, window: 100,
        blockOf: (r: Row) => r.block,
        fetch: () => Effect.succeed([{ block: 5, id: 0 }, { block: 4, id: 1 }])
      }).pipe(Stream.runDrain, Effect.flip)
      expect(error._tag).toBe("DecodeError")
    }))
})

describe("page number engine", () => {
  const pages = (total: number) => {
    let calls = 0
    const fetch = (page: number, offset: number) =>
      Effect.suspend((): Effect.Effect<ReadonlyArray<number>, ResultWindowError> => {
        calls++
        if (page * offset > 100) return Effect.fail(new ResultWindowError({ ...where, detail: "window" }))
        const start = (page - 1) * offset
        return Effect.succeed(Array.from({ length: Math.max(0, Math.min(offset, total - start)) }, (_, i) => start + i))
      })
    return { fetch, calls: () => calls }
  }

  it.effect.prop("delivers every row of lists within the window", [fc.integer({ min: 0, max: 99 })], ([total]) =>
    Effect.gen(function*() {
      const api = pages(total)
      const result = yield* run(PageNumbers.rows({ ...where, offset: 10, window: 100, fetch: api.fetch }))
      expect(Either.getOrThrow(result)).toEqual(Array.from({ length: total }, (_, i) => i))
      expect(api.calls()).toBe(Math.floor(total / 10) + 1)
    }))

  it.effect("a list past the window fails with ResultWindowError unless partial results are allowed", () =>
    Effect.gen(function*() {
      const failed = yield* PageNumbers.rows({ ...where, offset: 10, window: 100, fetch: pages(250).fetch }).pipe(
        Stream.runDrain,
        Effect.flip
      )
      expect(failed._tag).toBe("ResultWindowError")
      expect(failed.message).toContain("after 100 rows")

      const progress = yield* Progress.make("tokenHolders", 1)
      const partial = yield* Stream.runCollect(
        PageNumbers.rows({ ...where, offset: 10, window: 100, fetch: pages(250).fetch, allowPartial: true, progress })
      )
      expect(Chunk.size(partial)).toBe(100)
      expect(yield* progress.get).toMatchObject({ completeness: "truncated", rows: 100 })
    }))
})
