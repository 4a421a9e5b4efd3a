/**
 * A pipeline runs its targets at once (`PipelineContext.concurrency`), its exports sharing the
 * client's partition pool, against a simulator that answers late: the wallets' exports overlap in time,
 * and every file is the one a pipeline running its targets one after another writes.
 */
import { FileSystem, Path } from "@effect/platform"
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import walletHistory from "../../pipelines/wallet-history.js"
import * as Client from "../../src/ExplorerClient.js"
import type { ExportSummary } from "../../src/Exports.js"
import * as Pipeline from "../../src/Pipeline.js"
import * as Simulator from "../../src/simulator/index.js"

const TestLayer = Layer.unwrapEffect(
  Effect.map(Simulator.Simulator, (sim) =>
    Client.layer({ baseUrl: sim.baseUrl, apiKey: Redacted.make(sim.demoKeys.proplus), plan: "proplus" }))
).pipe(
  Layer.provideMerge(Simulator.layer({ faults: { latency: { fixedMs: 60 } } })),
  Layer.provideMerge(NodeHttpClient.layerUndici),
  Layer.provideMerge(NodeContext.layer)
)

layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("pipelines run their targets at once", (it) => {
  it.effect("wallet-history over four wallets: exports overlap, files equal the one-at-a-time run", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const root = yield* fs.makeTempDirectoryScoped({ prefix: "pipeline-concurrency-" })
      const chain = sim.dataset.chain(1)
      const config = {
        chainId: 1,
        fromBlock: 0,
        wallets: chain.wallets.slice(0, 4).map((w) => ({ name: w.name, address: w.address }))
      }
      const quiet = { config, quiet: true }
      const together = yield* Pipeline.run(walletHistory, config, { ...quiet, outDir: path.join(root, "together"), concurrency: 4 })
      const alone = yield* Pipeline.run(walletHistory, config, { ...quiet, outDir: path.join(root, "alone"), concurrency: 1 })
      expect(together.map((s) => path.relative(path.join(root, "together"), s.out)))
        .toEqual(alone.map((s) => path.relative(path.join(root, "alone"), s.out)))
      for (const [i, s] of together.entries()) {
        expect(yield* fs.readFileString(s.out)).toBe(yield* fs.readFileString(alone[i]?.out ?? ""))
      }
      // When each wallet's exports ran: from the first one's start to the last one's end.
      const spanOf = (summaries: ReadonlyArray<ExportSummary>, wallet: string) => {
        const mine = summaries.filter((s) => s.out.includes(`${path.sep}${wallet}${path.sep}`))
        const ends = mine.map((s) => Date.parse(s.manifest.createdAt))
        const starts = mine.map((s, j) => (ends[j] ?? 0) - s.manifest.durationMs)
        return { start: Math.min(...starts), end: Math.max(...ends) }
      }
      const spans = config.wallets.map((w) => spanOf(together, w.name))
      const overlapping = spans.some((a, i) => spans.some((b, j) => i !== j && a.start < b.end && b.start < a.end))
      expect(overlapping).toBe(true)
      const sequential = config.wallets.map((w) => spanOf(alone, w.name))
      for (let i = 1; i < sequential.length; i++) {
        expect(sequential[i]?.start ?? 0).toBeGreaterThanOrEqual((sequential[i - 1]?.end ?? 0) - 5)
      }
    }).pipe(Effect.scoped))
})
