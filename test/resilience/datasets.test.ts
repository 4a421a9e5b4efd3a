/**
 * Every data set, under every fault the simulator injects (5xx pages, the edge's 429, connection
 * resets, truncated JSON, HTML pages, query timeouts, "server too busy", forced rate-limit answers), one
 * kind at a time at 20 % of the answers and all of them mixed: the export completes and its file is
 * byte-identical to the clean export of the same query, which is itself the oracle's answer written by
 * the sinks. The simulator confirms the fault was injected; the client counts one retry per injected
 * fault (query timeouts on block ranges are split by the block cursor instead). No log line, error or
 * file ever holds an API key.
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Cause, Effect, Layer, Logger, LogLevel, Schema } from "effect"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import * as Client from "../../src/ExplorerClient.js"
import type { StreamError } from "../../src/ExplorerError.js"
import * as Exports from "../../src/Exports.js"
import * as Schemas from "../../src/schemas/index.js"
import * as Simulator from "../../src/simulator/index.js"
import * as Sources from "../../src/streams/Sources.js"
import { allKeys, clientLayer, expectedFile, keys, plantedBlocks, rowsOf, simulatorKeys } from "./helpers.js"

/** Arbitrum One: served, open to free keys, and not populated: it holds only the planted rows. */
const CHAIN = 42161
const FROM = 5_000_000
const TO = FROM + 5_000

const address = (n: number) => `0x00000000000000000000000000000000fa17${n.toString(16).padStart(4, "0")}`

/** Planted rows: several pages on the free plan (1,000 rows a page), and a 1,500-log block for paging inside a block. */
const planted = {
  logs: { address: address(1), rowsPerBlock: plantedBlocks(1, FROM, 30, 200, [1_500]) },
  txlist: { address: address(2), rowsPerBlock: plantedBlocks(2, FROM, 40, 200) },
  txlistinternal: { address: address(3), rowsPerBlock: plantedBlocks(3, FROM, 40, 200) },
  tokentx: { address: address(4), rowsPerBlock: plantedBlocks(4, FROM, 40, 200) },
  tokennfttx: { address: address(5), rowsPerBlock: plantedBlocks(5, FROM, 40, 200) },
  token1155tx: { address: address(6), rowsPerBlock: plantedBlocks(6, FROM, 40, 200) },
  tokenholderlist: { address: address(7), rowsPerBlock: [[1, 2_500]] as const },
  addresstokenbalance: { address: address(8), rowsPerBlock: [[1, 300]] as const },
  addresstokennftbalance: { address: address(9), rowsPerBlock: [[1, 300]] as const }
} as const

const SimulatorLive = Simulator.layer({
  seed: 11,
  keys: simulatorKeys,
  enforceRateLimits: false,
  dailyCaps: false,
  dataset: {
    chains: [1],
    busyWalletTransactions: 50,
    heavyContractLogs: 50,
    scenarios: Object.entries(planted).map(([kind, p]) => ({
      chainId: CHAIN,
      kind: kind as Simulator.ScenarioKind,
      address: p.address,
      rowsPerBlock: p.rowsPerBlock
    }))
  }
})

/** Everything the client and the sinks log, at Debug level: the leak check reads it. */
const logLines: Array<string> = []
const collecting = Logger.make(({ annotations, cause, message }) => {
  logLines.push(`${String(message)} ${JSON.stringify(Object.fromEntries(annotations))} ${Cause.isEmpty(cause) ? "" : Cause.pretty(cause)}`)
})

const dir = mkdtempSync(path.join(tmpdir(), "explorer-etl-faults-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

type AnySource = Sources.Source<unknown, unknown>
const erase = <A, I>(source: Effect.Effect<Sources.Source<A, I>, StreamError, Client.ExplorerClient>) =>
  source as unknown as Effect.Effect<AnySource, StreamError, Client.ExplorerClient>

/** One data set: how to export it, on which plan and format, and what the oracle says it holds. */
interface Case {
  readonly name: string
  readonly plan: keyof typeof keys
  readonly format: "csv" | "jsonl"
  readonly blocks: boolean
  readonly source: (sim: Simulator.Simulator.Service) => Effect.Effect<AnySource, StreamError, Client.ExplorerClient>
  readonly oracle: (sim: Simulator.Simulator.Service) => Simulator.OracleQuery
  /** The API's record schema (the oracle speaks the wire form). */
  readonly wire: Schema.Schema<unknown, unknown>
  readonly take?: number
  readonly minRows: number
}

const wire = <A, I>(schema: Schema.Schema<A, I>) => schema as unknown as Schema.Schema<unknown, unknown>
const range = { chainId: CHAIN, fromBlock: FROM, toBlock: TO }
const blockParams = (a: string) => ({ address: a, startblock: FROM, endblock: TO })
const chain1 = (sim: Simulator.Simulator.Service) => sim.dataset.chain(1)
/** The label with the most name tags. */
const busiestLabel = (sim: Simulator.Simulator.Service): string => {
  const counts = new Map<string, number>()
  for (const l of chain1(sim).labels) for (const slug of l.labelsSlug) counts.set(slug, (counts.get(slug) ?? 0) + 1)
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? "exchange"
}
/** The token with the most holders (more than the 1,000 topholders returns). */
const biggestToken = (sim: Simulator.Simulator.Service): string => chain1(sim).erc20[2]?.address ?? ""
const daily = { startDate: "2025-09-01", endDate: "2025-09-30" }

const cases: ReadonlyArray<Case> = [
  {
    name: "logs",
    plan: "standard",
    format: "csv",
    blocks: true,
    source: () => erase(Sources.logs({ ...range, address: planted.logs.address })),
    oracle: () => ({ chainId: CHAIN, module: "logs", action: "getLogs", params: { address: planted.logs.address, fromblock: FROM, toblock: TO } }),
    wire: wire(Schemas.Log),
    minRows: rowsOf(planted.logs.rowsPerBlock)
  },
  {
    name: "transactions",
    plan: "free",
    format: "jsonl",
    blocks: true,
    source: () => erase(Sources.transactions({ ...range, address: planted.txlist.address })),
    oracle: () => ({ chainId: CHAIN, module: "account", action: "txlist", params: blockParams(planted.txlist.address) }),
    wire: wire(Schemas.NormalTransaction),
    minRows: rowsOf(planted.txlist.rowsPerBlock)
  },
  {
    name: "internalTransactions",
    plan: "free",
    format: "csv",
    blocks: true,
    source: () => erase(Sources.internalTransactions({ ...range, address: planted.txlistinternal.address })),
    oracle: () => ({ chainId: CHAIN, module: "account", action: "txlistinternal", params: blockParams(planted.txlistinternal.address) }),
    wire: wire(Schemas.InternalTransaction),
    minRows: rowsOf(planted.txlistinternal.rowsPerBlock)
  },
  {
    name: "erc20Transfers",
    plan: "free",
    format: "jsonl",
    blocks: true,
    source: () => erase(Sources.erc20Transfers({ ...range, address: planted.tokentx.address })),
    oracle: () => ({ chainId: CHAIN, module: "account", action: "tokentx", params: blockParams(planted.tokentx.address) }),
    wire: wire(Schemas.Erc20Transfer),
    minRows: rowsOf(planted.tokentx.rowsPerBlock)
  },
  {
    name: "erc721Transfers",
    plan: "free",
    format: "csv",
    blocks: true,
    source: () => erase(Sources.erc721Transfers({ ...range, address: planted.tokennfttx.address })),
    oracle: () => ({ chainId: CHAIN, module: "account", action: "tokennfttx", params: blockParams(planted.tokennfttx.address) }),
    wire: wire(Schemas.Erc721Transfer),
    minRows: rowsOf(planted.tokennfttx.rowsPerBlock)
  },
  {
    name: "erc1155Transfers",
    plan: "free",
    format: "jsonl",
    blocks: true,
    source: () => erase(Sources.erc1155Transfers({ ...range, address: planted.token1155tx.address })),
    oracle: () => ({ chainId: CHAIN, module: "account", action: "token1155tx", params: blockParams(planted.token1155tx.address) }),
    wire: wire(Schemas.Erc1155Transfer),
    minRows: rowsOf(planted.token1155tx.rowsPerBlock)
  },
  {
    name: "tokenHolders",
    plan: "standard",
    format: "csv",
    blocks: false,
    source: () => erase(Sources.tokenHolders({ chainId: CHAIN, contractAddress: planted.tokenholderlist.address })),
    oracle: () => ({ chainId: CHAIN, module: "token", action: "tokenholderlist", params: { contractaddress: planted.tokenholderlist.address } }),
    wire: wire(Schemas.TokenHolder),
    minRows: 2_500
  },
  {
    name: "tokenBalances",
    plan: "standard",
    format: "jsonl",
    blocks: false,
    source: () => erase(Sources.tokenBalances({ chainId: CHAIN, address: planted.addresstokenbalance.address })),
    oracle: () => ({ chainId: CHAIN, module: "account", action: "addresstokenbalance", params: { address: planted.addresstokenbalance.address } }),
    wire: wire(Schemas.TokenBalance),
    minRows: 300
  },
  {
    name: "nftHoldings",
    plan: "standard",
    format: "csv",
    blocks: false,
    source: () => erase(Sources.nftHoldings({ chainId: CHAIN, address: planted.addresstokennftbalance.address })),
    oracle: () => ({ chainId: CHAIN, module: "account", action: "addresstokennftbalance", params: { address: planted.addresstokennftbalance.address } }),
    wire: wire(Schemas.NftBalance),
    minRows: 300
  },
  {
    name: "topHolders",
    plan: "standard",
    format: "jsonl",
    blocks: false,
    source: (sim) => erase(Sources.topHolders({ chainId: 1, contractAddress: biggestToken(sim), limit: 1_000 })),
    oracle: (sim) => ({ chainId: 1, module: "token", action: "topholders", params: { contractaddress: biggestToken(sim) } }),
    wire: wire(Schemas.TopHolder),
    take: 1_000,
    minRows: 1_000
  },
  {
    name: "dailyGasUsed",
    plan: "standard",
    format: "csv",
    blocks: false,
    source: () => erase(Sources.dailyGasUsed({ chainId: 1, ...daily })),
    oracle: () => ({ chainId: 1, module: "stats", action: "dailygasused", params: { startdate: daily.startDate, enddate: daily.endDate } }),
    wire: wire(Schemas.DailyGasUsed),
    minRows: 30
  },
  {
    name: "dailyTxCount",
    plan: "standard",
    format: "jsonl",
    blocks: false,
    source: () => erase(Sources.dailyTxCount({ chainId: 1, ...daily })),
    oracle: () => ({ chainId: 1, module: "stats", action: "dailytx", params: { startdate: daily.startDate, enddate: daily.endDate } }),
    wire: wire(Schemas.DailyTxCount),
    minRows: 30
  },
  {
    name: "addressTags",
    plan: "proplus",
    format: "csv",
    blocks: false,
    source: (sim) => erase(Sources.addressTags({ chainId: 1, label: busiestLabel(sim) })),
    oracle: (sim) => ({ chainId: 1, module: "nametag", action: "exportaddresstags", params: { label: busiestLabel(sim) } }),
    wire: wire(Schemas.AddressTag),
    minRows: 1
  }
]

/** One fault configuration: every kind alone at 20 %, and all of them together. */
type Rates = NonNullable<Simulator.FaultOptions["rates"]>
const configurations: ReadonlyArray<{ readonly label: string; readonly rates: Rates; readonly seeds: number }> = [
  ...Simulator.faultKinds.map((kind, i) => ({ label: kind, rates: { [kind]: 0.2 }, seeds: 1_000 * (i + 1) })),
  { label: "mix", rates: Object.fromEntries(Simulator.faultKinds.map((kind) => [kind, 0.02])), seeds: 50_000 }
]

const injected = (stats: Simulator.SimulatorStats, rates: Rates) =>
  Object.keys(rates).reduce((n, kind) => n + (stats.faults[kind as Simulator.FaultKind] ?? 0), 0)

/** A clean export of every data set, written once and shared by its fault tests. */
const clean = new Map<string, { readonly text: string; readonly calls: number }>()

describe("exports under injected faults", () => {
  layer(Layer.mergeAll(SimulatorLive, NodeContext.layer), { timeout: "120 seconds", excludeTestServices: true })((it) => {
    /** Exports a data set once with a fresh client; the client's counters come back with the summary. */
    const exportOnce = (
      c: Case,
      out: string,
      adapt: (source: AnySource) => AnySource = (source) => source,
      concurrency?: number
    ) =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        return yield* Effect.gen(function*() {
          const client = yield* Client.ExplorerClient
          const source = adapt(yield* c.source(sim))
          const summary = yield* Exports.toFile(source, { out, quiet: true, concurrency })
          return { summary, stats: yield* client.stats }
        }).pipe(Effect.provide(clientLayer(sim, c.plan).pipe(Layer.provide(NodeHttpClient.layerUndici))))
      }).pipe(Logger.withMinimumLogLevel(LogLevel.Debug), Effect.provide(Logger.replace(Logger.defaultLogger, collecting)))

    for (const c of cases) {
      describe(c.name, () => {
        it.effect(`clean ${c.format.toUpperCase()} export equals the oracle`, () =>
          Effect.gen(function*() {
            const sim = yield* Simulator.Simulator
            yield* sim.setFaults({})
            const all = yield* sim.oracle(c.oracle(sim))
            const records = c.take === undefined ? all : all.slice(0, c.take)
            expect(records.length).toBeGreaterThanOrEqual(c.minRows)
            const out = path.join(dir, `${c.name}-clean.${c.format}`)
            const { stats, summary } = yield* exportOnce(c, out)
            const source = yield* c.source(sim).pipe(Effect.provide(clientLayer(sim, c.plan).pipe(Layer.provide(NodeHttpClient.layerUndici))))
            const expected = yield* expectedFile(records, c.wire, source.schema, c.format)
            const text = readFileSync(out, "utf8")
            expect(summary.manifest.rows).toBe(records.length)
            expect(stats.retries).toBe(0)
            expect(text).toBe(expected)
            clean.set(c.name, { text, calls: summary.manifest.calls })
            if (source._tag === "Blocks") {
              // Exports read block sources as lines of file records (`lineBatches`); the decoded batches,
              // encoded by the sinks, write the very same file in either format.
              expect(source.lineBatches).toBeDefined()
              const decodedOnly = (s: AnySource): AnySource => {
                if (s._tag !== "Blocks") return s
                const { lineBatches: _, ...rest } = s
                return rest
              }
              for (const format of ["csv", "jsonl"] as const) {
                const viaFile = path.join(dir, `${c.name}-file-records.${format}`)
                const viaDecoded = path.join(dir, `${c.name}-decoded.${format}`)
                yield* exportOnce(c, viaFile)
                yield* exportOnce(c, viaDecoded, decodedOnly)
                expect(readFileSync(viaFile, "utf8")).toBe(readFileSync(viaDecoded, "utf8"))
                expect(readFileSync(viaFile, "utf8")).toBe(yield* expectedFile(records, c.wire, source.schema, format))
              }
            }
          }))

        for (const { label, rates, seeds } of configurations) {
          it.effect(`${label}: identical file, every injected fault retried`, () =>
            Effect.gen(function*() {
              const sim = yield* Simulator.Simulator
              const reference = clean.get(c.name)
              expect(reference).toBeDefined()
              // The fault of each request follows from (seed, query, occurrence): try seeds until this
              // export meets the fault at least once (a one-call data set misses it 80 % of the time).
              for (let seed = seeds; seed < seeds + 60; seed++) {
                yield* sim.setFaults({ seed, rates })
                yield* sim.resetStats
                const out = path.join(dir, `${c.name}-${label}-${seed}.${c.format}`)
                const { stats } = yield* exportOnce(c, out)
                const faults = injected(yield* sim.stats, rates)
                expect(readFileSync(out, "utf8")).toBe(reference?.text)
                if (faults === 0) {
                  rmSync(out)
                  continue
                }
                const timeouts = (yield* sim.stats).faults.queryTimeout
                if (c.blocks && timeouts > 0) {
                  // Timeouts on a block range are split by the cursor (more calls), one-block ranges retried.
                  expect(stats.retries).toBeLessThanOrEqual(faults)
                  // Partitions make the number of calls vary from run to run: counted with one cursor,
                  // the same faults cost calls or retries beyond the clean export's.
                  yield* sim.setFaults({})
                  const clean = yield* exportOnce(c, `${out}.clean-one.${c.format}`, undefined, 1)
                  yield* sim.setFaults({ seed, rates })
                  yield* sim.resetStats
                  const faulty = yield* exportOnce(c, `${out}.faulty-one.${c.format}`, undefined, 1)
                  expect(readFileSync(`${out}.faulty-one.${c.format}`, "utf8")).toBe(reference?.text)
                  if ((yield* sim.stats).faults.queryTimeout > 0) {
                    expect(faulty.stats.retries + faulty.summary.manifest.calls - clean.summary.manifest.calls).toBeGreaterThan(0)
                  }
                } else {
                  // Read in parallel, a page asked ahead that a short page made useless is given up, a
                  // fault on it too (never more retries than faults); one cursor retries every fault.
                  expect(stats.retries).toBeLessThanOrEqual(faults)
                  yield* sim.resetStats
                  const one = yield* exportOnce(c, `${out}.one.${c.format}`, undefined, 1)
                  expect(readFileSync(`${out}.one.${c.format}`, "utf8")).toBe(reference?.text)
                  expect(one.stats.retries).toBe(injected(yield* sim.stats, rates))
                }
                yield* sim.setFaults({})
                return
              }
              yield* sim.setFaults({})
              expect.fail(`no seed injected ${label} into the ${c.name} export`)
            }))
        }
      })
    }

    it.effect("no API key in any log line, error or written file", () =>
      Effect.sync(() => {
        expect(logLines.length).toBeGreaterThan(0)
        for (const line of logLines) for (const key of allKeys) expect(line).not.toContain(key)
        const files = readdirSync(dir)
        expect(files.length).toBeGreaterThan(cases.length)
        for (const file of files) {
          const text = readFileSync(path.join(dir, file), "utf8")
          for (const key of allKeys) expect(text.includes(key), `${key} in ${file}`).toBe(false)
        }
      }))
  })
})
