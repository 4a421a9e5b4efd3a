/**
 * The ready pipelines against the simulator (real HTTP on 127.0.0.1, real clock, Pro Plus demo key):
 * every file and manifest is written, the rows equal the simulator's oracle, a second run adds nothing
 * and leaves every file byte-identical, and each pipeline's own config file decodes with its schema.
 */
import { FileSystem, Path } from "@effect/platform"
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { describe, expect, layer } from "@effect/vitest"
import { duckdbRows } from "../duckdb.js"
import { parse } from "csv-parse/sync"
import { Effect, Exit, Layer, Redacted, Schema } from "effect"
import { createHash } from "node:crypto"
import chainDailyStats from "../../pipelines/chain-daily-stats.js"
import contractEvents from "../../pipelines/contract-events.js"
import { pipelines } from "../../pipelines/index.js"
import tokenActivity from "../../pipelines/token-activity.js"
import walletHistory from "../../pipelines/wallet-history.js"
import * as Client from "../../src/ExplorerClient.js"
import { loadPipeline } from "../../src/cli/RunCommand.js"
import * as PipelineRun from "../../src/durable/PipelineRun.js"
import * as Pipeline from "../../src/Pipeline.js"
import type { ExportSummary } from "../../src/Exports.js"
import { Manifest } from "../../src/sinks/Manifest.js"
import * as Simulator from "../../src/simulator/index.js"

/** A made-up token with 12,000 holders: more than the 10,000-row result window of tokenholderlist. */
const CROWDED_TOKEN = "0x00000000000000000000000000000000c40bd0ed"

/**
 * The simulator, an undici HttpClient, a Pro Plus client pointed at the simulator, Node's file system.
 * The heavy contract is smaller than the demo's (4,000 Swap logs, still with its 1,500-log block) to
 * keep the suite quick, and one token has too many holders for one list; the rest is the demo's data set.
 */
const TestLayer = Layer.unwrapEffect(
  Effect.map(Simulator.Simulator, (sim) =>
    Client.layer({ baseUrl: sim.baseUrl, apiKey: Redacted.make(sim.demoKeys.proplus), plan: "proplus" }))
).pipe(
  Layer.provideMerge(Simulator.layer({
    dataset: {
      heavyContractLogs: 4_000,
      scenarios: [{ chainId: 1, kind: "tokenholderlist", address: CROWDED_TOKEN, rowsPerBlock: [[1, 12_000]] }]
    }
  })),
  Layer.provideMerge(NodeHttpClient.layerUndici),
  Layer.provideMerge(NodeContext.layer)
)

type Row = Readonly<Record<string, string>>
type Wire = Readonly<Record<string, unknown>>

const readText = (file: string) => Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(file)).pipe(Effect.orDie)
const readCsv = (file: string) => Effect.map(readText(file), (text): ReadonlyArray<Row> => parse(text, { columns: true }))
const readJsonl = (file: string) =>
  Effect.map(readText(file), (text) => text.split("\n").filter((line) => line !== "").map((line): Wire => JSON.parse(line)))

/** A wire record as the CSV writes it: every field a string, an absent field an empty cell. */
const asCells = (record: Wire, columns: ReadonlyArray<string>): Row =>
  Object.fromEntries(columns.map((c) => {
    const v = record[c]
    return [c, v === undefined || v === null ? "" : typeof v === "string" ? v : typeof v === "object" ? JSON.stringify(v) : String(v)]
  }))

const oracle = (module: string, action: string, params: Readonly<Record<string, string | number | undefined>>) =>
  Effect.flatMap(Simulator.Simulator, (sim) => sim.oracle({ chainId: 1, module, action, params })).pipe(Effect.orDie)

/** The summary of the export written to `<outDir>/<pipeline>/<file>`, checked against its manifest on disk. */
const summaryOf = (summaries: ReadonlyArray<ExportSummary>, file: string) =>
  Effect.gen(function*() {
    const found = summaries.find((s) => s.out.endsWith(`/${file}`))
    if (found === undefined) return yield* Effect.die(`no export wrote ${file}`)
    const fs = yield* FileSystem.FileSystem
    expect(yield* fs.exists(found.out).pipe(Effect.orDie)).toBe(true)
    const manifest = yield* Schema.decodeUnknown(Schema.parseJson(Manifest))(yield* readText(found.manifestPath)).pipe(Effect.orDie)
    expect(manifest.rows).toBe(found.manifest.rows)
    expect(manifest.completeness).toEqual({ status: "complete" })
    expect(manifest.file).toBe(file.split("/").pop())
    return found
  })

/** A CSV export equals the oracle's wire records, row for row and cell for cell. */
const expectCsvEqualsOracle = (summary: ExportSummary, expected: ReadonlyArray<Wire>) =>
  Effect.gen(function*() {
    const rows = yield* readCsv(summary.out)
    expect(rows.length).toBeGreaterThan(0)
    expect(rows.length).toBe(expected.length)
    expect(summary.manifest.rows).toBe(expected.length)
    expect(rows).toEqual(expected.map((r) => asCells(r, summary.manifest.columns)))
  })

/** The rows of a DuckDB query (over a Parquet file), as JSON values. */
const parquetRows = duckdbRows

/** Every data file under `dir` (not manifests, not states) with its content. */
const snapshot = (dir: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const files = (yield* fs.readDirectory(dir, { recursive: true }).pipe(Effect.orDie))
      .filter((f) => /\.(csv|jsonl|parquet)$/.test(f))
      .sort()
    const contents: Record<string, string> = {}
    for (const f of files) {
      contents[f] = f.endsWith(".parquet")
        ? createHash("sha256").update(yield* fs.readFile(path.join(dir, f)).pipe(Effect.orDie)).digest("hex")
        : yield* readText(path.join(dir, f))
    }
    return contents
  })

const withTempDir = <A, E, R>(use: (dir: string) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) =>
    Effect.acquireUseRelease(
      fs.makeTempDirectory({ prefix: "explorer-etl-pipelines-" }).pipe(Effect.orDie),
      use,
      (dir) => fs.remove(dir, { recursive: true }).pipe(Effect.ignore)
    ))

/**
 * Runs a pipeline on its demo targets twice into a temporary folder: checks the first run, then that
 * the second adds nothing (block-ordered files "unchanged", 0 rows) and leaves every file as it was.
 */
const runTwice = <C, I>(
  pipeline: Pipeline.Pipeline<C, I>,
  check: (config: C, summaries: ReadonlyArray<ExportSummary>) => Effect.Effect<void, never, Simulator.Simulator | FileSystem.FileSystem | Client.ExplorerClient>
) =>
  withTempDir((outDir) =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const config = pipeline.demoConfig(sim.dataset)
      const first = yield* Pipeline.run(pipeline, config, { outDir, quiet: true })
      yield* check(config, first)
      const dir = `${outDir}/${pipeline.name}`
      const before = yield* snapshot(dir)
      expect(Object.keys(before).length).toBe(first.length)

      const second = yield* Pipeline.run(pipeline, config, { outDir, quiet: true })
      expect(second.map((s) => s.out)).toEqual(first.map((s) => s.out))
      for (const s of second) {
        if (s.manifest.blockRange !== null) {
          expect(s.mode).toBe("unchanged")
          expect(s.rowsWritten).toBe(0)
        }
        expect(s.manifest.rows).toBe(first.find((f) => f.out === s.out)?.manifest.rows)
      }
      const after = yield* snapshot(dir)
      // The native supply row carries the UTC date of the run: compare it without the date.
      const undated = (files: Record<string, string>) =>
        Object.fromEntries(Object.entries(files).map(([f, text]) => [f, text.replace(/"UTCDate":"\d{4}-\d{2}-\d{2}",/, "")]))
      expect(undated(after)).toEqual(undated(before))
    }))

// Real clock: the client's limiter spaces the throttled calls (tokeninfo, topholders…) on it.
layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("ready pipelines on the simulator", (it) => {
  it.effect("token-activity: token info, holders, top holders, transfers", () =>
    runTwice(tokenActivity, (config, summaries) =>
      Effect.gen(function*() {
        expect(summaries.length).toBe(4)
        const token = yield* summaryOf(summaries, "token.jsonl")
        expect(yield* readJsonl(token.out)).toEqual(yield* oracle("token", "tokeninfo", { contractaddress: config.token }))

        const holders = yield* summaryOf(summaries, "holders.csv")
        yield* expectCsvEqualsOracle(holders, yield* oracle("token", "tokenholderlist", { contractaddress: config.token }))

        const top = yield* summaryOf(summaries, "top-holders.csv")
        const allTop = yield* oracle("token", "topholders", { contractaddress: config.token })
        yield* expectCsvEqualsOracle(top, allTop.slice(0, config.topHolders))

        const transfers = yield* summaryOf(summaries, "transfers.csv")
        yield* expectCsvEqualsOracle(
          transfers,
          yield* oracle("account", "tokentx", { contractaddress: config.token, startblock: config.fromBlock })
        )
      })))

  it.effect("token-activity: a holder list longer than the result window ends truncated, the run goes on", () =>
    withTempDir((outDir) =>
      Effect.gen(function*() {
        const config = { chainId: 1, token: CROWDED_TOKEN, fromBlock: 0, topHolders: 10, decimals: false }
        const summaries = yield* Pipeline.run(tokenActivity, config, { outDir, quiet: true })
        const holders = summaries.find((s) => s.out.endsWith("/holders.csv"))
        expect(holders?.manifest.rows).toBe(10_000)
        expect(holders?.manifest.completeness.status).toBe("truncated")
        const all = yield* oracle("token", "tokenholderlist", { contractaddress: CROWDED_TOKEN })
        expect(all.length).toBe(12_000)
        const rows = yield* readCsv(`${outDir}/token-activity/holders.csv`)
        expect(rows).toEqual(all.slice(0, 10_000).map((r) => asCells(r, ["TokenHolderAddress", "TokenHolderQuantity"])))
        expect(summaries.find((s) => s.out.endsWith("/top-holders.csv"))?.manifest.rows).toBe(10)
      })))

  it.effect("contract-events: one log file per (address, topic0) target, and decoded events where asked", () =>
    runTwice(contractEvents, (config, summaries) =>
      Effect.gen(function*() {
        const decodedTargets = config.targets.filter((t) => t.decoded !== undefined)
        expect(decodedTargets.length).toBe(1)
        expect(summaries.length).toBe(config.targets.length + decodedTargets.length)
        for (const target of decodedTargets) {
          const file = target.decoded?.file ?? ""
          const summary = yield* summaryOf(summaries, file)
          const logs = yield* oracle("logs", "getLogs", { address: target.address, topic0: target.topic0, fromblock: target.fromBlock ?? config.fromBlock })
          // The oracle's Transfer logs decoded by hand: from/to from the topics, value from the data.
          const expected = logs.map((l) => {
            const topics = l.topics as ReadonlyArray<string>
            return {
              transactionHash: l.transactionHash,
              event: "Transfer",
              from: `0x${String(topics[1]).slice(26)}`,
              to: `0x${String(topics[2]).slice(26)}`,
              value: BigInt(String(l.data)).toString()
            }
          })
          expect(yield* parquetRows(`SELECT transactionHash, event, "from", "to", value FROM read_parquet('${summary.out}')`)).toEqual(expected)
          expect(summary.manifest).toMatchObject({ dataset: "events", format: "parquet", rows: logs.length, decodedRows: logs.length, undecodedRows: 0 })
        }
        for (const target of config.targets) {
          const summary = yield* summaryOf(summaries, target.file)
          expect(summary.manifest.dataset).toBe("logs")
          const expected = yield* oracle("logs", "getLogs", {
            address: target.address,
            topic0: target.topic0,
            fromblock: target.fromBlock ?? config.fromBlock
          })
          const rows: ReadonlyArray<Wire> = target.file.endsWith(".csv") ? yield* readCsv(summary.out) : yield* readJsonl(summary.out)
          expect(rows.length).toBeGreaterThan(0)
          expect(rows.length).toBe(expected.length)
          // The files write numbers in decimal where the API sends hex (zero as "0x").
          const key = (r: Wire) => `${String(r.transactionHash)}#${r.logIndex === "0x" ? 0 : Number(r.logIndex)}`
          expect(rows.map(key)).toEqual(expected.map(key))
          expect(new Set(rows.map((r) => r.address))).toEqual(new Set([target.address.toLowerCase()]))
          expect(rows.map((r) => Array.isArray(r.topics) ? r.topics[0] : r.topic0)).toEqual(rows.map(() => target.topic0))
        }
      })))

  it.effect("contract-events: a target decoded by an ABI given in the config, into CSV beside the raw file", () =>
    withTempDir((outDir) =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const pool = sim.dataset.chain(1).heavyContract
        const swap = {
          type: "event", name: "Swap", anonymous: false, inputs: [
            { name: "sender", type: "address", indexed: true }, { name: "recipient", type: "address", indexed: true },
            { name: "amount0", type: "int256", indexed: false }, { name: "amount1", type: "int256", indexed: false },
            { name: "sqrtPriceX96", type: "uint160", indexed: false }, { name: "liquidity", type: "uint128", indexed: false },
            { name: "tick", type: "int24", indexed: false }
          ]
        }
        const config = yield* Schema.decodeUnknown(contractEvents.config)({
          chainId: 1,
          fromBlock: sim.dataset.chain(1).activity.fromBlock,
          targets: [{ file: "swaps.csv", address: pool.address, topic0: pool.topic0, decoded: { file: "swaps.decoded.csv", abi: [swap] } }]
        })
        const before = (yield* sim.stats).byOperation["contract/getsourcecode"] ?? 0
        const summaries = yield* Pipeline.run(contractEvents, config, { outDir, quiet: true })
        expect(summaries.map((s) => s.out.split("/").pop())).toEqual(["swaps.csv", "swaps.decoded.csv"])
        // The ABI came from the config: none was fetched.
        expect((yield* sim.stats).byOperation["contract/getsourcecode"] ?? 0).toBe(before)
        const logs = yield* oracle("logs", "getLogs", { address: pool.address, topic0: pool.topic0, fromblock: config.fromBlock })
        const rows = yield* readCsv(`${outDir}/contract-events/swaps.decoded.csv`)
        expect(rows.length).toBe(logs.length)
        const int256 = (word: string) => {
          const v = BigInt(`0x${word}`)
          return (v >= 1n << 255n ? v - (1n << 256n) : v).toString()
        }
        rows.forEach((row, i) => {
          const log = logs[i] as Wire
          const data = String(log.data)
          expect(row).toMatchObject({
            transactionHash: log.transactionHash,
            event: "Swap",
            sender: `0x${String((log.topics as ReadonlyArray<string>)[1]).slice(26)}`,
            amount0: int256(data.slice(2, 66)),
            tick: int256(data.slice(2 + 4 * 64, 2 + 5 * 64))
          })
        })
        const decoded = summaries[1]
        expect(decoded?.manifest).toMatchObject({ dataset: "events", rows: logs.length, decodedRows: logs.length, undecodedRows: 0 })
        // The raw file is the logs export it always was.
        expect(summaries[0]?.manifest).toMatchObject({ dataset: "logs", rows: logs.length })
        expect(summaries[0]?.manifest.decodedRows).toBeUndefined()
      })))

  it.effect("token-activity with decimals: exact scaled amounts and ISO times beside the raw ones", () =>
    withTempDir((outDir) =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const config = { ...tokenActivity.demoConfig(sim.dataset), decimals: true }
        const summaries = yield* Pipeline.run(tokenActivity, config, { outDir, quiet: true })
        const scale = (raw: string, decimals: number) => {
          const unit = 10n ** BigInt(decimals)
          const value = BigInt(raw)
          const fraction = decimals === 0 ? "" : (value % unit).toString().padStart(decimals, "0").replace(/0+$/, "")
          return `${value / unit}${fraction === "" ? "" : `.${fraction}`}`
        }
        const transfers = yield* summaryOf(summaries, "transfers.csv")
        const expected = yield* oracle("account", "tokentx", { contractaddress: config.token, startblock: config.fromBlock })
        const rows = yield* readCsv(transfers.out)
        expect(rows.length).toBe(expected.length)
        rows.forEach((row, i) => {
          const t = expected[i] as Wire
          expect(row.valueScaled).toBe(scale(String(t.value), Number(t.tokenDecimal)))
          expect(row.timeStampIso).toBe(new Date(Number(t.timeStamp) * 1000).toISOString().replace(/\.000Z$/, "Z"))
        })
        // Some amounts have a fraction: the scaling is exercised.
        expect(rows.some((r) => String(r.valueScaled).includes("."))).toBe(true)
        const info = (yield* oracle("token", "tokeninfo", { contractaddress: config.token }))[0] as Wire
        const holders = yield* readCsv((yield* summaryOf(summaries, "holders.csv")).out)
        const allHolders = yield* oracle("token", "tokenholderlist", { contractaddress: config.token })
        expect(holders.map((h) => h.TokenHolderQuantityScaled)).toEqual(
          allHolders.map((h) => scale(String(h.TokenHolderQuantity), Number(info.divisor)))
        )
        const top = yield* readCsv((yield* summaryOf(summaries, "top-holders.csv")).out)
        expect(top.length).toBe(config.topHolders)
        for (const h of top) expect(h.TokenHolderQuantityScaled).toMatch(/^\d+(\.\d*[1-9])?$/)
      })))

  it.effect("wallet-history: transactions, transfers and holdings of each wallet", () =>
    runTwice(walletHistory, (config, summaries) =>
      Effect.gen(function*() {
        expect(summaries.length).toBe(7 * config.wallets.length)
        for (const wallet of config.wallets) {
          const history = { address: wallet.address, startblock: wallet.fromBlock ?? config.fromBlock }
          const lists = [
            ["transactions.csv", "txlist"],
            ["internal-transactions.csv", "txlistinternal"],
            ["erc20-transfers.csv", "tokentx"],
            ["erc721-transfers.csv", "tokennfttx"],
            ["erc1155-transfers.csv", "token1155tx"]
          ] as const
          for (const [file, action] of lists) {
            const summary = yield* summaryOf(summaries, `${wallet.name}/${file}`)
            yield* expectCsvEqualsOracle(summary, yield* oracle("account", action, history))
          }
          const balances = yield* summaryOf(summaries, `${wallet.name}/token-balances.csv`)
          yield* expectCsvEqualsOracle(balances, yield* oracle("account", "addresstokenbalance", { address: wallet.address }))
          const nfts = yield* summaryOf(summaries, `${wallet.name}/nft-holdings.csv`)
          yield* expectCsvEqualsOracle(nfts, yield* oracle("account", "addresstokennftbalance", { address: wallet.address }))
        }
      })))

  it.effect("chain-daily-stats: daily gas used, daily tx count, native supply", () =>
    runTwice(chainDailyStats, (config, summaries) =>
      Effect.gen(function*() {
        expect(summaries.length).toBe(3)
        const days = { startdate: config.startDate, enddate: config.endDate }
        const gas = yield* summaryOf(summaries, "daily-gas-used.csv")
        yield* expectCsvEqualsOracle(gas, yield* oracle("stats", "dailygasused", days))
        expect(gas.manifest.rows).toBe(30)
        const txs = yield* summaryOf(summaries, "daily-tx-count.csv")
        yield* expectCsvEqualsOracle(txs, yield* oracle("stats", "dailytx", days))

        const supply = yield* summaryOf(summaries, "native-supply.jsonl")
        const client = yield* Client.ExplorerClient
        const [row, ...rest] = yield* readJsonl(supply.out)
        expect(rest).toEqual([])
        expect(row).toEqual({
          UTCDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
          chainId: 1,
          supplyWei: String(yield* Effect.orDie(client.ethsupply({ chainId: 1 })))
        })
      })))

  it.effect("an export the plan refuses stops the run before any request or file, in a plain and a durable run", () =>
    withTempDir((outDir) =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const fs = yield* FileSystem.FileSystem
        const config = walletHistory.demoConfig(sim.dataset)
        const before = (yield* sim.stats).requests
        // wallet-history's holdings files need a PRO plan: on free, the five exports before them used to
        // run (and their files be written) before the sixth was refused.
        const free = Client.layer({ baseUrl: sim.baseUrl, apiKey: Redacted.make(sim.demoKeys.free), plan: "free" })
        for (const run of [Pipeline.run, PipelineRun.run]) {
          const error = yield* Effect.flip(run(walletHistory, config, { outDir, quiet: true })).pipe(Effect.provide(free))
          expect(error._tag).toBe("PlanTierError")
          expect(error).toMatchObject({ action: "addresstokenbalance", plan: "free", requiredPlan: "standard" })
          expect(yield* fs.readDirectory(outDir).pipe(Effect.orDie)).toEqual([])
        }
        // A source checked as it is made, whatever else the pipeline exports: dailygasused needs standard.
        const stats = yield* Effect.flip(Pipeline.check(chainDailyStats, chainDailyStats.demoConfig(sim.dataset))).pipe(Effect.provide(free))
        expect(stats).toMatchObject({ _tag: "PlanTierError", action: "dailygasused" })
        expect((yield* sim.stats).requests).toBe(before)
      })))

  it.effect("the check of every ready pipeline passes on Pro Plus and sends nothing, an ABI to fetch included", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const before = (yield* sim.stats).requests
      for (const pipeline of pipelines) yield* Pipeline.check(pipeline, pipeline.demoConfig(sim.dataset))
      expect(pipelines.map((p) => p.name)).toContain("contract-events")
      expect((yield* sim.stats).requests).toBe(before)
    }))

  it.effect("a config that does not match the schema is refused before anything runs", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const before = (yield* sim.stats).requests
      const bad = yield* Effect.exit(Pipeline.loadConfig(tokenActivity, { config: { token: "not an address" } }))
      expect(Exit.isFailure(bad)).toBe(true)
      // The erased pipeline checks the config it is given against its schema.
      const run = yield* Effect.flip(
        Pipeline.any(tokenActivity).run({ token: 42 }, { outDir: "unused", concurrency: 1, export: () => Effect.die("no export expected") })
      )
      expect(run._tag).toBe("InvalidInputError")
      // Not a call's failure: its message names no chain.
      expect(run.message).toMatch(/^pipeline\/run: /)
      expect((yield* sim.stats).requests).toBe(before)
    }))
})

describe("pipeline files", () => {
  layer(NodeContext.layer)((it) => {
    it.effect("the demo runs the four pipelines in order", () =>
      Effect.sync(() => {
        expect(pipelines.map((p) => p.name)).toEqual(["token-activity", "contract-events", "wallet-history", "chain-daily-stats"])
      }))

    it.effect("each config file beside a pipeline decodes with the pipeline's schema", () =>
      Effect.forEach(pipelines, (pipeline) =>
        Effect.gen(function*() {
          const config = yield* Pipeline.loadConfig(pipeline, {})
          expect(config).toBeTypeOf("object")
          // The real-API config names real-looking mainnet targets, not the simulator's.
          expect(config).toHaveProperty("chainId", 1)
        })))

    it.effect("explorer-etl run can load every pipeline file", () =>
      Effect.forEach(["token-activity", "contract-events", "wallet-history", "chain-daily-stats"], (name) =>
        Effect.map(loadPipeline(`pipelines/${name}.ts`), (loaded) => expect(loaded.name).toBe(name))))
  })
})
