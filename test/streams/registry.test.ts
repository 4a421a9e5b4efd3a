/**
 * The registry of data sets (src/streams/datasets/) is the one place a data set is defined: every data
 * set it lists is reachable as a source, a stream, an `export` command (with its one line in the help)
 * and a row of the docs table, and nothing is reachable in one of those places that the registry does
 * not list. A data set added in a test fixture (one file, nothing else edited) appears in all of them.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer, Redacted, Stream } from "effect"
import * as Command from "@effect/cli/Command"
import { NodeContext } from "@effect/platform-node"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as DatasetsTable from "../../src/cli/DatasetsTable.js"
import { exportCommandOf } from "../../src/cli/ExportCommand.js"
import * as Help from "../../src/cli/Help.js"
import { help } from "../../src/cli/Tree.js"
import * as Client from "../../src/ExplorerClient.js"
import * as Parquet from "../../src/sinks/Parquet.js"
import * as Simulator from "../../src/simulator/index.js"
import * as Dataset from "../../src/streams/Dataset.js"
import * as Registry from "../../src/streams/datasets/index.js"
import { streamsOf } from "../../src/streams/datasets/streams.js"
import * as Readable from "../../src/streams/Readable.js"
import * as Sources from "../../src/streams/Sources.js"
import * as Streams from "../../src/streams/Streams.js"
import { walletTransactions } from "../fixtures/datasets/walletTransactions.js"

/** What Sources and Streams export besides the data sets. */
const notDatasets = {
  sources: new Set(["oneCall", "fromStream", "fromBlocks", "chainIdsOf", "withDecimals", "dailyStatistics"]),
  streams: new Set(["fromSource", "fromSourceFunction", "resolveRange"])
}

const functionsOf = (module: object): ReadonlyArray<string> =>
  Object.entries(module).filter(([, value]) => typeof value === "function").map(([name]) => name)

const datasets = Registry.list(Registry.library)

describe("the registry is the one list of data sets", () => {
  it("lists each data set under its own name, with a command of its own", () => {
    for (const [key, dataset] of Object.entries(Registry.library)) expect(dataset.name).toBe(key)
    const commands = datasets.map((d) => d.command)
    expect(new Set(commands).size).toBe(commands.length)
  })

  it("every data set is a source and a stream under its name, and every source and stream a data set", () => {
    const names = datasets.map((d) => d.name).sort()
    expect(functionsOf(Sources).filter((n) => !notDatasets.sources.has(n)).sort()).toEqual(names)
    expect(functionsOf(Streams).filter((n) => !notDatasets.streams.has(n)).sort()).toEqual(names)
    // The sources are the registry's own (dailyStatistic takes the statistic apart from its query).
    for (const dataset of datasets) {
      if (dataset.name !== "dailyStatistic") expect((Sources as Record<string, unknown>)[dataset.name], dataset.name).toBe(dataset.source)
    }
  })

  it("every data set is an export command with its one line, and every export command a data set", () => {
    expect(help.namesAt(["export"])).toEqual(datasets.map((d) => d.command).sort())
    const listing = help.render(["export"], 400)
    for (const dataset of datasets) {
      const line = listing.split("\n").find((l) => l.trimStart().startsWith(`${dataset.command} `))
      expect(line, dataset.command).toContain(dataset.description)
    }
  })

  it("each command takes the filters the docs table names", () => {
    for (const dataset of datasets) {
      const page = help.render(["export", dataset.command], 400)
      for (const filter of DatasetsTable.filtersOf(dataset)) {
        const flag = /`(--[\w-]+)/.exec(filter)?.[1] as string
        expect(page, `${dataset.command} ${flag}`).toContain(flag)
      }
    }
  })

  it("--decimals is for the data sets that say how, and Readable takes exactly those", () => {
    expect([...Readable.datasets].sort()).toEqual(datasets.filter((d) => d.decimals !== undefined).map((d) => d.name).sort())
    for (const dataset of datasets) {
      expect(help.render(["export", dataset.command], 400).includes("--decimals"), dataset.command).toBe(dataset.decimals !== undefined)
    }
  })

  it("the Parquet types a data set gives are the file's", () => {
    let checked = 0
    for (const dataset of datasets) {
      if (dataset.parquet === undefined || dataset.schema === undefined || !("ast" in dataset.schema)) continue
      const columns = Effect.runSync(Parquet.columnsOf(dataset.schema as never))
      for (const [field, type] of Object.entries(dataset.parquet)) {
        expect(columns.find((c) => c.name === field)?.type, `${dataset.name}.${field}`).toBe(type)
        checked++
      }
    }
    expect(checked).toBeGreaterThan(0)
  })

  it("every operation a data set names is one of the client's", async () => {
    const Plan = await import("../../src/Plan.js")
    for (const dataset of datasets) for (const op of Dataset.operationsOf(dataset)) expect(Plan.operations[op], op).toBeDefined()
  })
})

// A registry with one more data set: the library's and the fixture's.
const withFixture = { ...Registry.library, walletTransactions }

const SimulatorLive = Simulator.layer({ seed: 3, enforceRateLimits: false, dailyCaps: false })
const clientLive = Layer.unwrapEffect(
  Effect.map(Simulator.Simulator, (sim) =>
    Client.layer({
      baseUrl: sim.baseUrl,
      apiKey: Redacted.make(sim.demoKeys.standard),
      plan: "standard",
      rate: { callsPerSecond: 1_000, throttledPerSecond: 1_000 }
    }))
).pipe(Layer.provide(NodeHttpClient.layerUndici))

layer(Layer.provideMerge(clientLive, SimulatorLive), { timeout: "120 seconds", excludeTestServices: true })("a data set added in one file", (it) => {
  it.effect("is a source and a stream, reading what the library's transactions read", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallet = sim.dataset.chain(1).wallets[0]?.address ?? ""
      const query = { chainId: 1, address: wallet, fromBlock: 0 }
      const source = yield* Registry.sourcesOf(withFixture).walletTransactions(query)
      expect(source.dataset).toBe("walletTransactions")
      const rows = yield* Stream.runCollect(streamsOf(withFixture).walletTransactions(query))
      const expected = yield* Stream.runCollect(Streams.transactions(query))
      expect(rows.length).toBeGreaterThan(0)
      expect([...rows]).toEqual([...expected])
    }))

  it("is an export command with its flag and its one line in the help", () => {
    const exportCommand = exportCommandOf(withFixture)
    const root = Command.make("explorer-etl").pipe(Command.withSubcommands([exportCommand]))
    const tree = Help.make({ root, nested: { export: exportCommand }, childNoun: { export: "data set" }, version: "0" })
    expect(tree.namesAt(["export"])).toContain("wallet-txs")
    expect(tree.namesAt(["export"])).toHaveLength(datasets.length + 1)
    expect(tree.render(["export"], 200)).toContain("every transaction of one wallet, for the registry's test (txlist)")
    const page = tree.render(["export", "wallet-txs"], 200)
    expect(page).toContain("--wallet <text>")
    expect(page).toContain("the wallet's 0x address")
    expect(page).toContain("--from-block")
    // and nowhere else: the library's command line does not have it
    expect(help.namesAt(["export"])).not.toContain("wallet-txs")
  })

  it("is a row of the docs table", () => {
    const table = DatasetsTable.render(withFixture)
    expect(table).toContain("| `wallet-txs` | `Sources.walletTransactions` | `--wallet`, `--from-block N`, `--to-block N\\|latest` | txlist (free) |")
    expect(table.split("\n")).toHaveLength(datasets.length + 3)
  })
})

layer(Simulator.layer({}), { timeout: "120 seconds", excludeTestServices: true })("a data set added in one file, run", (it) => {
  it.effect("export wallet-txs --simulator writes the wallet's transactions and a manifest naming the data set", () =>
    Effect.gen(function*() {
      // The embedded simulator (--simulator) is made from the same options: the same wallets.
      const sim = yield* Simulator.Simulator
      const wallet = sim.dataset.chain(1).wallets[0]?.address ?? ""
      const expected = yield* sim.oracle({ chainId: 1, module: "account", action: "txlist", params: { address: wallet } })
      const dir = mkdtempSync(join(tmpdir(), "registry-"))
      const out = join(dir, "wallet.jsonl")
      const root = Command.make("explorer-etl").pipe(Command.withSubcommands([exportCommandOf(withFixture)]))
      yield* Command.run(root, { name: "explorer-etl", version: "0" })(
        ["node", "explorer-etl", "export", "wallet-txs", "--wallet", wallet, "--out", out, "--simulator", "--quiet"]
      ).pipe(Effect.provide(NodeContext.layer))
      const lines = readFileSync(out, "utf8").trim().split("\n")
      const manifest = JSON.parse(readFileSync(`${out}.manifest.json`, "utf8")) as { readonly dataset?: string }
      rmSync(dir, { recursive: true, force: true })
      expect(expected.length).toBeGreaterThan(0)
      expect(lines).toHaveLength(expected.length)
      expect(manifest.dataset).toBe("walletTransactions")
    }))
})
