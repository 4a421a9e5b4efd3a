/**
 * The manifest of an `events` export counts decoded and undecoded rows (issue 15): against a contract
 * whose logs mix ERC-20 Transfers, ERC-721-shaped Transfers and an event no ABI declares (the
 * simulator's `mixedLogs` scenario), `decodedRows`/`undecodedRows` equal the oracle's logs sorted by
 * hand (a Transfer with 2 indexed topics decodes, anything else does not) and the file's own empty
 * `event` rows — fresh, extended by a later `--resume`, and after a SIGKILL while partitions are under
 * way then `--resume`, in CSV and in Parquet (read back by DuckDB).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import * as Simulator from "../../src/simulator/index.js"
import { profileOf } from "../../src/simulator/profiles.js"
import { duckdbRows } from "../duckdb.js"
import { cliSuite, exited, readCsv, readJsonl, spawnCli, succeeded, until } from "./helpers.js"

const CHAIN = 42161
const MIXED = "0x00000000000000000000000000000000a1c0ffee"
const FROM = 7_000_000
/** 60 blocks of 300 logs: full 1,000-log pages, so a standard key's export reads in partitions. */
const mixedBlocks: ReadonlyArray<readonly [number, number]> = Array.from({ length: 60 }, (_, i) => [FROM + 5 + i * 23, 300] as const)
const TIMEOUT = 240_000

const suite = cliSuite("evcount", {
  dailyCaps: false,
  faults: { seed: 9, latency: { fixedMs: 80, jitterMs: 120 } },
  dataset: {
    chains: [1],
    busyWalletTransactions: 0,
    heavyContractLogs: 0,
    scenarios: [{ chainId: CHAIN, kind: "mixedLogs", address: MIXED, rowsPerBlock: mixedBlocks }]
  }
})
const { key, transcript } = suite

type Wire = Readonly<Record<string, unknown>>
interface Counts {
  readonly rows: number
  readonly decodedRows?: number
  readonly undecodedRows?: number
  readonly run: { readonly mode: string }
}

const ERC20_ABI = [
  { type: "event", name: "Transfer", anonymous: false, inputs: [{ name: "from", type: "address", indexed: true }, { name: "to", type: "address", indexed: true }, { name: "value", type: "uint256", indexed: false }] },
  { type: "event", name: "Approval", anonymous: false, inputs: [{ name: "owner", type: "address", indexed: true }, { name: "spender", type: "address", indexed: true }, { name: "value", type: "uint256", indexed: false }] }
]

const args = (out: string, apiKey: string, extra: ReadonlyArray<string>) => [
  "export", "events", "--address", MIXED, "--chain", String(CHAIN), "--from-block", String(FROM), "--to-block", String(FROM + 2_000),
  ...extra, "--out", out, "--base-url", suite.sim.baseUrl, "--api-key", apiKey, "--plan", "standard"
]

/** The oracle's logs of the contract (every one, or the Transfer-topic ones), split as an ERC-20 ABI decodes them. */
const oracle = (onlyTransfers: boolean, toBlock = FROM + 2_000) =>
  Effect.gen(function*() {
    const params = { address: MIXED, fromBlock: FROM, toBlock, ...(onlyTransfers ? { topic0: Simulator.TRANSFER_TOPIC } : {}) }
    const logs = (yield* Effect.orDie(suite.sim.oracle({ chainId: CHAIN, module: "logs", action: "getLogs", params }))) as ReadonlyArray<Wire>
    const decodes = (l: Wire) => {
      const topics = l.topics as ReadonlyArray<string>
      return topics[0] === Simulator.TRANSFER_TOPIC && topics.length === 3
    }
    const decoded = logs.filter(decodes).length
    return { rows: logs.length, decodedRows: decoded, undecodedRows: logs.length - decoded }
  })

const manifestOf = (out: string) => JSON.parse(readFileSync(`${out}.manifest.json`, "utf8")) as Counts
const stateOf = (out: string): { readonly partitions?: ReadonlyArray<unknown> } | undefined => {
  try {
    return JSON.parse(readFileSync(`${out}.state.json`, "utf8")) as { readonly partitions?: ReadonlyArray<unknown> }
  } catch {
    return undefined
  }
}

/** Rows of the file with an empty `event`, and all its rows. */
const emptyEvents = (out: string): Effect.Effect<{ rows: number; undecoded: number }> => {
  if (out.endsWith(".csv")) {
    return Effect.sync(() => {
      const { header, rows } = readCsv(readFileSync(out, "utf8"))
      const at = header.indexOf("event")
      return { rows: rows.length, undecoded: rows.filter((r) => r[at] === "").length }
    })
  }
  if (out.endsWith(".jsonl")) {
    return Effect.sync(() => {
      const rows = readJsonl(readFileSync(out, "utf8"))
      return { rows: rows.length, undecoded: rows.filter((r) => r.event === "").length }
    })
  }
  return Effect.map(
    duckdbRows(`SELECT count(*)::INTEGER AS rows, count(*) FILTER (WHERE event = '')::INTEGER AS undecoded FROM read_parquet('${out}')`),
    (rows) => rows[0] as { rows: number; undecoded: number }
  )
}

describe("decoded and undecoded rows in the manifest of an events export", () => {
  const freshKey = key("fresh")
  it.live("without --event (JSONL, --abi FILE): the counts equal the oracle's logs sorted by hand, and the file's empty events", () =>
    Effect.gen(function*() {
      const abi = join(suite.dir, "erc20.json")
      writeFileSync(abi, JSON.stringify(ERC20_ABI))
      const out = join(suite.dir, "every.jsonl")
      succeeded(yield* transcript.cli(args(out, freshKey, ["--abi", abi])))
      const expected = yield* oracle(false)
      // The mix is there: ERC-721-shaped Transfers and Paused events among the ERC-20 Transfers.
      expect(expected.undecodedRows).toBeGreaterThan(1_000)
      expect(expected.decodedRows).toBeGreaterThan(expected.undecodedRows)
      expect(manifestOf(out)).toMatchObject({ ...expected, run: { mode: "fresh" } })
      expect(yield* emptyEvents(out)).toEqual({ rows: expected.rows, undecoded: expected.undecodedRows })
    }), TIMEOUT)

  const extendKey = key("extend")
  it.live("a finished file extended with --resume: the counts of the whole file, its first part's kept", () =>
    Effect.gen(function*() {
      const abi = join(suite.dir, "erc20-extend.json")
      writeFileSync(abi, JSON.stringify(ERC20_ABI))
      const out = join(suite.dir, "extended.parquet")
      const latest = profileOf(CHAIN).latestBlock
      const cut = FROM + 700
      const base = [
        "export", "events", "--address", MIXED, "--chain", String(CHAIN), "--abi", abi, "--from-block", String(FROM),
        "--out", out, "--base-url", suite.sim.baseUrl, "--api-key", extendKey, "--plan", "standard"
      ]
      // The newest blocks held back: the file ends at `cut`.
      succeeded(yield* transcript.cli([...base, "--confirmations", String(latest - cut)]))
      const first = yield* oracle(false, cut)
      expect(first.undecodedRows).toBeGreaterThan(0)
      expect(manifestOf(out)).toMatchObject({ ...first, run: { mode: "fresh" } })
      succeeded(yield* transcript.cli([...base, "--resume"]))
      const whole = yield* oracle(false, latest)
      expect(whole.rows).toBeGreaterThan(first.rows)
      expect(manifestOf(out)).toMatchObject({ ...whole, run: { mode: "extended" } })
      expect(yield* emptyEvents(out)).toEqual({ rows: whole.rows, undecoded: whole.undecodedRows })
      // Without --event the arguments are one JSON object: a text column of its JSON (not a flag).
      expect((JSON.parse(readFileSync(`${out}.manifest.json`, "utf8")) as { columnTypes: ReadonlyArray<unknown> }).columnTypes)
        .toContainEqual({ name: "args", type: "string" })
      const args = yield* duckdbRows(`SELECT args FROM read_parquet('${out}') WHERE event = 'Transfer' LIMIT 1`)
      expect(Object.keys(JSON.parse(String(args[0]?.args)) as object)).toEqual(["from", "to", "value"])
    }), TIMEOUT)

  for (const format of ["csv", "parquet"] as const) {
    const killKey = key(`kill${format}`)
    it.live(`--event Transfer to ${format}: SIGKILL while partitions are under way, then --resume: the counts of the whole file`, () =>
      Effect.gen(function*() {
        const out = join(suite.dir, `killed.${format}`)
        const extra = ["--event", "Transfer(address indexed from,address indexed to,uint256 value)", "--checkpoint-every", "0"]
        const run = spawnCli(args(out, killKey, extra))
        yield* until(() => run.child.exitCode !== null || (stateOf(out)?.partitions?.length ?? 0) > 0, 120_000)
        run.child.kill("SIGKILL")
        const ended = yield* exited(run.child)
        transcript.record({ args: [`kill ${format}`], code: ended.code, signal: ended.signal, ...run.output })
        const expected = yield* oracle(true)
        expect(expected.undecodedRows).toBeGreaterThan(1_000)
        // Killed with rows counted in the checkpoint and its spools: the resumed run starts from them.
        expect(ended.signal).toBe("SIGKILL")
        succeeded(yield* transcript.cli(args(out, killKey, [...extra, "--resume"])))
        expect(manifestOf(out).run.mode).toBe("resumed")
        expect(manifestOf(out)).toMatchObject(expected)
        expect(yield* emptyEvents(out)).toEqual({ rows: expected.rows, undecoded: expected.undecodedRows })
      }), TIMEOUT)
  }
})
