/**
 * `explorer-etl export mined-blocks`, `export beacon-withdrawals` and `export daily-stats` (issue 16) as subprocesses against
 * a simulator: the files hold exactly the oracle's rows (the server's text: decimal strings, the
 * withdrawals' lower-case `timestamp`), a block range narrows the withdrawals, and a flag of another
 * data set is refused before any request.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import type * as Simulator from "../../src/simulator/index.js"
import { failureOf, madeUpKey, makeTempDir, removeDir, requestsWith, startSimulator, succeeded, Transcript } from "./helpers.js"

const TIMEOUT = 240_000
const KEY = madeUpKey("account16")
const OTHER = madeUpKey("account16flag")
const PRO = madeUpKey("account16pro")

const transcript = new Transcript()
let sim: Simulator.Simulator.Service
let close: () => Promise<void>
let dir: string

beforeAll(async () => {
  const started = await startSimulator({
    keys: { [KEY]: "free", [OTHER]: "free", [PRO]: "standard" },
    dataset: { chains: [1], busyWalletTransactions: 0, heavyContractLogs: 0 }
  })
  sim = started.sim
  close = started.close
  dir = await makeTempDir("cli-account16-")
})

afterAll(async () => {
  await close?.()
  if (dir !== undefined) await removeDir(dir)
})

const api = (key: string) => ["--base-url", sim.baseUrl, "--api-key", key, "--plan", "free", "--quiet"]
const jsonl = (text: string) => text.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>)

describe("export of the issue 16 account lists", () => {
  it.live("mined-blocks: the solo validator's blocks, newest first, as the oracle lists them", () =>
    Effect.gen(function*() {
      const validator = sim.dataset.chain(1).soloValidator.address
      const out = join(dir, "mined.jsonl")
      succeeded(yield* transcript.cli(["export", "mined-blocks", "--address", validator, "--out", out, ...api(KEY)]))
      const rows = jsonl(yield* Effect.promise(() => readFile(out, "utf8")))
      const oracle = yield* Effect.orDie(sim.oracle({ chainId: 1, module: "account", action: "getminedblocks", params: { address: validator } }))
      expect(rows).toEqual(oracle)
      expect(rows.length).toBeGreaterThan(50)
      const manifest = JSON.parse(yield* Effect.promise(() => readFile(`${out}.manifest.json`, "utf8"))) as { dataset: string }
      expect(manifest.dataset).toBe("minedBlocks")
    }), TIMEOUT)

  it.live("beacon-withdrawals: every withdrawal of the range once, in block order", () =>
    Effect.gen(function*() {
      const c = sim.dataset.chain(1)
      const from = c.activity.fromBlock + 50_000
      const to = c.activity.fromBlock + 150_000
      const out = join(dir, "withdrawals.csv")
      succeeded(yield* transcript.cli([
        "export", "beacon-withdrawals", "--address", c.staker.address, "--from-block", String(from), "--to-block", String(to), "--out", out, ...api(KEY)
      ]))
      const [header, ...lines] = (yield* Effect.promise(() => readFile(out, "utf8"))).trimEnd().split("\n")
      expect(header).toBe("withdrawalIndex,validatorIndex,address,amount,blockNumber,timestamp")
      const oracle = yield* Effect.orDie(sim.oracle({
        chainId: 1, module: "account", action: "txsBeaconWithdrawal", params: { address: c.staker.address, startblock: from, endblock: to }
      }))
      expect(lines).toEqual(oracle.map((r) => [r.withdrawalIndex, r.validatorIndex, r.address, r.amount, r.blockNumber, r.timestamp].join(",")))
      expect(lines.length).toBeGreaterThan(100)
    }), TIMEOUT)

  it.live("daily-stats --stat: any daily statistic, the oracle's rows in CSV (a free key is refused: PRO)", () =>
    Effect.gen(function*() {
      const out = join(dir, "prices.csv")
      const dates = ["--start-date", "2025-09-01", "--end-date", "2025-09-04", "--sort", "desc"]
      succeeded(yield* transcript.cli([
        "export", "daily-stats", "--stat", "dailyavggasprice", ...dates, "--out", out,
        "--base-url", sim.baseUrl, "--api-key", PRO, "--plan", "standard", "--quiet"
      ]))
      const [header, ...lines] = (yield* Effect.promise(() => readFile(out, "utf8"))).trimEnd().split("\n")
      expect(header).toBe("UTCDate,unixTimeStamp,maxGasPrice_Wei,minGasPrice_Wei,avgGasPrice_Wei")
      const oracle = yield* Effect.orDie(sim.oracle({
        chainId: 1, module: "stats", action: "dailyavggasprice", params: { startdate: "2025-09-01", enddate: "2025-09-04", sort: "desc" }
      }))
      expect(lines).toEqual(oracle.map((r) => [r.UTCDate, r.unixTimeStamp, r.maxGasPrice_Wei, r.minGasPrice_Wei, r.avgGasPrice_Wei].join(",")))
      expect(lines[0]?.startsWith("2025-09-04,")).toBe(true)
      const refused = yield* transcript.cli(["export", "daily-stats", "--stat", "ethdailyprice", ...dates, "--out", join(dir, "p.csv"), ...api(KEY)])
      expect(failureOf(refused, "PlanTierError")).toContain("stats/ethdailyprice")
    }), TIMEOUT)

  it.live("a flag of another data set is refused before any request", () =>
    Effect.gen(function*() {
      const result = yield* transcript.cli([
        "export", "mined-blocks", "--address", sim.dataset.chain(1).soloValidator.address, "--from-block", "5", "--out", join(dir, "x.csv"), ...api(OTHER)
      ])
      expect(result.code).not.toBe(0)
      expect(yield* requestsWith(sim, OTHER)).toBe(0)
    }), TIMEOUT)
})
