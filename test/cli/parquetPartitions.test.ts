/**
 * Partitioned Parquet exports through the CLI against a simulator that answers late: partitions spool
 * their rows as JSONL lines and the temporary Parquet file takes them in block order, so DuckDB reads
 * the JSONL export's rows; a SIGKILL once partitions are under way, then `--resume`, ends with exactly
 * those rows too, without reading again the rows the checkpoint's spools hold (`--checkpoint-every 0`).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type * as Simulator from "../../src/simulator/index.js"
import { duckdbRows } from "../duckdb.js"
import { exited, madeUpKey, makeTempDir, readJsonl, removeDir, spawnCli, startSimulator, succeeded, Transcript, until } from "./helpers.js"

const TIMEOUT = 240_000
const keyPlans: Record<string, "standard"> = {}
const key = (name: string): string => {
  const k = madeUpKey(`pq${name}`)
  keyPlans[k] = "standard"
  return k
}
const keys = { jsonl: key("jsonl"), many: key("many"), kills: [key("kill0"), key("kill1")] }

const transcript = new Transcript()
let sim: Simulator.Simulator.Service
let close: () => Promise<void>
let dir: string

beforeAll(async () => {
  const started = await startSimulator({
    keys: keyPlans,
    dataset: { heavyContractLogs: 20_000 },
    faults: { latency: { fixedMs: 100, jitterMs: 150 } }
  })
  sim = started.sim
  close = started.close
  dir = await makeTempDir("cli-parquet-partitions-")
})

afterAll(async () => {
  await close?.()
  if (dir !== undefined) await removeDir(dir)
})

const logsArgs = (out: string, apiKey: string) => {
  const c = sim.dataset.chain(1)
  return [
    "export", "logs", "--address", c.heavyContract.address, "--from-block", String(c.activity.fromBlock),
    "--to-block", String(c.latestBlock), "--out", out, "--base-url", sim.baseUrl, "--api-key", apiKey, "--plan", "standard"
  ]
}

/** The JSONL export's rows as DuckDB reads them from the Parquet file (see test/cli/parquet.test.ts for every type). */
const expected = (records: ReadonlyArray<Readonly<Record<string, unknown>>>) =>
  records.map((r) => {
    const topics = r["topics"] as ReadonlyArray<string>
    const decimal = (v: unknown) => BigInt(v === "0x" ? 0 : String(v)).toString()
    return {
      transactionHash: r["transactionHash"], logIndex: decimal(r["logIndex"]), blockNumber: decimal(r["blockNumber"]),
      topic0: topics[0] ?? null, topic3: topics[3] ?? null, data: r["data"], gasPrice: decimal(r["gasPrice"])
    }
  })

const parquetRows = (file: string) =>
  duckdbRows(
    `SELECT transactionHash, logIndex::VARCHAR AS logIndex, blockNumber::VARCHAR AS blockNumber, topic0, topic3, data,
     gasPrice FROM read_parquet('${file}')`
  )

let reference: ReadonlyArray<unknown> | undefined
const jsonlRows = Effect.gen(function*() {
  if (reference !== undefined) return reference
  const out = join(dir, "one.jsonl")
  succeeded(yield* transcript.cli([...logsArgs(out, keys.jsonl), "--concurrency", "1"]))
  reference = expected(readJsonl(readFileSync(out, "utf8")))
  return reference
})

interface State {
  readonly rows: number
  readonly format: string
  readonly partitions?: ReadonlyArray<{ readonly rows: number; readonly spoolFile: string }>
}
const stateOf = (out: string): State | undefined => {
  try {
    return JSON.parse(readFileSync(`${out}.state.json`, "utf8")) as State
  } catch {
    return undefined
  }
}

describe("partitioned Parquet exports through the CLI", () => {
  it.live("read in partitions, hold the JSONL export's rows in block order", () =>
    Effect.gen(function*() {
      const rows = yield* jsonlRows
      expect(rows.length).toBe(20_000)
      const out = join(dir, "many.parquet")
      const result = succeeded(yield* transcript.cli(logsArgs(out, keys.many)))
      expect(result.stderr).toMatch(/wrote 20,000 rows/)
      expect(yield* parquetRows(out)).toEqual(rows)
      expect(readdirSync(dir).filter((n) => n.startsWith(".many"))).toEqual([])
    }), TIMEOUT)

  for (const [i, kill] of keys.kills.entries()) {
    it.live(`SIGKILL once partitions are under way (${i + 1}), then --resume: exactly the rows, spooled rows not read again`, () =>
      Effect.gen(function*() {
        const rows = yield* jsonlRows
        const out = join(dir, `kill${i}.parquet`)
        // A checkpoint as soon as the previous one ends (Parquet's default is one every 10 s).
        const run = spawnCli([...logsArgs(out, kill), "--checkpoint-every", "0"])
        yield* until(() => (stateOf(out)?.partitions?.length ?? 0) > 0)
        yield* Effect.sleep(Math.floor(Math.random() * 1_000))
        run.child.kill("SIGKILL")
        const ended = yield* exited(run.child)
        transcript.record({ args: [`kill${i}`], code: ended.code, signal: ended.signal, ...run.output })
        if (ended.signal !== "SIGKILL") return expect(yield* parquetRows(out)).toEqual(rows)
        const state = stateOf(out)
        expect(state?.format).toBe("parquet")
        const kept = (state?.rows ?? 0) + (state?.partitions ?? []).reduce((n, p) => n + p.rows, 0)
        for (const p of state?.partitions ?? []) expect(existsSync(join(dir, p.spoolFile))).toBe(true)
        const resumed = succeeded(yield* transcript.cli([...logsArgs(out, kill), "--resume"]))
        expect(yield* parquetRows(out)).toEqual(rows)
        const appended = Number(/appended ([\d,]+) rows?/.exec(resumed.stderr)?.[1]?.replace(/,/g, ""))
        expect(appended).toBe(20_000 - kept)
        expect(readdirSync(dir).filter((n) => n.startsWith(`.kill${i}`))).toEqual([])
      }), TIMEOUT)
  }

  afterAll(() => {
    expect(transcript.leaks(Object.keys(keyPlans))).toEqual([])
  })
})
