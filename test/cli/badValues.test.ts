/**
 * Every flag with bad values, as a user types them: exit code 2, nothing on stdout, one stderr line
 * `error <Tag>: <the flag as typed>: …` naming the value expected, and 0 requests to the explorer. No
 * line names an internal path or a `cli/…` context.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { cliSuite, requestsWith } from "./helpers.js"

const suite = cliSuite("bv")

const A = "0x1111111111111111111111111111111111111111"
const out = () => join(suite.dir, "out.csv")

/** One refused command line: what follows `explorer-etl`, and how its one line must start. */
interface Case {
  readonly name: string
  readonly args: () => ReadonlyArray<string>
  /** The start of the message after `error <Tag>: `. */
  readonly says: string | RegExp
  readonly tag?: string
}

const logs = (...extra: ReadonlyArray<string>) => () => ["export", "logs", "--address", A, "--out", out(), ...extra]
const txs = (...extra: ReadonlyArray<string>) => () => ["export", "txs", "--address", A, "--out", out(), ...extra]

const cases: ReadonlyArray<Case> = [
  { name: "--from-block -1", args: logs("--from-block", "-1"), says: `--from-block: expected a block number ≥ 0, got "-1"` },
  { name: "--from-block 1e9", args: logs("--from-block", "1e9"), says: `--from-block: expected a block number ≥ 0, got "1e9"` },
  { name: "--from-block 0x10", args: logs("--from-block", "0x10"), says: `--from-block: expected a block number ≥ 0, got "0x10"` },
  { name: "--from-block 1.5", args: txs("--from-block", "1.5"), says: `--from-block: expected a block number ≥ 0, got "1.5"` },
  { name: "--to-block abc", args: logs("--to-block", "abc"), says: `--to-block: expected latest or a block number ≥ 0, got "abc"` },
  { name: "--to-block 1e3", args: txs("--to-block", "1e3"), says: `--to-block: expected latest or a block number ≥ 0, got "1e3"` },
  {
    name: "--to-block below --from-block",
    args: logs("--from-block", "200", "--to-block", "100"),
    says: `--to-block: expected latest or a block number ≥ --from-block (200), got "100"`
  },
  { name: "--address 0x123", args: () => ["export", "txs", "--address", "0x123", "--out", out()], says: /^--address: expected an address.*got "0x123"$/ },
  { name: "--contract 0x12", args: () => ["export", "holders", "--contract", "0x12", "--out", out()], says: /^--contract: .*got "0x12"$/ },
  ...[0, 1, 2, 3].map((n): Case => ({
    name: `--topic${n} 0x1234`,
    args: logs(`--topic${n}`, "0x1234"),
    says: new RegExp(`^--topic${n}: expected a topic: 0x followed by 64 hex digits, got "0x1234"$`)
  })),
  { name: "--topic-op 0_1=xor", args: logs("--topic-op", "0_1=xor"), says: /^--topic-op: .*got "0_1=xor"$/ },
  { name: "no --address nor topic", args: () => ["export", "logs", "--out", out()], says: "--address: give --address, at least one of --topic0..--topic3, or both" },
  ...["0", "1001", "1.5"].map((v): Case => ({
    name: `--limit ${v}`,
    args: () => ["export", "top-holders", "--contract", A, "--limit", v, "--out", out()],
    says: `--limit: expected a whole number from 1 to 1000, got "${v}"`
  })),
  {
    name: "--start-date 2026-13-01",
    args: () => ["export", "daily-tx", "--start-date", "2026-13-01", "--end-date", "2026-01-01", "--out", out()],
    says: /^--start-date: expected a calendar date written yyyy-MM-dd, got "2026-13-01"$/
  },
  {
    name: "--end-date 2025-02-30",
    args: () => ["export", "daily-tx", "--start-date", "2025-01-01", "--end-date", "2025-02-30", "--out", out()],
    says: /^--end-date: .*got "2025-02-30"$/
  },
  {
    name: "--sort up",
    args: () => ["export", "daily-tx", "--start-date", "2025-01-01", "--end-date", "2025-01-02", "--sort", "up", "--out", out()],
    says: `--sort: expected one of asc, desc, got "up"`
  },
  {
    name: "--stat dailyx",
    args: () => ["export", "daily-stats", "--stat", "dailyx", "--start-date", "2025-01-01", "--end-date", "2025-01-02", "--out", out()],
    says: /^--stat: expected one of dailyavgblocksize, .*got "dailyx"$/
  },
  { name: "--abi missing file", args: () => ["export", "events", "--address", A, "--abi", "/nonexistent/abi.json", "--out", out()], says: /^--abi: cannot read \/nonexistent\/abi.json/ },
  { name: "--format xml", args: logs("--format", "xml"), says: `--format: expected one of csv, jsonl, parquet, got "xml"` },
  { name: "--out a.xml", args: () => ["export", "logs", "--address", A, "--out", join(suite.dir, "a.xml")], says: /^--out: cannot tell the format .* or pass --format$/ },
  { name: "no --out", args: () => ["export", "logs", "--address", A], says: "--out: required, and not given" },
  {
    name: "--out a folder",
    args: () => {
      const folder = join(suite.dir, "folder")
      mkdirSync(folder, { recursive: true })
      return ["export", "logs", "--address", A, "--format", "csv", "--out", folder, "--force"]
    },
    says: /^--out: .*folder is a folder/
  },
  { name: "--confirmations -1", args: logs("--confirmations", "-1"), says: `--confirmations: expected a number of blocks ≥ 0, got "-1"` },
  { name: "--concurrency 0", args: logs("--concurrency", "0"), says: `--concurrency: expected a whole number ≥ 1, got "0"` },
  { name: "--checkpoint-every -1", args: logs("--checkpoint-every", "-1"), says: `--checkpoint-every: expected a whole number of seconds ≥ 0, got "-1"` },
  { name: "--float-columns on CSV", args: logs("--float-columns"), says: /^--float-columns: needs a Parquet output/ },
  { name: "--resume --restart", args: logs("--resume", "--restart"), says: "--restart: starts over, --resume continues: give one of them" },
  { name: "--chain polygn", args: logs("--chain", "polygn"), says: /^--chain: unknown chain "polygn"; did you mean polygon\?/ },
  { name: "--chain 999999", args: logs("--chain", "999999"), says: /^--chain: chain 999999 is not served/, tag: "UnsupportedChainError" },
  { name: "--plan gold", args: logs("--plan", "gold"), says: /^--plan \(or EXPLORER_PLAN\): expected one of free, .*got "gold"$/ },
  { name: "--retries -1", args: logs("--retries", "-1"), says: `--retries: expected a whole number ≥ 0, got "-1"` },
  { name: "--timeout 0", args: logs("--timeout", "0"), says: `--timeout: expected a number of seconds > 0 (e.g. 30 or 2.5), got "0"` },
  { name: "--timeout 1e3", args: logs("--timeout", "1e3"), says: `--timeout: expected a number of seconds > 0 (e.g. 30 or 2.5), got "1e3"` },
  { name: "--calls-per-day 0", args: logs("--calls-per-day", "0"), says: `--calls-per-day (or EXPLORER_CALLS_PER_DAY): expected a whole number ≥ 1, got "0"` },
  { name: "--base-url notaurl", args: () => ["export", "logs", "--address", A, "--out", out(), "--base-url", "notaurl"], says: /^--base-url: expected a URL such as https:\/\/api.etherscan.io, got "notaurl"/ },
  { name: "--hepl on a data set", args: logs("--hepl"), says: /^export logs: unknown flag --hepl; did you mean --help\?/ },
  { name: "--hepl alone", args: () => ["--hepl"], says: /^unknown flag --hepl; did you mean --help\?/ },
  { name: "--adress", args: () => ["export", "txs", "--adress", A, "--out", out()], says: /^export txs: unknown flag --adress; did you mean --address\?/ },
  {
    name: "a flag of another data set",
    args: logs("--abi-cache", "x"),
    says: /^export logs: unknown flag --abi-cache \(--abi-cache is a flag of events\)/
  },
  { name: "run: a missing pipeline file", args: () => ["run", "pipelines/nope.ts"], says: "pipeline file: cannot load pipelines/nope.ts: no such file" },
  { name: "run --every bogus", args: () => ["run", "pipelines/wallet-history.ts", "--every", "bogus"], says: /^--every: expected a cron expression \(UTC\) such as "0 \* \* \* \*", got "bogus"/ },
  { name: "run --confirmations x", args: () => ["run", "pipelines/wallet-history.ts", "--confirmations", "x"], says: `--confirmations: expected a number of blocks ≥ 0, got "x"` },
  { name: "run --durable --no-durable", args: () => ["run", "pipelines/wallet-history.ts", "--durable", "--no-durable"], says: /^--no-durable: --durable and --no-durable contradict/ },
  { name: "runner --port 0", args: () => ["runner", "pipelines/wallet-history.ts", "--cluster", "postgres://localhost/x", "--port", "0"], says: `--port: expected a port from 1 to 65535, got "0"` },
  {
    name: "runner --part-rows 0",
    args: () => ["runner", "pipelines/wallet-history.ts", "--cluster", "postgres://localhost/x", "--part-rows", "0"],
    says: `--part-rows: expected a whole number of rows ≥ 1, got "0"`
  },
  { name: "simulator --port 70000", args: () => ["simulator", "--port", "70000"], says: `--port: expected a port from 0 to 65535, got "70000"` },
  { name: "simulator --seed -1", args: () => ["simulator", "--seed", "-1"], says: `--seed: expected a whole number ≥ 0, got "-1"` },
  { name: "simulator --fault bogus", args: () => ["simulator", "--fault", "bogus"], says: /^--fault: / },
  { name: "--log-level loud", args: () => ["chains", "--log-level", "loud"], says: /^--log-level: must be one of all, / }
]

// Each case has a key of its own: the simulator must not have seen it at the end.
const keyed = cases.map((c, i) => ({ ...c, key: suite.key(`case${i}`) }))

describe.concurrent("bad values", () => {
  for (const c of keyed) {
    it.live(`${c.name}: exit 2, one line naming the flag, 0 requests`, () =>
      Effect.gen(function*() {
        const api = ["export", "run"].includes(c.args()[0] ?? "") ? ["--base-url", suite.sim.baseUrl, "--api-key", c.key] : []
        const base = c.args()
        // An explicit --base-url of the case wins (the API options come first, the case's last).
        const args = base.includes("--base-url") ? [...base, "--api-key", c.key] : [...base, ...api]
        const result = yield* suite.transcript.cli(args)
        const context = `explorer-etl ${args.join(" ")}\nstderr: ${result.stderr}`
        expect(result.code, context).toBe(2)
        expect(result.stdout, context).toBe("")
        const match = /^error ([A-Za-z]+): (.*)\n$/.exec(result.stderr)
        expect(match, context).not.toBeNull()
        expect(match?.[1], context).toBe(c.tag ?? "InvalidInputError")
        const message = match?.[2] ?? ""
        if (typeof c.says === "string") expect(message, context).toBe(c.says)
        else expect(message, context).toMatch(c.says)
        expect(result.stderr).not.toMatch(/dist\/|src\/cli|cli\/cli|cli\/[a-z]+ on chain/)
        expect(yield* requestsWith(suite.sim, c.key)).toBe(0)
      }), 120_000)
  }
})
