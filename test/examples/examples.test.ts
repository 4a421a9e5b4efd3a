/**
 * The example scripts as a user runs them: `node --import tsx examples/<name>.ts <dir>` from the repo
 * root with no API key in the environment (so each starts its own embedded simulator). All six run at
 * once as separate processes; each must exit 0, print its result and write its file, whose rows are
 * checked against the oracle of a simulator with the same (default) data set.
 */
import { afterAll, beforeAll, describe, expect, layer } from "@effect/vitest"
import { parse } from "csv-parse/sync"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import * as Simulator from "../../src/simulator/index.js"

const root = resolve(import.meta.dirname, "../..")
const examples = [
  "top-holders-to-csv",
  "wallet-transfers-by-token",
  "decode-logs-with-abi",
  "gas-per-day",
  "address-tags-of-label",
  "duckdb-top-senders"
] as const
type Example = (typeof examples)[number]

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  readonly dir: string
}

/** The environment of the user's shell minus anything that would point a script at the real API. */
const env = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !/^(EXPLORER_|ETHERSCAN_|EXAMPLE_)/.test(name))
)

const tmp = mkdtempSync(join(tmpdir(), "explorer-etl-examples-"))
const runs = new Map<Example, Promise<Run>>()

const start = (name: Example): Promise<Run> => {
  const dir = join(tmp, name)
  return new Promise((done) => {
    execFile(
      process.execPath,
      ["--import", "tsx", `examples/${name}.ts`, dir],
      { cwd: root, env, timeout: 90_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr, dir })
    )
  })
}

// Every script starts at once: they are separate processes, mostly waiting on their own simulator.
beforeAll(() => {
  for (const name of examples) runs.set(name, start(name))
})
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** The finished run of an example, which must have exited 0 and printed nothing on stderr but progress. */
const finished = (name: Example) =>
  Effect.promise(() => runs.get(name) ?? Promise.reject(new Error(`${name} was not started`))).pipe(
    Effect.tap((run) =>
      Effect.sync(() => {
        expect(run.stderr, `stderr of ${name}`).not.toMatch(/^error /m)
        expect(run.code, `exit code of ${name}; stderr: ${run.stderr}`).toBe(0)
      })
    )
  )

const readCsv = (file: string): ReadonlyArray<Readonly<Record<string, string>>> =>
  parse(readFileSync(file, "utf8"), { columns: true })
const readJsonl = (file: string): ReadonlyArray<Readonly<Record<string, unknown>>> =>
  readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l))
const manifestRows = (file: string): number => (JSON.parse(readFileSync(`${file}.manifest.json`, "utf8")) as { rows: number }).rows

const oracle = (module: string, action: string, params: Readonly<Record<string, string | number>>) =>
  Effect.flatMap(Simulator.Simulator, (sim) => sim.oracle({ chainId: 1, module, action, params })).pipe(Effect.orDie)

/** An exact decimal text of a raw amount (what the example prints and writes). */
const formatUnits = (raw: bigint, decimals: number): string => {
  const unit = 10n ** BigInt(decimals)
  const fraction = decimals === 0 ? "" : (raw % unit).toString().padStart(decimals, "0").replace(/0+$/, "")
  return `${raw / unit}${fraction === "" ? "" : `.${fraction}`}`
}

describe("examples", () => {
  // The same data set as the scripts' embedded simulator (default seed and sizes), for its oracle.
  layer(Simulator.layer(), { timeout: 120_000 })((it) => {
    it.effect("top-holders-to-csv prints the largest holders and writes them to CSV", () =>
      Effect.gen(function*() {
        const run = yield* finished("top-holders-to-csv")
        const sim = yield* Simulator.Simulator
        const token = sim.dataset.chain(1).airdropToken.address
        expect(run.stdout).toContain(`Top 100 holders of ${token} (chain 1)`)
        expect(run.stdout).toMatch(/^ {2}1\. 0x[0-9a-f]{40} +\d+(\.\d+)? +(wallet|contract)$/m)
        const file = join(run.dir, "top-holders.csv")
        expect(run.stdout).toContain(`wrote 100 holders to ${file}`)
        const expected = (yield* oracle("token", "topholders", { contractaddress: token })).slice(0, 100)
        expect(readCsv(file)).toEqual(expected)
        expect(manifestRows(file)).toBe(100)
      }))

    it.effect("wallet-transfers-by-token prints and writes exact per-token totals", () =>
      Effect.gen(function*() {
        const run = yield* finished("wallet-transfers-by-token")
        const sim = yield* Simulator.Simulator
        const wallet = sim.dataset.chain(1).wallets[0]?.address ?? ""
        const transfers = yield* oracle("account", "tokentx", { address: wallet })
        const totals = new Map<string, { symbol: string; decimals: number; count: number; received: bigint; sent: bigint }>()
        for (const t of transfers) {
          const key = String(t.contractAddress)
          const entry = totals.get(key) ??
            { symbol: String(t.tokenSymbol), decimals: Number(t.tokenDecimal), count: 0, received: 0n, sent: 0n }
          entry.count++
          if (t.to === wallet) entry.received += BigInt(String(t.value))
          if (t.from === wallet) entry.sent += BigInt(String(t.value))
          totals.set(key, entry)
        }
        expect(totals.size).toBeGreaterThan(1)
        expect(run.stdout).toContain(`ERC-20 transfers of ${wallet} (chain 1, from block 0): ${transfers.length} in ${totals.size} tokens`)
        const file = join(run.dir, "wallet-transfers-by-token.csv")
        const rows = readCsv(file)
        expect(rows.length).toBe(totals.size)
        for (const row of rows) {
          const t = totals.get(row.contractAddress ?? "")
          expect(t).toBeDefined()
          if (t === undefined) continue
          expect(row).toMatchObject({
            tokenSymbol: t.symbol,
            transfers: String(t.count),
            received: formatUnits(t.received, t.decimals),
            sent: formatUnits(t.sent, t.decimals)
          })
          expect(run.stdout).toMatch(new RegExp(`^${t.symbol} +${t.count} +${formatUnits(t.received, t.decimals).replace(".", "\\.")} `, "m"))
        }
        // Busiest token first.
        expect(rows.map((r) => Number(r.transfers))).toEqual(rows.map((r) => Number(r.transfers)).sort((a, b) => b - a))
      }))

    it.effect("decode-logs-with-abi decodes the verified pool's Swap logs with its ABI", () =>
      Effect.gen(function*() {
        const run = yield* finished("decode-logs-with-abi")
        const sim = yield* Simulator.Simulator
        const pool = sim.dataset.chain(1).heavyContract
        expect(run.stdout).toContain(`ABI of ${pool.address} (chain 1): 1 event`)
        expect(run.stdout).toContain(
          `${pool.topic0.slice(0, 10)}…  Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)`
        )
        expect(run.stdout).toContain("Decoded 500 of 500 logs")
        const file = join(run.dir, "decoded-logs.jsonl")
        const decoded = readJsonl(file)
        expect(decoded.length).toBe(500)
        expect(manifestRows(file)).toBe(500)
        const logs = (yield* oracle("logs", "getLogs", { address: pool.address, fromblock: sim.dataset.chain(1).activity.fromBlock })).slice(0, 500)
        const word = (data: string, k: number) => data.slice(2 + 64 * k, 2 + 64 * (k + 1))
        const int256 = (hex: string) => {
          const v = BigInt(`0x${hex}`)
          return (v >= 1n << 255n ? v - (1n << 256n) : v).toString()
        }
        decoded.forEach((d, i) => {
          const log = logs[i]
          expect(log).toBeDefined()
          if (log === undefined) return
          const topics = log.topics as ReadonlyArray<string>
          const data = String(log.data)
          expect(d).toEqual({
            blockNumber: Number(log.blockNumber),
            logIndex: log.logIndex === "0x" ? 0 : Number(log.logIndex),
            transactionHash: log.transactionHash,
            event: "Swap",
            args: {
              sender: `0x${(topics[1] ?? "").slice(26)}`,
              recipient: `0x${(topics[2] ?? "").slice(26)}`,
              amount0: int256(word(data, 0)),
              amount1: int256(word(data, 1)),
              sqrtPriceX96: BigInt(`0x${word(data, 2)}`).toString(),
              liquidity: BigInt(`0x${word(data, 3)}`).toString(),
              tick: int256(word(data, 4))
            }
          })
        })
        // The simulator's swaps have negative amounts and ticks: the sign handling is exercised.
        expect(decoded.some((d) => String((d.args as Record<string, unknown>).tick).startsWith("-"))).toBe(true)
      }))

    it.effect("gas-per-day charts the last 14 days and writes them to CSV", () =>
      Effect.gen(function*() {
        const run = yield* finished("gas-per-day")
        expect(run.stdout).toContain("Gas used per day on chain 1, 2025-09-17 .. 2025-09-30")
        expect(run.stdout).toMatch(/^2025-09-30 {2}█+ +\d+\.\d Ggas$/m)
        expect(run.stdout).toMatch(/average \d+\.\d Ggas per day over 14 days/)
        const file = join(run.dir, "gas-per-day.csv")
        expect(readCsv(file)).toEqual(yield* oracle("stats", "dailygasused", { startdate: "2025-09-17", enddate: "2025-09-30" }))
      }))

    it.effect("address-tags-of-label prints and writes the tags of a label", () =>
      Effect.gen(function*() {
        const run = yield* finished("address-tags-of-label")
        const expected = yield* oracle("nametag", "exportaddresstags", { label: "dex" })
        expect(expected.length).toBeGreaterThan(1)
        expect(run.stdout).toContain(`${expected.length} addresses labelled "dex" on chain 1:`)
        for (const tag of expected) expect(run.stdout).toContain(`${String(tag.address)}  ${String(tag.nametag)}`)
        const file = join(run.dir, "address-tags-dex.jsonl")
        expect(readJsonl(file)).toEqual(expected)
        expect(run.stdout).toContain(`wrote ${expected.length} tags to ${file}`)
      }))

    it.effect("duckdb-top-senders exports decoded Transfer events to Parquet and ranks the senders with DuckDB", () =>
      Effect.gen(function*() {
        const run = yield* finished("duckdb-top-senders")
        const sim = yield* Simulator.Simulator
        const token = sim.dataset.chain(1).erc20[0]
        expect(token).toBeDefined()
        if (token === undefined) return
        const logs = yield* oracle("logs", "getLogs", { address: token.address, fromBlock: 0, topic0: Simulator.TRANSFER_TOPIC })
        const file = join(run.dir, "transfers.parquet")
        expect(run.stdout).toContain(
          `wrote ${logs.length} Transfer logs of ${token.address} (chain 1, ${token.decimals} decimals) to ${file} (${logs.length} decoded, 0 kept raw)`
        )
        expect(manifestRows(file)).toBe(logs.length)
        // The oracle's Transfer logs summed by sender by hand: from = topic1, value = data.
        const sent = new Map<string, { raw: bigint; transfers: number }>()
        for (const log of logs) {
          const from = `0x${String((log.topics as ReadonlyArray<string>)[1]).slice(26)}`
          if (from === "0x0000000000000000000000000000000000000000") continue
          const entry = sent.get(from) ?? { raw: 0n, transfers: 0 }
          entry.raw += BigInt(String(log.data))
          entry.transfers++
          sent.set(from, entry)
        }
        const top = [...sent.entries()]
          .sort(([a, x], [b, y]) => (x.raw === y.raw ? (a < b ? -1 : 1) : x.raw > y.raw ? -1 : 1))
          .slice(0, 10)
        expect(top.length).toBe(10)
        const printed = run.stdout.split("\n").filter((line) => /^ {0,2}\d+ {2}0x/.test(line))
        expect(printed.map((line) => line.trim().split(/ +/))).toEqual(
          top.map(([sender, t], i) => [String(i + 1), sender, formatUnits(t.raw, token.decimals), String(t.transfers)])
        )
        // Scaled amounts with a fraction are there (6 decimals): the scaling is exercised.
        expect(top.some(([, t]) => t.raw % 10n ** BigInt(token.decimals) !== 0n)).toBe(true)
      }))
  })
})
