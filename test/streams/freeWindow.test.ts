/**
 * The free plan's result window learned from the server. The facts leave it open (1,000 or 10,000);
 * the simulator is started with each (`freeWindow`), and a free client reads a block of 1,500
 * transactions — more than a page — through `Streams.transactions`: before declaring it too dense the
 * stream asks page 2 once; the server's answer settles the window for the key and is remembered (no
 * second probe). On 10,000 the rows equal the oracle; on 1,000 the block is a DenseBlockError.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, layer } from "@effect/vitest"
import { Chunk, Effect, Either, Layer, Redacted, Schema, Stream } from "effect"
import * as Client from "../../src/ExplorerClient.js"
import * as Schemas from "../../src/schemas/index.js"
import * as Simulator from "../../src/simulator/index.js"
import * as Streams from "../../src/streams/Streams.js"

/** Arbitrum One: free-tier, not populated here, so it holds only the planted rows. */
const CHAIN = 42161
const FROM = 2_000_000
const WALLET = "0x00000000000000000000000000000000000f0e01"
const OTHER = "0x00000000000000000000000000000000000f0e02"
const rowsPerBlock: ReadonlyArray<readonly [number, number]> = [[FROM + 1, 20], [FROM + 3, 1_500], [FROM + 9, 30]]

const simulatorWith = (freeWindow: 1_000 | 10_000) =>
  Simulator.layer({
    seed: 3,
    enforceRateLimits: false,
    dailyCaps: false,
    recordQueries: true,
    freeWindow,
    dataset: {
      chains: [],
      scenarios: [
        { chainId: CHAIN, kind: "txlist", address: WALLET, rowsPerBlock },
        { chainId: CHAIN, kind: "txlist", address: OTHER, rowsPerBlock: [[FROM + 2, 1_200]] }
      ]
    }
  })

/** The free demo key's client. */
const freeClient = Layer.unwrapEffect(
  Effect.map(Simulator.Simulator, (sim) =>
    Client.layer({
      baseUrl: sim.baseUrl,
      apiKey: Redacted.make(sim.demoKeys.free),
      plan: "free",
      defaultChainId: CHAIN,
      rate: { callsPerSecond: 1_000 }
    }))
).pipe(Layer.provide(NodeHttpClient.layerUndici))

const transactions = (address: string) =>
  Streams.transactions({ chainId: CHAIN, address, fromBlock: FROM, toBlock: FROM + 100 }).pipe(
    Stream.mapEffect(Schema.encode(Schemas.NormalTransaction)),
    Stream.runCollect,
    Effect.map(Chunk.toReadonlyArray),
    Effect.either
  )

/** The queries of the free key since the last reset that asked for page 2 or more. */
const laterPages = Effect.gen(function*() {
  const sim = yield* Simulator.Simulator
  const queries = (yield* sim.stats).queriesByKey[Simulator.keyFingerprint(sim.demoKeys.free)] ?? []
  return queries.filter((q) => /(^|&)page=([2-9]|\d\d)/.test(q))
})

describe("the free plan's result window, learned from the server", () => {
  layer(Layer.provideMerge(freeClient, simulatorWith(10_000)), { timeout: "60 seconds", excludeTestServices: true })("window 10,000", (it) => {
    it.effect("the dense block is read whole: page 2 asked once, its rows kept; the window is remembered for the key", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* Client.ExplorerClient
        expect(yield* client.resultWindow("txlist")).toEqual({ rows: 1_000, source: "assumed" })
        yield* sim.resetStats
        const result = yield* transactions(WALLET)
        const expected = yield* sim.oracle({ chainId: CHAIN, module: "account", action: "txlist", params: { address: WALLET } })
        expect(expected).toHaveLength(1_550)
        expect(Either.getOrThrow(result)).toEqual(expected)
        // The probe is the only page-2 request: its rows were not asked again.
        expect((yield* laterPages).filter((q) => q.includes(`address=${WALLET}`))).toHaveLength(1)
        expect(yield* client.resultWindow("txlist")).toEqual({ rows: 10_000, source: "server" })
        expect(yield* client.resultWindow("getLogs")).toEqual({ rows: 10_000, source: "server" })

        // Settled: another dense block pages on at once, as within a known window.
        yield* sim.resetStats
        const other = yield* transactions(OTHER)
        expect(Either.getOrThrow(other)).toHaveLength(1_200)
        expect(yield* laterPages).toHaveLength(1)
        // And a page past 1,000 is no longer refused before it is sent.
        expect(yield* client.txlist({ address: OTHER, page: 2, offset: 1_000 })).toHaveLength(200)
      }))
  })

  layer(Layer.provideMerge(freeClient, simulatorWith(1_000)), { timeout: "60 seconds", excludeTestServices: true })("window 1,000", (it) => {
    it.effect("the server's refusal of page 2 settles 1,000: DenseBlockError, and no second probe", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* Client.ExplorerClient
        yield* sim.resetStats
        const first = yield* transactions(WALLET)
        const error = Either.flip(first).pipe(Either.getOrThrow)
        expect(error._tag).toBe("DenseBlockError")
        expect(error.message).toContain(`block ${FROM + 3}`)
        expect(error.message).toContain("1000 rows")
        expect(yield* laterPages).toHaveLength(1)
        expect(yield* client.resultWindow("txlist")).toEqual({ rows: 1_000, source: "server" })

        yield* sim.resetStats
        const again = yield* transactions(OTHER)
        expect(Either.flip(again).pipe(Either.getOrThrow)._tag).toBe("DenseBlockError")
        expect(yield* laterPages).toHaveLength(0)
        // Outside a stream the client still refuses page 2 before sending it.
        const refused = yield* Effect.flip(client.txlist({ address: OTHER, page: 2, offset: 1_000 }))
        expect(refused._tag).toBe("InvalidInputError")
      }))
  })
})
