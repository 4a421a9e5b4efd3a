/**
 * Partitioned exports (sinks/Partitioned.ts) through `Exports.toFile`, against an in-memory model of
 * the API's paging rules that answers after a random real pause, so partitions interleave: the file is
 * byte-identical to the one-cursor export for any rows-per-block shape, an export interrupted at any
 * moment resumes to the same bytes, and dense blocks still fail with `DenseBlockError`.
 */
import { FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, FastCheck as fc, Fiber, Option, Schedule, Schema, Stream } from "effect"
import { BlockCursor, Exports, ExplorerError, Sources } from "explorer-etl"
import * as Checkpoint from "../../src/sinks/Checkpoint.js"
import * as Partitions from "../../src/streams/engine/Partitions.js"

const Row = Schema.Struct({ blockNumber: Schema.Number, id: Schema.Number, data: Schema.String })
type Row = typeof Row.Type

const where = { chainId: 1, module: "logs", action: "getLogs" }

/** Rows of a [gap, rows-in-block] shape, from block 100 on. */
const rowsOf = (shape: ReadonlyArray<readonly [number, number]>): Array<Row> => {
  const out: Array<Row> = []
  let block = 100
  for (const [gap, count] of shape) {
    block += gap + 1
    for (let i = 0; i < count; i++) out.push({ blockNumber: block, id: out.length, data: `r${out.length}-${"x".repeat(out.length % 7)}` })
  }
  return out
}

/** The API's paging rules (cap, window, ascending order) over `all`, answering after 0–`pauseMs` ms. */
const model = (all: ReadonlyArray<Row>, cap: number, window: number, pauseMs: number) => {
  const stats = { calls: 0, inFlight: 0, maxInFlight: 0 }
  const fetch = (r: BlockCursor.BlockPageRequest) =>
    Effect.gen(function*() {
      stats.calls++
      stats.inFlight++
      stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight)
      yield* Effect.sleep(Math.floor(Math.random() * (pauseMs + 1)))
      stats.inFlight--
      if (r.page * r.offset > window) {
        return yield* new ExplorerError.ResultWindowError({ ...where, window, detail: "Result window is too large" })
      }
      const inRange = all.filter((row) => row.blockNumber >= r.fromBlock && row.blockNumber <= r.toBlock)
      const start = (r.page - 1) * r.offset
      return inRange.slice(start, start + Math.min(r.offset, cap))
    })
  return { fetch, stats }
}

/**
 * The chain's head `head`, answered once the model has a page request (or after 5 s without one: an
 * export that waited for the head before its first page has then sent none), with the calls made by then.
 */
const headAfterFirstPage = (api: ReturnType<typeof model>, head: number) =>
  Effect.gen(function*() {
    const since = Date.now()
    while (api.stats.calls === 0 && Date.now() - since < 5_000) yield* Effect.sleep(5)
    yield* Effect.sleep(20)
    return { head, callsBefore: api.stats.calls }
  })

/** A block-ordered source over the model that reads in parallel (it honours the bound). */
const source = (
  api: ReturnType<typeof model>,
  toBlock: number | "latest",
  cap: number,
  window: number,
  parallel: { readonly callsPerSecond: number; readonly pool?: Partitions.Pool; readonly pagesPerQuery?: number } = {
    callsPerSecond: 1_000
  },
  /** Counts the partitions being read (streams running), across every source given it. */
  partitions: { now: number; most: number } = { now: 0, most: 0 },
  latestBlock: Effect.Effect<number, ExplorerError.ExplorerError> = Effect.succeed(toBlock === "latest" ? 1_000_000 : toBlock + 10)
) =>
  Sources.fromBlocks({
    dataset: "rows",
    chainId: 1,
    plan: "standard",
    query: { test: "partitions" },
    schema: Row,
    fromBlock: 0,
    toBlock,
    latestBlock,
    // A made-up rate and latency: Little's law then asks for more partitions than `concurrency` allows.
    parallel: { ...parallel, rowsPerCall: cap },
    batches: (range, options) =>
      BlockCursor.batches({
        ...where,
        fromBlock: range.fromBlock,
        toBlock: range.toBlock,
        rowsPerRequest: cap,
        window,
        blockOf: (row: Row) => row.blockNumber,
        fetch: (r) => Effect.tap(api.fetch(r), () => Effect.sync(() => options.onAnswer?.(50))),
        bound: options.bound
      }).pipe(
        Stream.onStart(Effect.sync(() => {
          partitions.now++
          partitions.most = Math.max(partitions.most, partitions.now)
        })),
        Stream.ensuring(Effect.sync(() => void partitions.now--))
      )
  })

/** Shapes with empty stretches, single rows, page-sized and dense blocks (below the window of 100). */
const shape = fc.array(
  fc.tuple(
    fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 3_000 })),
    fc.oneof(fc.integer({ min: 1, max: 4 }), fc.constant(10), fc.constant(11), fc.integer({ min: 1, max: 60 }))
  ),
  { minLength: 1, maxLength: 60 }
)

const quiet = { quiet: true } as const

const exportTo = <E>(folder: string, name: string, src: Sources.Source<Row, Row, E>, options: Partial<Exports.ToFileOptions>) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const out = path.join(folder, name)
    const summary = yield* Exports.toFile(src, { out, ...quiet, ...options })
    const fs = yield* FileSystem.FileSystem
    return { summary, text: yield* fs.readFileString(out), out }
  })

describe("partitioned exports", () => {
  it.live.prop(
    "write the same bytes as one cursor, for any rows-per-block shape and any number of partitions",
    [shape, fc.integer({ min: 2, max: 8 }), fc.constantFrom("csv", "jsonl"), fc.constantFrom(1, 10)],
    ([dist, concurrency, format, pagesPerQuery]) =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const folder = yield* fs.makeTempDirectory({ prefix: "partitioned-" })
        const all = rowsOf(dist)
        const toBlock = (all.at(-1)?.blockNumber ?? 100) + 50
        const one = yield* exportTo(folder, `one.${format}`, source(model(all, 10, 100, 0), toBlock, 10, 100), { concurrency: 1 })
        const api = model(all, 10, 100, 3)
        // pagesPerQuery 10: the window (100) holds ten pages of a query, asked together (Bound.ahead).
        const many = yield* exportTo(folder, `many.${format}`,
          source(api, toBlock, 10, 100, { callsPerSecond: 1_000, pagesPerQuery }), { concurrency })
        expect(many.text).toBe(one.text)
        expect(many.summary.manifest.rows).toBe(all.length)
        expect(many.summary.manifest.contentHash).toBe(one.summary.manifest.contentHash)
        expect(api.stats.maxInFlight).toBeLessThanOrEqual(pagesPerQuery === 1 ? concurrency * 2 : concurrency * 11)
        // Nothing is left beside the file: no spool, no partial.
        expect((yield* fs.readDirectory(folder)).filter((n) => n.startsWith("."))).toEqual([])
        yield* fs.remove(folder, { recursive: true })
      }).pipe(Effect.provide(NodeContext.layer)),
    { fastCheck: { numRuns: 40 } }
  )

  it.live("read several ranges at once when the data is dense enough, and cut none when one page holds it", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const folder = yield* fs.makeTempDirectory({ prefix: "partitioned-" })
      const dense = rowsOf(Array.from({ length: 400 }, () => [3, 5] as const))
      const alone = model(dense, 10, 100, 0)
      yield* exportTo(folder, "alone.csv", source(alone, 3_000, 10, 100), { concurrency: 1 })
      const api = model(dense, 10, 100, 4)
      yield* exportTo(folder, "dense.csv", source(api, 3_000, 10, 100), { concurrency: 6 })
      expect(api.stats.maxInFlight).toBeGreaterThan(3)
      // A cut costs about one short page: the calls stay close to one cursor's.
      expect(api.stats.calls).toBeLessThan(alone.stats.calls * 1.25 + 6)
      const sparse = rowsOf([[5, 3], [900, 4]])
      const one = model(sparse, 10, 100, 4)
      yield* exportTo(folder, "sparse.csv", source(one, 3_000, 10, 100), { concurrency: 6 })
      expect(one.stats.calls).toBe(1)
      yield* fs.remove(folder, { recursive: true })
    }).pipe(Effect.provide(NodeContext.layer)))

  it.live.prop(
    "interrupted at any moment, resume ends with the same bytes",
    [shape, fc.integer({ min: 2, max: 6 }), fc.integer({ min: 0, max: 60 }), fc.constantFrom(1, 10)],
    ([dist, concurrency, afterMs, pagesPerQuery]) =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const folder = yield* fs.makeTempDirectory({ prefix: "partitioned-" })
        const all = rowsOf(dist)
        const toBlock = (all.at(-1)?.blockNumber ?? 100) + 50
        const one = yield* exportTo(folder, "one.csv", source(model(all, 10, 100, 0), toBlock, 10, 100), { concurrency: 1 })
        const out = path.join(folder, "cut.csv")
        const parallel = { callsPerSecond: 1_000, pagesPerQuery }
        const fiber = yield* Effect.fork(Exports.toFile(source(model(all, 10, 100, 3), toBlock, 10, 100, parallel), { out, concurrency, ...quiet }))
        yield* Effect.sleep(afterMs)
        yield* Fiber.interrupt(fiber)
        const resumed = yield* exportTo(folder, "cut.csv", source(model(all, 10, 100, 3), toBlock, 10, 100, parallel), {
          concurrency,
          resume: true
        })
        expect(resumed.text).toBe(one.text)
        expect(resumed.summary.manifest.rows).toBe(all.length)
        expect((yield* fs.readDirectory(folder)).filter((n) => n.startsWith("."))).toEqual([])
        yield* fs.remove(folder, { recursive: true })
      }).pipe(Effect.provide(NodeContext.layer)),
    { fastCheck: { numRuns: 25 } }
  )

  it.live("a checkpoint names every partition's range, position and spool, and resume continues each", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const folder = yield* fs.makeTempDirectory({ prefix: "partitioned-" })
      const all = rowsOf(Array.from({ length: 300 }, (_, i) => [2, 1 + (i % 9)] as const))
      const toBlock = (all.at(-1)?.blockNumber ?? 0) + 5
      const out = path.join(folder, "logs.jsonl")
      const decode = Schema.decodeUnknownOption(Schema.parseJson(Checkpoint.State))
      const spooled = (found: Option.Option<Checkpoint.State>) =>
        Option.isSome(found) && (found.value.partitions ?? []).some((p) => p.spoolBytes > 0)
      const readState = Effect.map(fs.readFileString(Checkpoint.statePath(out)).pipe(Effect.option), Option.flatMap(decode))
      let state: Checkpoint.State | undefined
      // Interrupted once a checkpoint names partitions whose spools hold rows; the checkpoint looked at
      // is the last one, written as the export stops (one read before may already be replaced, its
      // spools merged and removed). Again from the start if that one names no spooled partition.
      for (let attempt = 0; state === undefined && attempt < 10; attempt++) {
        yield* fs.remove(folder, { recursive: true }).pipe(Effect.zipRight(fs.makeDirectory(folder)))
        const fiber = yield* Effect.fork(
          Exports.toFile(source(model(all, 10, 100, 6), toBlock, 10, 100), { out, concurrency: 4, ...quiet })
        )
        while (!spooled(yield* readState)) yield* Effect.sleep(5)
        yield* Fiber.interrupt(fiber)
        const last = yield* readState
        if (spooled(last) && Option.isSome(last)) state = last.value
      }
      if (state === undefined) throw new Error("no checkpoint with spooled partitions after 10 interrupted exports")
      const partitions = state.partitions ?? []
      // Ascending, contiguous, each after the file's own position.
      expect(partitions[0]?.fromBlock).toBeGreaterThan(state.completeThrough)
      for (const [i, p] of partitions.entries()) {
        expect(p.completeThrough).toBeGreaterThanOrEqual(p.fromBlock - 1)
        expect(p.completeThrough).toBeLessThanOrEqual(p.toBlock)
        if (i > 0) expect(p.fromBlock).toBe((partitions[i - 1]?.toBlock ?? 0) + 1)
        const spool = path.join(folder, p.spoolFile)
        expect(Number((yield* fs.stat(spool)).size)).toBeGreaterThanOrEqual(p.spoolBytes)
        expect(p.rows).toBe(all.filter((r) => r.blockNumber >= p.fromBlock && r.blockNumber <= p.completeThrough).length)
      }
      const resumed = yield* Exports.toFile(source(model(all, 10, 100, 2), toBlock, 10, 100), { out, resume: true, concurrency: 4, ...quiet })
      expect(resumed.mode).toBe("resumed")
      const one = yield* exportTo(folder, "one.jsonl", source(model(all, 10, 100, 0), toBlock, 10, 100), { concurrency: 1 })
      expect(yield* fs.readFileString(out)).toBe(one.text)
      yield* fs.remove(folder, { recursive: true })
    }).pipe(Effect.provide(NodeContext.layer)))

  it.live("exports of one key at once share its pool: together they read about as many partitions as one", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const folder = yield* fs.makeTempDirectory({ prefix: "partitioned-" })
      const all = rowsOf(Array.from({ length: 400 }, () => [3, 5] as const))
      const toBlock = (all.at(-1)?.blockNumber ?? 0) + 5
      const one = yield* exportTo(folder, "one.csv", source(model(all, 10, 100, 0), toBlock, 10, 100), { concurrency: 1 })
      // 40 calls/s at 50 ms: Little's law asks for 3 partitions in all.
      const pool = Partitions.pool()
      const partitions = { now: 0, most: 0 }
      const [a, b] = yield* Effect.all([
        exportTo(folder, "a.csv", source(model(all, 10, 100, 3), toBlock, 10, 100, { callsPerSecond: 40, pool }, partitions), {}),
        exportTo(folder, "b.csv", source(model(all, 10, 100, 3), toBlock, 10, 100, { callsPerSecond: 40, pool }, partitions), {})
      ], { concurrency: 2 })
      expect(a.text).toBe(one.text)
      expect(b.text).toBe(one.text)
      expect(partitions.most).toBeGreaterThanOrEqual(2)
      // The target, plus at most one export's first partition started while the others were at it
      // (each export alone would read 3).
      expect(partitions.most).toBeLessThanOrEqual(4)
      expect(pool.running).toBe(0)
      yield* fs.remove(folder, { recursive: true })
    }).pipe(Effect.provide(NodeContext.layer)))

  it.live.prop(
    "with a fixed end, the chain's head is asked while the first page is on the wire, and a lower head still ends the file there",
    [shape, fc.integer({ min: 1, max: 6 }), fc.integer({ min: -200, max: 200 }), fc.integer({ min: 0, max: 12 })],
    ([dist, concurrency, headOffset, confirmations]) =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const folder = yield* fs.makeTempDirectory({ prefix: "partitioned-" })
        const all = rowsOf(dist)
        const toBlock = (all.at(-1)?.blockNumber ?? 100) + 50
        // The head may be past the end or well before it (then the file ends at head − confirmations ≥ 0).
        const head = Math.max(confirmations, toBlock + headOffset)
        const target = Math.min(toBlock, head - confirmations)
        const expected = yield* exportTo(folder, "expected.csv", source(model(all, 10, 100, 0), target, 10, 100), { concurrency: 1 })
        const api = model(all, 10, 100, 3)
        let callsBeforeHead = -1
        // The head answers once a page has gone out (or after 5 s: an export that waited for the head
        // before its first page has then sent none). A fixed 150 ms failed on a loaded machine, where
        // the export's set-up alone took longer.
        const latest = Effect.map(headAfterFirstPage(api, head), (answered) => {
          callsBeforeHead = answered.callsBefore
          return answered.head
        })
        const got = yield* exportTo(folder, "got.csv", source(api, toBlock, 10, 100, undefined, undefined, latest), {
          concurrency,
          confirmations
        })
        expect(got.text).toBe(expected.text)
        expect(got.summary.manifest.blockRange?.to).toBe(target)
        expect(got.summary.manifest.completeness.status).toBe(target < toBlock ? "truncated" : "complete")
        // The first page went out before the head answered.
        if (target >= 0) expect(callsBeforeHead).toBeGreaterThanOrEqual(1)
        expect((yield* fs.readDirectory(folder)).filter((n) => n.startsWith("."))).toEqual([])
        yield* fs.remove(folder, { recursive: true })
      }).pipe(Effect.provide(NodeContext.layer)),
    { fastCheck: { numRuns: 30 } }
  )

  it.live.prop(
    "with an open end, the first page asks to the documented end block while the head is asked, and the file ends at the head",
    [shape, fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 3_000 }), fc.integer({ min: 0, max: 12 })],
    ([dist, concurrency, headAt, confirmations]) =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const folder = yield* fs.makeTempDirectory({ prefix: "partitioned-" })
        const all = rowsOf(dist)
        const target = headAt - confirmations
        const expected = yield* exportTo(folder, "expected.csv", source(model(all, 10, 100, 0), Math.max(target, 0), 10, 100), {
          concurrency: 1
        })
        const api = model(all, 10, 100, 3)
        const asked: Array<number> = []
        const recorded = {
          ...api,
          fetch: (r: BlockCursor.BlockPageRequest) => Effect.zipRight(Effect.sync(() => void asked.push(r.toBlock)), api.fetch(r))
        }
        let callsBeforeHead = -1
        const latest = Effect.map(headAfterFirstPage(api, headAt), (answered) => {
          callsBeforeHead = answered.callsBefore
          return answered.head
        })
        const got = yield* exportTo(folder, "got.csv", source(recorded, "latest", 10, 100, undefined, undefined, latest), {
          concurrency,
          confirmations
        })
        if (target >= 0) {
          expect(got.text).toBe(expected.text)
          expect(got.summary.manifest.blockRange?.to).toBe(target)
        } else {
          // The head is before the first block: nothing is final yet.
          expect(got.summary.manifest.rows).toBe(0)
        }
        expect(callsBeforeHead).toBeGreaterThanOrEqual(1)
        expect(asked[0]).toBe(BlockCursor.openEnd)
        expect((yield* fs.readDirectory(folder)).filter((n) => n.startsWith("."))).toEqual([])
        yield* fs.remove(folder, { recursive: true })
      }).pipe(Effect.provide(NodeContext.layer)),
    { fastCheck: { numRuns: 30 } }
  )

  it.live("a head that fails is the export's error, as when it is asked first", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const folder = yield* fs.makeTempDirectory({ prefix: "partitioned-" })
      const all = rowsOf(Array.from({ length: 50 }, () => [2, 3] as const))
      const rejected = new ExplorerError.InvalidApiKeyError({ ...where, detail: "Invalid API Key" })
      const latest = Effect.sleep(20).pipe(Effect.zipRight(Effect.fail(rejected)))
      const api = model(all, 10, 100, 2)
      const exit = yield* Effect.exit(exportTo(folder, "head.csv", source(api, 1_000, 10, 100, undefined, undefined, latest), {}))
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) expect(Option.getOrThrow(Cause.failureOption(exit.cause))).toBe(rejected)
      // Nothing was written before the head answered: no file.
      expect((yield* fs.readDirectory(folder)).filter((n) => n === "head.csv")).toEqual([])
      yield* fs.remove(folder, { recursive: true })
    }).pipe(Effect.provide(NodeContext.layer)))

  it.live("a process whose CPU cannot keep up reads fewer partitions than the latency asks for, and the same bytes", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const folder = yield* fs.makeTempDirectory({ prefix: "partitioned-" })
      const all = rowsOf(Array.from({ length: 1_500 }, () => [1, 2] as const))
      // Answers after 60 ms, each costing `burnMs` of synchronous work (parsing a large page).
      const run = (name: string, burnMs: number) =>
        Effect.gen(function*() {
          const api = model(all, 10, 100, 0)
          // Requests in flight or being parsed.
          const flight = { now: 0, most: 0 }
          const slow = {
            ...api,
            fetch: (r: BlockCursor.BlockPageRequest) =>
              Effect.sync(() => {
                flight.now++
                flight.most = Math.max(flight.most, flight.now)
              }).pipe(
                Effect.zipRight(Effect.sleep(60)),
                Effect.zipRight(api.fetch(r)),
                Effect.tap(() => {
                  const until = performance.now() + burnMs
                  while (performance.now() < until) { /* a page being parsed */ }
                }),
                Effect.ensuring(Effect.sync(() => void flight.now--))
              )
          }
          const late: Array<number> = []
          const sampler = yield* Effect.fork(Effect.repeat(Effect.sync(() => void late.push(flight.now)), { schedule: Schedule.spaced("100 millis") }))
          const started = performance.now()
          const done = yield* exportTo(folder, name, source(slow, 3_200, 10, 100, { callsPerSecond: 1_000 }), {})
          yield* Fiber.interrupt(sampler)
          const seconds = (performance.now() - started) / 1000
          // The requests in flight in the second half of the run.
          return { done, seconds, lateMost: Math.max(0, ...late.slice(Math.floor(late.length / 2))), most: flight.most }
        })
      const roomy = yield* run("roomy.csv", 0)
      const busy = yield* run("busy.csv", 25)
      expect(busy.done.text).toBe(roomy.done.text)
      // Latency alone (1,000 calls/s × 60 ms × 1.5): many requests at once.
      expect(roomy.most).toBeGreaterThan(15)
      // 25 ms of CPU an answer feeds at most 40 answers a second: 3–4 requests of 60 ms keep up; the
      // rest would only hold pages. Once the process saw itself saturated, its other partitions pause.
      expect(busy.seconds).toBeGreaterThan(3)
      expect(busy.lateMost).toBeLessThan(roomy.most / 2)
      expect(busy.lateMost).toBeLessThanOrEqual(8)
      yield* fs.remove(folder, { recursive: true })
    }).pipe(Effect.provide(NodeContext.layer)), 60_000)

  it.live("a block denser than the window fails with DenseBlockError, as with one cursor", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const folder = yield* fs.makeTempDirectory({ prefix: "partitioned-" })
      const all = rowsOf([...Array.from({ length: 100 }, () => [1, 5] as const), [3, 100], [1, 2]])
      const exit = yield* Effect.exit(exportTo(folder, "dense.csv", source(model(all, 10, 100, 2), 2_000, 10, 100), { concurrency: 4 }))
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) {
        const error = Option.getOrThrow(Cause.failureOption(exit.cause))
        expect((error as { readonly _tag: string })._tag).toBe("DenseBlockError")
      }
      yield* fs.remove(folder, { recursive: true })
    }).pipe(Effect.provide(NodeContext.layer)))
})
