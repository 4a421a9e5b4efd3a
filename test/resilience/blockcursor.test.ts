/**
 * Query timeouts on a one-block range. The block cursor splits a range that times out; a single block
 * cannot be split, so its request asks the fetch to retry ("retryQueryTimeout": the client's transient
 * retry policy) and the stream fails only once that is exhausted. With timeouts injected at random,
 * one-block ranges do time out: an export must still complete.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it, layer } from "@effect/vitest"
import { Chunk, Effect, Either, Layer, Schedule, Schema, Stream } from "effect"
import * as Client from "../../src/ExplorerClient.js"
import { QueryTimeoutError } from "../../src/ExplorerError.js"
import * as Schemas from "../../src/schemas/index.js"
import * as Simulator from "../../src/simulator/index.js"
import * as BlockCursor from "../../src/streams/engine/BlockCursor.js"
import * as Streams from "../../src/streams/Streams.js"
import { type Row, rowsOf, where } from "../streams/rows.js"
import { clientLayer, simulatorKeys } from "./helpers.js"

/**
 * The API's paging over fixed rows, where a range holding more than `timeoutAbove` rows times out, and
 * where the first request of every one-block range times out too (a busy moment), then passes. A fetch
 * asked to retry timeouts retries them, as the client does.
 */
const flakyApi = (all: ReadonlyArray<Row>, cap: number, timeoutAbove: number) => {
  const seen: Array<BlockCursor.BlockPageRequest> = []
  const timedOutOnce = new Set<string>()
  const attempt = (r: BlockCursor.BlockPageRequest) =>
    Effect.suspend((): Effect.Effect<ReadonlyArray<Row>, QueryTimeoutError> => {
      seen.push(r)
      const inRange = all.filter((row) => row.block >= r.fromBlock && row.block <= r.toBlock)
      const key = `${r.fromBlock}:${r.page}`
      const busy = r.fromBlock === r.toBlock && !timedOutOnce.has(key)
      if (busy) timedOutOnce.add(key)
      if (inRange.length > timeoutAbove || busy) {
        return Effect.fail(new QueryTimeoutError({ ...where, detail: "Query Timeout occured" }))
      }
      const start = (r.page - 1) * r.offset
      return Effect.succeed(inRange.slice(start, start + Math.min(r.offset, cap)))
    })
  const fetch = (r: BlockCursor.BlockPageRequest) =>
    r.retryQueryTimeout ? attempt(r).pipe(Effect.retry({ schedule: Schedule.recurs(3) })) : attempt(r)
  return { fetch, seen }
}

describe("block cursor: query timeouts on one block", () => {
  it.effect("splits wide ranges itself and asks the fetch to retry only one-block ranges", () =>
    Effect.gen(function*() {
      // Any two of blocks 49..51 together time out: the splits end on single blocks, whose first
      // request times out too, and is retried rather than split.
      const all = rowsOf([[10, 3], [49, 20], [50, 20], [51, 20], [90, 2]])
      const api = flakyApi(all, 100, 25)
      const result = yield* BlockCursor.rows({
        ...where, fromBlock: 0, toBlock: 100, rowsPerRequest: 100, window: 1_000,
        blockOf: (r: Row) => r.block, fetch: api.fetch
      }).pipe(Stream.runCollect, Effect.map(Chunk.toReadonlyArray))
      expect(result).toEqual(all)
      for (const r of api.seen) expect(r.retryQueryTimeout).toBe(r.fromBlock === r.toBlock)
      // The splits reached block 50 alone, which timed out once and was retried (not split, not failed).
      expect(api.seen.filter((r) => r.fromBlock === 50 && r.toBlock === 50).length).toBe(2)
      expect(api.seen.some((r) => r.fromBlock < r.toBlock && !r.retryQueryTimeout)).toBe(true)
    }))

  it.effect("without splitting, every request may retry", () =>
    Effect.gen(function*() {
      const all = rowsOf([[10, 3], [11, 4]])
      const api = flakyApi(all, 100, 1_000)
      const result = yield* BlockCursor.rows({
        ...where, fromBlock: 0, toBlock: 20, rowsPerRequest: 100, window: 1_000, splitOnTimeout: false,
        blockOf: (r: Row) => r.block, fetch: api.fetch
      }).pipe(Stream.runCollect, Effect.map(Chunk.toReadonlyArray))
      expect(result).toEqual(all)
      expect(api.seen.every((r) => r.retryQueryTimeout)).toBe(true)
    }))

  it.effect("a one-block range that keeps timing out fails with QueryTimeoutError once the retries are spent", () =>
    Effect.gen(function*() {
      const api = flakyApi(rowsOf([[5, 50]]), 100, 35)
      const error = yield* BlockCursor.rows({
        ...where, fromBlock: 0, toBlock: 10, rowsPerRequest: 100, window: 1_000,
        blockOf: (r: Row) => r.block, fetch: api.fetch
      }).pipe(Stream.runDrain, Effect.flip)
      expect(error._tag).toBe("QueryTimeoutError")
      // 1 + 3 attempts on block 5 alone, after the splits that led there.
      expect(api.seen.filter((r) => r.fromBlock === 5 && r.toBlock === 5).length).toBe(4)
    }))
})

const CHAIN = 42161
const BLOCK = 7_000_123
const CONTRACT = "0x00000000000000000000000000000000fa17b10c"

describe("block cursor through the client: random query timeouts on a one-block export", () => {
  const SimulatorLive = Simulator.layer({
    seed: 5,
    keys: simulatorKeys,
    enforceRateLimits: false,
    dailyCaps: false,
    dataset: { chains: [], scenarios: [{ chainId: CHAIN, kind: "logs", address: CONTRACT, rowsPerBlock: [[BLOCK, 1_500]] }] }
  })

  layer(SimulatorLive, { timeout: "60 seconds", excludeTestServices: true })((it) => {
    it.effect("the client retries the timeouts of a single block: every log once, as the oracle says", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const expected = yield* sim.oracle({ chainId: CHAIN, module: "logs", action: "getLogs", params: { address: CONTRACT } })
        expect(expected.length).toBe(1_500)
        let retried = 0
        for (let seed = 1; seed <= 8; seed++) {
          yield* sim.setFaults({ seed, rates: { queryTimeout: 0.5 } })
          const { rows, stats } = yield* Effect.gen(function*() {
            const client = yield* Client.ExplorerClient
            // One block, 1,500 logs: pages 1 and 2 inside it (standard plan, 1,000 logs a page).
            // One cursor: the block cursor's own retries, no pages asked ahead of an answer (a page asked
            // ahead and given up is not retried, though the server counted its timeout).
            const rows = yield* Streams.logs({ chainId: CHAIN, address: CONTRACT, fromBlock: BLOCK, toBlock: BLOCK }, { concurrency: 1 }).pipe(
              Stream.mapEffect(Schema.encode(Schemas.Log)),
              Stream.runCollect,
              Effect.either
            )
            return { rows, stats: yield* client.stats }
          }).pipe(Effect.provide(clientLayer(sim, "standard").pipe(Layer.provide(NodeHttpClient.layerUndici))))
          expect(Either.isRight(rows)).toBe(true)
          expect(Chunk.toReadonlyArray(Either.getOrThrow(rows))).toEqual(expected)
          retried += stats.retries
        }
        expect(retried).toBeGreaterThan(0)
        expect((yield* sim.stats).faults.queryTimeout).toBe(retried)
      }))
  })
})
