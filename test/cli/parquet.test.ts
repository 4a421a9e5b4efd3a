/**
 * `explorer-etl export … --format parquet` (or `.parquet`) as a subprocess against the simulator, read
 * back by a real DuckDB: every row and cell equals the JSONL export of the same query (amounts as exact
 * decimal strings, block numbers and indexes as BIGINT, timestamps as TIMESTAMP WITH TIME ZONE), the
 * manifest names the format and each column's type, row groups hold 10,000 rows (fewer for wide rows of block-ordered data sets), and `--resume`
 * extends a finished Parquet file with the new blocks.
 */
import type { Json } from "@duckdb/node-api"
import { duckdbRows } from "../duckdb.js"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { Plan } from "../../src/Plan.js"
import type * as Simulator from "../../src/simulator/index.js"
import { madeUpKey, makeTempDir, readJsonl, removeDir, startSimulator, succeeded, Transcript } from "./helpers.js"

const keyPlans: Record<string, Plan> = {}
const key = (name: string, plan: Plan): string => {
  const k = madeUpKey(`q${name}`)
  keyPlans[k] = plan
  return k
}

/** The queries this file exports, each as JSONL (`<name>j`) and as Parquet (`<name>p`) with a key of its own. */
const queries: Record<string, Plan> = {
  holders: "standard", top: "standard", balances: "standard", nfts: "standard", gas: "standard", dailytx: "standard",
  logs: "standard", erc20: "free", txs: "free", internal: "free", extend: "free"
}
for (const [name, plan] of Object.entries(queries)) for (const kind of ["j", "p"]) key(`${name}${kind}`, plan)

/** Generous: a 2-core machine runs several CLI processes at once; nothing here asserts on time. */
const TIMEOUT = 240_000

const transcript = new Transcript()
let sim: Simulator.Simulator.Service
let close: () => Promise<void>
let dir: string

beforeAll(async () => {
  const started = await startSimulator({ keys: keyPlans, dataset: { heavyContractLogs: 12_000 } })
  sim = started.sim
  close = started.close
  dir = await makeTempDir("cli-parquet-")
})

afterAll(async () => {
  await close?.()
  if (dir !== undefined) await removeDir(dir)
})

const exportWith = (plan: Plan, apiKey: string, args: ReadonlyArray<string>) =>
  transcript.cli(["export", ...args, "--base-url", sim.baseUrl, "--api-key", apiKey, "--plan", plan])

interface ParquetManifest {
  readonly format: string
  readonly rows: number
  readonly columns: ReadonlyArray<string>
  readonly columnTypes: ReadonlyArray<{ readonly name: string; readonly type: string }>
  readonly blockRange: { readonly from: number; readonly to: number } | null
  readonly run: { readonly mode: string; readonly rowsWritten: number }
}
const manifestOf = (out: string) => JSON.parse(readFileSync(`${out}.manifest.json`, "utf8")) as ParquetManifest

/** Runs SQL on a fresh in-memory DuckDB. */
const sql = duckdbRows

const duckTypes: Record<string, string> = {
  int64: "BIGINT",
  timestamp: "TIMESTAMP WITH TIME ZONE",
  string: "VARCHAR",
  decimalString: "VARCHAR",
  float64: "DOUBLE",
  bool: "BOOLEAN"
}

const quoted = (name: string) => `"${name.replace(/"/g, "\"\"")}"`

/** A column as text in SQL: integers in decimal, timestamps as unix seconds, flags as true/false. */
const selectOf = (name: string, type: string): string =>
  type === "timestamp"
    ? `CAST(CAST(epoch(${quoted(name)}) AS BIGINT) AS VARCHAR) AS ${quoted(name)}`
    : type === "float64"
    ? quoted(name)
    : `CAST(${quoted(name)} AS VARCHAR) AS ${quoted(name)}`

/** Text fields the API leaves "" for none, written as NULL (see Parquet.columnsOf). */
const emptyAsNull = new Set(["to", "contractAddress", "blockHash"])

/** A JSONL cell of column `name` as the Parquet file must hold it, in the text `selectOf` reads (null for none). */
const expectedCell = (name: string, value: unknown, type: string): Json => {
  if (value === undefined || value === null) return null
  if (type === "string" && value === "" && emptyAsNull.has(name)) return null
  if (type === "string") return typeof value === "string" ? value : JSON.stringify(value)
  if (value === "") return null
  if (type === "int64" || type === "timestamp") return BigInt(String(value) === "0x" ? 0 : String(value)).toString()
  if (type === "decimalString") {
    const text = String(value)
    return /^0x/i.test(text) ? (text.length === 2 ? "0" : BigInt(text).toString()) : text
  }
  if (type === "bool") return value === "1" || value === true || value === "true" ? "true" : "false"
  return Number(value)
}

/** The JSONL rows as the Parquet columns should read (`topics` spread over topic0..topic3). */
const expectedRows = (jsonl: ReadonlyArray<Readonly<Record<string, unknown>>>, m: ParquetManifest) =>
  jsonl.map((record) =>
    Object.fromEntries(m.columnTypes.map(({ name, type }) => {
      const topic = /^topic([0-3])$/.exec(name)
      const value = topic !== null && Array.isArray(record["topics"])
        ? (record["topics"] as ReadonlyArray<unknown>)[Number(topic[1])]
        : record[name]
      return [name, expectedCell(name, value, type)]
    }))
  )

/**
 * The Parquet file read by DuckDB equals the JSONL export: same columns (types from the manifest, as
 * DuckDB sees them), same rows in the same order, cell for cell.
 */
const expectSameRows = (parquet: string, jsonl: string) =>
  Effect.gen(function*() {
    const m = manifestOf(parquet)
    expect(m.format).toBe("parquet")
    expect(m.columnTypes.map((c) => c.name)).toEqual(m.columns)
    const described = yield* sql(`DESCRIBE SELECT * FROM read_parquet('${parquet}')`)
    expect(Object.fromEntries(described.map((r) => [r["column_name"], r["column_type"]]))).toEqual(
      Object.fromEntries(m.columnTypes.map((c) => [c.name, duckTypes[c.type]]))
    )
    const records = readJsonl(readFileSync(jsonl, "utf8"))
    expect(records.length).toBeGreaterThan(0)
    expect(m.rows).toBe(records.length)
    const rows = yield* sql(
      `SELECT ${m.columnTypes.map((c) => selectOf(c.name, c.type)).join(", ")} FROM read_parquet('${parquet}')`
    )
    expect(rows.length).toBe(records.length)
    const expected = expectedRows(records, m)
    // Compared row by row: a difference names its row.
    for (let i = 0; i < rows.length; i++) {
      if (JSON.stringify(rows[i]) !== JSON.stringify(expected[i])) expect({ row: i, ...rows[i] }).toEqual({ row: i, ...expected[i] })
    }
    return m
  })

/** Rows of each row group of a Parquet file, in order. */
const rowGroupsOf = (file: string) =>
  Effect.map(
    sql(`SELECT row_group_id, any_value(row_group_num_rows) AS n FROM parquet_metadata('${file}') GROUP BY 1 ORDER BY 1`),
    (rows) => rows.map((r) => Number(r["n"]))
  )

/** Exports the same query as JSONL and as Parquet, and compares them through DuckDB. */
const both = (name: string, plan: Plan, args: ReadonlyArray<string>, parquetFlag: "extension" | "format") =>
  Effect.gen(function*() {
    const jsonl = join(dir, `${name}.jsonl`)
    const parquet = join(dir, parquetFlag === "extension" ? `${name}.parquet` : `${name}.data`)
    succeeded(yield* exportWith(plan, madeUpKey(`q${name}j`), [...args, "--out", jsonl]))
    const result = succeeded(
      yield* exportWith(plan, madeUpKey(`q${name}p`), [
        ...args, "--out", parquet, ...(parquetFlag === "format" ? ["--format", "parquet"] : [])
      ])
    )
    const m = yield* expectSameRows(parquet, jsonl)
    expect(result.stderr).toMatch(new RegExp(`wrote ${m.rows.toLocaleString("en-US")} rows? to`))
    // Nothing but the file, its manifest (and a block export's state) is left beside it.
    expect(readdirSync(dir).filter((f) => f.startsWith(`.${name}`))).toEqual([])
    return { parquet, manifest: m }
  })

describe.concurrent("export --format parquet: list data sets", () => {
  it.live("holders (--format parquet): row groups of 10,000 rows at most, amounts as decimal strings", () =>
    Effect.gen(function*() {
      const token = sim.dataset.chain(1).airdropToken.address
      const { parquet, manifest } = yield* both("holders", "standard", ["holders", "--contract", token], "format")
      expect(manifest.columnTypes).toContainEqual({ name: "TokenHolderQuantity", type: "decimalString" })
      const groups = yield* rowGroupsOf(parquet)
      expect(groups.reduce((a, b) => a + b, 0)).toBe(manifest.rows)
      groups.slice(0, -1).forEach((n) => expect(n).toBe(10_000))
      groups.forEach((n) => expect(n).toBeLessThanOrEqual(10_000))
    }), TIMEOUT)

  it.live("top-holders, token-balances, nft-holdings (.parquet)", () =>
    Effect.gen(function*() {
      const c = sim.dataset.chain(1)
      const token = c.erc20[0]?.address ?? ""
      const wallet = c.wallets[0]?.address ?? ""
      yield* both("top", "standard", ["top-holders", "--contract", token, "--limit", "5"], "extension")
      yield* both("balances", "standard", ["token-balances", "--address", wallet], "extension")
      yield* both("nfts", "standard", ["nft-holdings", "--address", wallet], "extension")
    }), TIMEOUT)

  it.live("daily-gas and daily-tx: dates as text, counts as integers", () =>
    Effect.gen(function*() {
      const range = ["--start-date", "2025-01-01", "--end-date", "2025-01-31"]
      const gas = yield* both("gas", "standard", ["daily-gas", ...range], "extension")
      expect(gas.manifest.rows).toBe(31)
      yield* both("dailytx", "standard", ["daily-tx", ...range], "extension")
    }), TIMEOUT)
})

describe.concurrent("export --format parquet: block-ordered data sets", () => {
  it.live("logs of a contract with a dense block (12,000 rows): topics as topic0..topic3, hex numbers as integers", () =>
    Effect.gen(function*() {
      const c = sim.dataset.chain(1)
      const { parquet, manifest } = yield* both("logs", "standard", [
        "logs", "--address", c.heavyContract.address, "--from-block", String(c.activity.fromBlock), "--to-block", String(c.latestBlock)
      ], "extension")
      expect(manifest.rows).toBe(12_000)
      expect(manifest.columnTypes.slice(0, 5).map((t) => t.name)).toEqual(["address", "topic0", "topic1", "topic2", "topic3"])
      expect(manifest.columnTypes).toContainEqual({ name: "blockNumber", type: "int64" })
      expect(manifest.blockRange).toEqual({ from: c.activity.fromBlock, to: c.latestBlock })
      expect((yield* rowGroupsOf(parquet)).reduce((a, b) => a + b, 0)).toBe(12_000)
      // The state beside it says the file is published, with its row groups for a later --resume.
      const state = JSON.parse(readFileSync(`${parquet}.state.json`, "utf8")) as { phase: string; format: string; parquet?: unknown }
      expect(state).toMatchObject({ phase: "published", format: "parquet" })
      expect(state.parquet).toBeDefined()
    }), TIMEOUT)

  it.live("erc20-transfers of a token, txs and internal-txs of a wallet (--format parquet)", () =>
    Effect.gen(function*() {
      const c = sim.dataset.chain(1)
      const wallet = c.wallets[1]?.address ?? ""
      const erc20 = yield* both("erc20", "free", ["erc20-transfers", "--contract", c.erc20[0]?.address ?? ""], "format")
      expect(erc20.manifest.columnTypes).toContainEqual({ name: "value", type: "decimalString" })
      expect(erc20.manifest.columnTypes).toContainEqual({ name: "timeStamp", type: "timestamp" })
      yield* both("txs", "free", ["txs", "--address", wallet], "format")
      yield* both("internal", "free", ["internal-txs", "--address", wallet], "format")
    }), TIMEOUT)

  it.live("--confirmations keeps the newest blocks out; --resume extends the finished Parquet file; again: unchanged", () =>
    Effect.gen(function*() {
      const c = sim.dataset.chain(1)
      const token = c.erc20[1]?.address ?? ""
      const out = join(dir, "extend.parquet")
      const jsonl = join(dir, "extend.jsonl")
      const args = ["erc20-transfers", "--contract", token]
      const apiKey = madeUpKey("qextendp")
      succeeded(yield* exportWith("free", apiKey, [...args, "--out", out, "--confirmations", "100000"]))
      const first = manifestOf(out)
      expect(first.run.mode).toBe("fresh")
      expect(first.blockRange).toEqual({ from: 0, to: c.latestBlock - 100_000 })

      const extended = succeeded(yield* exportWith("free", apiKey, [...args, "--out", out, "--resume"]))
      expect(extended.stderr).toMatch(/^appended [\d,]+ rows to /)
      succeeded(yield* exportWith("free", madeUpKey("qextendj"), [...args, "--out", jsonl]))
      const second = yield* expectSameRows(out, jsonl)
      expect(second.rows).toBeGreaterThan(first.rows)
      expect(second).toMatchObject({
        blockRange: { from: 0, to: c.latestBlock },
        run: { mode: "extended", rowsWritten: second.rows - first.rows }
      })
      // The first run's row groups are kept as they were; the new blocks' rows follow in groups of their own.
      const groups = yield* rowGroupsOf(out)
      expect(groups.reduce((a, b) => a + b, 0)).toBe(second.rows)

      const before = readFileSync(out)
      const again = succeeded(yield* exportWith("free", apiKey, [...args, "--out", out, "--resume"]))
      expect(again.stderr).toMatch(/^no new blocks for /)
      expect(readFileSync(out).equals(before)).toBe(true)
      expect(manifestOf(out).run).toEqual({ mode: "unchanged", rowsWritten: 0 })
    }), TIMEOUT)
})

describe("secrets", () => {
  afterAll(() => {
    expect(transcript.leaks(Object.keys(keyPlans))).toEqual([])
  })
  it("no API key appears in any output", () => {
    expect(transcript.leaks(Object.keys(keyPlans))).toEqual([])
  })
})
