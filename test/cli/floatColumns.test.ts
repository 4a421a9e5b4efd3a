/**
 * `--float-columns` (issue 15: "optionally with a float64 companion column"): a Parquet export gains a
 * DOUBLE `<name>_float` right after each exact decimal-string column, which DuckDB reads as the nearest
 * double of the exact amount; the manifest types it `float64`. With any other format the flag is
 * refused before any request, and no file is written.
 */
import { duckdbRows } from "../duckdb.js"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { cliSuite, failureOf, requestsWith, succeeded } from "./helpers.js"

const TIMEOUT = 240_000
const suite = cliSuite("floats", { dataset: { chains: [1], heavyContractLogs: 0 } })
const { key, transcript } = suite

interface ParquetManifest {
  readonly rows: number
  readonly columns: ReadonlyArray<string>
  readonly columnTypes: ReadonlyArray<{ readonly name: string; readonly type: string }>
}

const query = duckdbRows

describe("--float-columns", () => {
  const parquetKey = key("parquet", "standard")
  it.live("Parquet: a DOUBLE <name>_float after each decimal-string column, the exact amount's nearest double", () =>
    Effect.gen(function*() {
      const token = suite.sim.dataset.chain(1).proxyToken
      const out = join(suite.dir, "transfers.parquet")
      succeeded(yield* transcript.cli([
        "export", "erc20-transfers", "--contract", token.address, "--float-columns", "--out", out,
        "--base-url", suite.sim.baseUrl, "--api-key", parquetKey, "--plan", "standard"
      ]))
      const manifest = JSON.parse(readFileSync(`${out}.manifest.json`, "utf8")) as ParquetManifest
      expect(manifest.rows).toBeGreaterThan(0)
      const decimals = manifest.columnTypes.filter((c) => c.type === "decimalString").map((c) => c.name)
      expect(decimals).toContain("value")
      // Each companion follows its column, typed float64.
      for (const name of decimals) {
        const at = manifest.columns.indexOf(name)
        expect(manifest.columns[at + 1]).toBe(`${name}_float`)
        expect(manifest.columnTypes[at + 1]).toEqual({ name: `${name}_float`, type: "float64" })
      }
      const types = yield* query(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('${out}'))`)
      const typeOf = Object.fromEntries(types.map((t) => [t.column_name, t.column_type]))
      expect(typeOf.value).toBe("VARCHAR")
      expect(typeOf.value_float).toBe("DOUBLE")
      // A 24-decimal token: amounts beyond 2^53, where the double is only near the exact value.
      const rows = yield* query(`SELECT value, value_float FROM read_parquet('${out}')`)
      expect(rows.length).toBe(manifest.rows)
      for (const row of rows) expect(row.value_float).toBe(Number(row.value))
      expect(rows.some((row) => BigInt(String(row.value)) > 2n ** 53n)).toBe(true)
      for (const name of decimals) {
        const differ = yield* query(
          `SELECT count(*)::INTEGER AS n FROM read_parquet('${out}') WHERE "${name}_float" IS DISTINCT FROM CAST("${name}" AS DOUBLE)`
        )
        expect(differ).toEqual([{ n: 0 }])
      }
    }), TIMEOUT)

  const csvKey = key("csv", "standard")
  it.live("with CSV or JSONL: refused before any request, no file written", () =>
    Effect.gen(function*() {
      const token = suite.sim.dataset.chain(1).proxyToken
      for (const [out, extra] of [[join(suite.dir, "t.csv"), []], [join(suite.dir, "t.parquet"), ["--format", "jsonl"]]] as const) {
        const result = yield* transcript.cli([
          "export", "events", "--address", token.address, "--float-columns", ...extra, "--out", out,
          "--base-url", suite.sim.baseUrl, "--api-key", csvKey, "--plan", "standard"
        ])
        expect(failureOf(result, "InvalidInputError")).toContain("--float-columns")
        expect(existsSync(out)).toBe(false)
      }
      // Not even the ABI was fetched.
      expect(yield* requestsWith(suite.sim, csvKey)).toBe(0)
    }), TIMEOUT)
})
