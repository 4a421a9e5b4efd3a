/**
 * Exports whose pages are made into lines by decoding worker threads (`workers`), against the
 * simulator, with real worker threads: the file is byte for byte the one the main thread alone
 * writes (`workers: 0`), its rows the oracle's in order, read by partitions with several pages in
 * flight; the pages did go through the workers (the client's counters say so); and a page that cannot
 * be decoded (a body cut short) fails the export with the very error it fails with in the main
 * thread, after which `resume` completes the file byte for byte.
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Exit, Layer, Metric, Redacted } from "effect"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Client from "../../src/ExplorerClient.js"
import * as Exports from "../../src/Exports.js"
import * as Simulator from "../../src/simulator/index.js"
import * as Sources from "../../src/streams/Sources.js"

const SimulatorLive = Simulator.layer({
  seed: 37,
  dailyCaps: false,
  enforceRateLimits: false,
  dataset: { chains: [1], busyWalletTransactions: 20_000, heavyContractLogs: 12_000 }
})

const dir = mkdtempSync(join(tmpdir(), "explorer-etl-workers-"))

/** A standard-plan client of the simulator, its limiter out of the way; `retries` per call. */
const clientOf = (sim: Simulator.Simulator["Type"], retries?: number) =>
  Client.layer({
    apiKey: Redacted.make(sim.demoKeys.standard ?? ""),
    baseUrl: sim.baseUrl,
    plan: "standard",
    rate: { callsPerSecond: 1_000, throttledPerSecond: 1_000 },
    ...(retries === undefined ? {} : { retry: { times: retries } })
  }).pipe(Layer.provide(NodeHttpClient.layerUndici))

const counted = Effect.all({
  pages: Metric.value(Client.metrics.workerPages),
  returns: Metric.value(Client.metrics.workerReturns)
})

const logsOf = (sim: Simulator.Simulator["Type"]) => {
  const c = sim.dataset.chain(1)
  return Sources.logs({ chainId: 1, address: c.heavyContract.address, fromBlock: c.activity.fromBlock, toBlock: c.latestBlock })
}

layer(Layer.mergeAll(SimulatorLive, NodeContext.layer), { timeout: "120 seconds", excludeTestServices: true })((it) => {
  describe("exports with decoding workers", () => {
    it.effect("several workers write the main thread's file byte for byte, rows in the oracle's order", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const c = sim.dataset.chain(1)
        const ClientLive = clientOf(sim)
        const logs = logsOf(sim)
        const txs = Sources.transactions({ chainId: 1, address: c.busyWallet.address, fromBlock: c.activity.fromBlock, toBlock: c.latestBlock })
        const cases: ReadonlyArray<readonly [string, Effect.Effect<Sources.Source<unknown, unknown>, unknown, Client.ExplorerClient>, number]> = [
          ["logs.csv", logs as Effect.Effect<Sources.Source<unknown, unknown>, unknown, Client.ExplorerClient>, 1_000],
          ["logs.jsonl", logs as Effect.Effect<Sources.Source<unknown, unknown>, unknown, Client.ExplorerClient>, 1_000],
          ["txs.csv", txs as Effect.Effect<Sources.Source<unknown, unknown>, unknown, Client.ExplorerClient>, 10_000]
        ]
        for (const [name, source, perPage] of cases) {
          const exported = (workers: number) =>
            Effect.flatMap(source, (s) => Exports.toFile(s, { out: join(dir, `w${workers}-${name}`), quiet: true, workers }))
              .pipe(Effect.provide(ClientLive))
          const before = yield* counted
          const many = yield* exported(3)
          const after = yield* counted
          const alone = yield* exported(0)
          const untouched = yield* counted
          // Every list answer went to a worker (all but the one for the latest block), the pages of rows
          // were made there (the empty answers of ranges past the rows come back); in the main thread alone, none.
          const pages = after.pages.count - before.pages.count
          expect(pages + after.returns.count - before.returns.count).toBeLessThanOrEqual(many.manifest.calls - 1)
          expect(pages).toBeGreaterThanOrEqual(Math.ceil(many.manifest.rows / perPage))
          expect(untouched.pages.count + untouched.returns.count).toBe(after.pages.count + after.returns.count)
          expect(many.manifest.rows).toBe(alone.manifest.rows)
          expect(many.manifest.contentHash).toBe(alone.manifest.contentHash)
          // (Buffer.equals: a deep equality of megabytes, byte by byte, takes the test runner a minute.)
          expect(readFileSync(join(dir, `w3-${name}`)).equals(readFileSync(join(dir, `w0-${name}`)))).toBe(true)
        }
        // In order: the JSONL rows are the oracle's, one by one.
        const oracle = yield* sim.oracle({
          chainId: 1,
          module: "logs",
          action: "getLogs",
          params: { address: c.heavyContract.address, fromblock: c.activity.fromBlock, toblock: c.latestBlock }
        })
        const lines = readFileSync(join(dir, "w3-logs.jsonl"), "utf8").trimEnd().split("\n").map((l) =>
          JSON.parse(l) as { blockNumber: string; logIndex: string; transactionHash: string }
        )
        expect(oracle.length).toBe(12_000)
        expect(lines.map((r) => `${r.blockNumber}/${r.logIndex}/${r.transactionHash}`)).toEqual(
          oracle.map((o) => {
            const r = o as { blockNumber: string; logIndex: string; transactionHash: string }
            return `${Number(r.blockNumber)}/${Number(r.logIndex)}/${r.transactionHash}`
          })
        )
      }))

    it.effect("a page cut short fails the export as in the main thread (the same error); resume completes the file", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        // The chain's head given, not asked: that call's query holds the time, and so would its fault's draw.
        const logs = Effect.map(logsOf(sim), (source) => ({ ...source, latestBlock: () => Effect.succeed(sim.dataset.chain(1).latestBlock) }))
        // No retries: the first answer cut short ends the export. One cursor: the same pages in the same order.
        const Failing = clientOf(sim, 0)
        const faults = { seed: 3, rates: { truncated: 0.25 } }
        const run = (workers: number) =>
          Effect.gen(function*() {
            yield* sim.setFaults(faults)
            const out = join(dir, `cut-${workers}.csv`)
            const before = yield* counted
            const exit = yield* Effect.exit(
              Effect.flatMap(logs, (s) => Exports.toFile(s, { out, quiet: true, workers, concurrency: 1 })).pipe(Effect.provide(Failing))
            )
            const after = yield* counted
            return { out, exit, pages: after.pages.count - before.pages.count, returns: after.returns.count - before.returns.count }
          })
        const alone = yield* run(0)
        const many = yield* run(3)
        expect(Exit.isFailure(alone.exit) && Exit.isFailure(many.exit)).toBe(true)
        const errorOf = (exit: Exit.Exit<unknown, unknown>) =>
          Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : exit
        // The error the main thread gives the page cut short, the very same with workers.
        expect(errorOf(many.exit)).toEqual(errorOf(alone.exit))
        expect(errorOf(many.exit)).toMatchObject({ _tag: "DecodeError", transient: true, module: "logs", action: "getLogs" })
        // The workers made the pages before it and gave the cut one back to the main thread, which failed on it.
        expect(many.pages).toBeGreaterThan(0)
        expect(many.returns).toBe(1)
        expect(alone.pages + alone.returns).toBe(0)

        yield* sim.setFaults({})
        const ClientLive = clientOf(sim)
        const resumed = yield* Effect.flatMap(logs, (s) => Exports.toFile(s, { out: many.out, quiet: true, workers: 3, resume: true }))
          .pipe(Effect.provide(ClientLive))
        const fresh = yield* Effect.flatMap(logs, (s) => Exports.toFile(s, { out: join(dir, "whole.csv"), quiet: true, workers: 0 }))
          .pipe(Effect.provide(ClientLive))
        expect(resumed.mode).toBe("resumed")
        expect(readFileSync(many.out).equals(readFileSync(join(dir, "whole.csv")))).toBe(true)
        expect(resumed.manifest.contentHash).toBe(fresh.manifest.contentHash)
      }))

    it.effect("workers must be a whole number ≥ 0, and so must EXPLORER_ETL_WORKERS, refused before any request", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const refusal = (workers: number | undefined) =>
          Effect.flip(Effect.flatMap(logsOf(sim), (s) => Exports.toFile(s, { out: join(dir, "refused.csv"), quiet: true, workers })))
            .pipe(Effect.provide(clientOf(sim)))
        yield* sim.resetStats
        expect(yield* refusal(-1)).toMatchObject({ _tag: "SinkError", reason: "InvalidInput", option: "workers" })
        expect(yield* refusal(1.5)).toMatchObject({ _tag: "SinkError", reason: "InvalidInput", option: "workers" })
        const before = process.env.EXPLORER_ETL_WORKERS
        process.env.EXPLORER_ETL_WORKERS = "two"
        const fromEnvironment = yield* Effect.ensuring(
          refusal(undefined),
          Effect.sync(() => before === undefined ? delete process.env.EXPLORER_ETL_WORKERS : void (process.env.EXPLORER_ETL_WORKERS = before))
        )
        expect(fromEnvironment).toMatchObject({ _tag: "SinkError", reason: "InvalidInput", option: "workers" })
        expect((fromEnvironment as { detail: string }).detail).toContain("EXPLORER_ETL_WORKERS")
        // Refused before any request was sent.
        expect((yield* sim.stats).requests).toBe(0)
        rmSync(dir, { recursive: true, force: true })
      }))
  })
})
