/**
 * `Streams.logs` read through the paging engine's scheduler, as a notebook-style script collects it:
 * the simulator's bursty 50,000-log set (quiet stretches, then runs of blocks of 100–1,500 logs) on the
 * standard plan, 300–600 ms away with the plan's windows enforced. The rows are exactly the ones one
 * cursor reads (the oracle's, in order), more than one request is on the wire at once, and the windows
 * refuse none. (How fast, against the plan's limit: bench/shapes.ts and bench/engine.ts.)
 */
import { HttpClient } from "@effect/platform"
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { describe, expect, layer } from "@effect/vitest"
import { Chunk, Effect, Layer, Redacted, Schema, Stream } from "effect"
import * as Client from "../../src/ExplorerClient.js"
import * as Schemas from "../../src/schemas/index.js"
import * as Simulator from "../../src/simulator/index.js"
import * as Progress from "../../src/streams/Progress.js"
import * as Streams from "../../src/streams/Streams.js"

const SimulatorLive = Simulator.layer({
  seed: 5,
  dailyCaps: false,
  dataset: { chains: [1], busyWalletTransactions: 0, heavyContractLogs: 0 },
  faults: { latency: { fixedMs: 300, jitterMs: 300 } }
})

const toWire = Schema.encodeSync(Schemas.Log as unknown as Schema.Schema<unknown, unknown>)
const key = (record: unknown) => {
  const r = record as { blockNumber: string; logIndex: string; transactionHash: string }
  return `${r.blockNumber}/${r.logIndex}/${r.transactionHash}`
}

layer(Layer.mergeAll(SimulatorLive, NodeContext.layer), { timeout: "180 seconds", excludeTestServices: true })((it) => {
  describe("Streams through the engine", () => {
    it.effect("a bursty 50,000-log query on standard, 300-600 ms away: the one-cursor rows, several requests in flight, none refused", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const set = sim.dataset.chain(1).shapes.find((s) => s.name === "bursty-standard-5s")
        if (set === undefined) throw new Error("no bursty-standard-5s set")
        // Requests on the wire at once, counted where the client sends them.
        const wire = { now: 0, most: 0 }
        const Counted = Layer.effect(
          HttpClient.HttpClient,
          Effect.map(HttpClient.HttpClient, (client) =>
            HttpClient.transform(client, (effect) =>
              Effect.acquireUseRelease(
                Effect.sync(() => {
                  wire.now++
                  wire.most = Math.max(wire.most, wire.now)
                }),
                () => effect,
                () => Effect.sync(() => void wire.now--)
              )))
        ).pipe(Layer.provide(NodeHttpClient.layerUndici))
        const ClientLive = Client.layer({ apiKey: Redacted.make(sim.demoKeys.standard ?? ""), baseUrl: sim.baseUrl, plan: "standard" })
          .pipe(Layer.provide(Counted))
        const query = { chainId: 1, address: set.address, fromBlock: set.fromBlock, toBlock: set.toBlock }
        yield* sim.resetStats
        const progress = yield* Progress.make("logs", 1)
        const rows = yield* Stream.runCollect(Streams.logs(query, { progress })).pipe(Effect.provide(ClientLive))
        const oracle = yield* sim.oracle({
          chainId: 1,
          module: "logs",
          action: "getLogs",
          params: { address: set.address, fromblock: set.fromBlock, toblock: set.toBlock }
        })
        expect(set.rows).toBe(50_000)
        expect(Chunk.size(rows)).toBe(oracle.length)
        expect(Chunk.toReadonlyArray(rows).map((r) => key(toWire(r)))).toEqual(oracle.map(key))
        expect(wire.most).toBeGreaterThan(1)
        const stats = yield* sim.stats
        expect(stats.rateLimited).toBe(0)
        expect(yield* progress.get).toMatchObject({ rows: 50_000, completeness: "complete", completeThrough: set.toBlock })
      }))
  })
})
