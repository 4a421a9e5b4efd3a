/**
 * One export too large for one runner's share, read in parts on a cluster (`Cluster`: the export's
 * plan reads the first page and cuts the rest of its range into parts, each a child workflow whose
 * activity writes a spool; the export's last activity merges them). Real processes, as in
 * cluster.test.ts: a throwaway PostgreSQL, the simulator in this process (every query recorded), two
 * `explorer-etl runner` processes of bench/pipelines/block-parts.ts and the submitting `run`.
 * - The heavy contract's logs (60,000, 1,000 a page) in one file: both runners read parts of it, and
 *   the file is byte-identical to a one-process run's, its manifest saying the same; `status --cluster`
 *   lists the plan and each part with its rows and calls.
 * - The same export to Parquet (bench/pipelines/block-parts.ts's `format`): DuckDB reads the same
 *   rows, in the same order and with the same types, as from a one-process run's file.
 * - A runner killed with SIGKILL mid-export: the other reads the parts it had not finished and
 *   assembles the file, byte-identical; no part it finished is read again.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import * as Plan from "../../src/Plan.js"
import * as Simulator from "../../src/simulator/index.js"
import { cliSuite, exited, spawnCli, succeeded, until } from "../cli/helpers.js"
import { duckdbRows } from "../duckdb.js"
import { dataFiles, onDatabase, postgresForFile, startRunner } from "./helpers.js"

const suite = cliSuite("parts", { recordQueries: true, dataset: { heavyContractLogs: 60_000 } })
const plainKeys = { proplus: suite.key("plain", "proplus"), lite: suite.key("plain-lite", "lite") }
const partsKey = suite.key("parts", "proplus")
const parquetKey = suite.key("parquet", "proplus")
const killedKey = suite.key("killed", "lite")
const database = postgresForFile()
const pipelineFile = "bench/pipelines/block-parts.ts"

const api = (key: string, plan: Plan.Plan) => ["--base-url", suite.sim.baseUrl, "--api-key", key, "--plan", plan]

/**
 * A runner of block-parts, ready when this succeeds; SIGTERM at the end of the scope. Parts of 10,000
 * rows (`--part-rows`) unless told: the 60,000 logs make 6 parts (the default, 100,000, would leave
 * them whole).
 */
const runner = (key: string, plan: Plan.Plan, partRows = 10_000) =>
  startRunner(suite.transcript, pipelineFile, database(), [...api(key, plan), "--part-rows", String(partRows)])

/** The shards of the cluster's one group (`ShardingConfig`'s `shardsPerGroup`, its default). */
const SHARDS = 300

/**
 * Waits until `n` runners share the shards: `@effect/cluster` on PostgreSQL holds each shard as an
 * advisory lock on a connection of the runner's own (here: connections holding 10 or more). A runner that
 * joins takes its shards from the one before it as that one lets them go: until every shard is held and
 * each runner holds a good share (a quarter of its even share at least; the hash ring does not split
 * them evenly), for half a second, the parts of a run may land on one runner's shards more often than
 * the spread test's odds say (CI, a loaded machine, once: every part on one runner).
 */
const holdingShards = (n: number) =>
  Effect.gen(function*() {
    let held: ReadonlyArray<number> = []
    let settled = 0
    for (let i = 0; i < 600; i++) {
      const rows = yield* onDatabase(database(), (sql) =>
        sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_locks
          WHERE locktype = 'advisory' AND granted GROUP BY pid HAVING count(*) >= 10`)
      held = rows.map((r) => r.n)
      const total = held.reduce((a, b) => a + b, 0)
      // Held so for half a second (five reads in a row).
      settled = held.length >= n && total >= SHARDS && held.every((k) => k >= SHARDS / n / 4) ? settled + 1 : 0
      if (settled >= 5) return
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))
    }
    return yield* Effect.dieMessage(`${n} runners did not come to share the shards (held: ${held.join(", ")})`)
  })

/** The parts of `file` a runner's output says it read: index → its line. */
const partsBy = (stdout: string, port: number, file: string): Map<number, string> =>
  new Map(stdout.split("\n").flatMap((line) => {
    const match = new RegExp(`^127\\.0\\.0\\.1:${port} part (\\d+) of (\\S+): `).exec(line)
    return match === null || !match[2]?.endsWith(`/${file}`) ? [] : [[Number(match[1]), line] as const]
  }))

/** block-parts' config: the heavy contract's logs over the chain's activity, one file (`part-0.<format>`). */
const heavyLogs = (format: "csv" | "parquet" = "csv"): string => {
  const config = path.join(suite.dir, `heavy-${format}.config.json`)
  const chain = suite.sim.dataset.chain(1)
  writeFileSync(config, JSON.stringify({
    chainId: 1,
    dataset: "logs",
    address: chain.heavyContract.address,
    ranges: [[chain.activity.fromBlock, chain.activity.toBlock]],
    format
  }))
  return config
}

const runArgs = (key: string, plan: Plan.Plan, config: string, outDir: string) => [
  "run", pipelineFile, ...api(key, plan), "--config", config, "--out-dir", outDir, "--quiet"
]

/** What a manifest says of its file, without what differs from run to run (time, duration, calls). */
const manifestOf = (file: string) => {
  const { calls: _calls, retries: _retries, createdAt: _createdAt, durationMs: _durationMs, ...rest } = JSON.parse(
    readFileSync(`${file}.manifest.json`, "utf8")
  )
  return rest
}

/** A plain one-process run of the config on `plan` into `plain-<name>`, and its pipeline's folder. */
const plainRun = (config: string, plan: "proplus" | "lite", name: string = plan) =>
  Effect.gen(function*() {
    const out = path.join(suite.dir, `plain-${name}`)
    const plain = spawnCli(runArgs(plainKeys[plan], plan, config, out))
    expect((yield* exited(plain.child)).code, plain.output.stderr).toBe(0)
    return path.join(out, "block-parts")
  })

describe("explorer-etl run --cluster: one export read in parts", () => {
  it.scoped("both runners read parts of one file; it is byte-identical to a one-process run's", () =>
    Effect.gen(function*() {
      const config = heavyLogs()
      const plainDir = yield* plainRun(config, "proplus")
      // Parts of 5,000 rows: 12 parts, all on one runner's shards once in 2,048 runs (6: once in 32).
      const [a, b] = [yield* runner(partsKey, "proplus", 5_000), yield* runner(partsKey, "proplus", 5_000)]
      // Both hold shards before the run: a runner just started takes its share a moment after it is
      // ready, and the parts could all land on the first one meanwhile.
      yield* holdingShards(2)
      const out = path.join(suite.dir, "parts")
      const submitted = spawnCli([...runArgs(partsKey, "proplus", config, out), "--cluster", database()])
      succeeded({ args: ["run", "--cluster"], code: (yield* exited(submitted.child)).code, signal: null, ...submitted.output })

      const dir = path.join(out, "block-parts")
      expect(dataFiles(dir)).toEqual(["part-0.csv"])
      const file = path.join(dir, "part-0.csv")
      expect(readFileSync(file).equals(readFileSync(path.join(plainDir, "part-0.csv")))).toBe(true)
      expect(manifestOf(file)).toEqual(manifestOf(path.join(plainDir, "part-0.csv")))
      const rows: number = manifestOf(file).rows
      // Nearly all the heavy contract's 60,000 logs are of the chain's activity.
      expect(rows).toBeGreaterThan(50_000)

      // The plan read the first page (part 1); parts 2… were shared by the runners, each read once.
      const [byA, byB] = [partsBy(a.output.stdout, a.port, "part-0.csv"), partsBy(b.output.stdout, b.port, "part-0.csv")]
      expect(byA.size, a.output.stdout).toBeGreaterThan(0)
      expect(byB.size, b.output.stdout).toBeGreaterThan(0)
      const indexes = [...byA.keys(), ...byB.keys()].sort((x, y) => x - y)
      expect(indexes).toEqual(Array.from({ length: indexes.length }, (_, i) => i + 2))
      expect(indexes.length).toBeGreaterThanOrEqual(4)
      const stats = yield* suite.sim.stats
      expect(stats.rateLimitedByKey[Simulator.keyFingerprint(partsKey)] ?? 0).toBe(0)

      // status: the plan, every part with its rows and calls, the export with the file's rows.
      const status = succeeded(yield* suite.transcript.cli(["status", "--cluster", database()])).stdout.trimEnd().split("\n")
      const count = rows.toLocaleString("en-US")
      expect(status[0]).toMatch(new RegExp(`^block-parts\trun \\S+\tdone\t1/1 exports done, ${count} rows, \\d+ calls$`))
      expect(status).toContain("  plan part-0.csv\tdone")
      const parts = status.filter((line) => /^ {2}part part-0\.csv \d+\.\.\d+\tdone\t[\d,]+ rows?\t\d+ calls?$/.test(line))
      expect(parts.length).toBe(indexes.length)
      expect(status.filter((line) => new RegExp(`^ {2}export part-0\\.csv\tdone\t${count} rows\t\\d+ calls$`).test(line)).length).toBe(1)
    }), 300_000)

  it.scoped("Parquet read in parts: DuckDB reads the same rows, in the same order and types, as from a one-process run's file", () =>
    Effect.gen(function*() {
      const config = heavyLogs("parquet")
      const plainDir = yield* plainRun(config, "proplus", "parquet")
      const [a, b] = [yield* runner(parquetKey, "proplus"), yield* runner(parquetKey, "proplus")]
      const out = path.join(suite.dir, "parquet")
      const submitted = spawnCli([...runArgs(parquetKey, "proplus", config, out), "--cluster", database()])
      succeeded({ args: ["run", "--cluster"], code: (yield* exited(submitted.child)).code, signal: null, ...submitted.output })
      const file = path.join(out, "block-parts", "part-0.parquet")
      const plainFile = path.join(plainDir, "part-0.parquet")
      expect(partsBy(a.output.stdout, a.port, "part-0.parquet").size + partsBy(b.output.stdout, b.port, "part-0.parquet").size)
        .toBeGreaterThanOrEqual(4)

      // Every row, in file order, and the column types: one digest of each file's rows as DuckDB reads them.
      const digest = (f: string) =>
        duckdbRows(`SELECT count(*) AS n, md5(string_agg(CAST(t AS VARCHAR), chr(10) ORDER BY file_row_number)) AS h
          FROM read_parquet('${f}', file_row_number = true) t`)
      const types = (f: string) => duckdbRows(`DESCRIBE SELECT * FROM read_parquet('${f}')`)
      const [mine, theirs] = [yield* digest(file), yield* digest(plainFile)]
      expect(mine).toEqual(theirs)
      expect(Number(mine[0]?.n)).toBe(manifestOf(plainFile).rows)
      expect(yield* types(file)).toEqual(yield* types(plainFile))
      // The manifests say the same, but for the bytes: a Parquet file's row groups end where its
      // checkpoints fell (every 10 s), as in any two runs of one export.
      const { bytes: _b1, contentHash: _h1, ...manifest } = manifestOf(file)
      const { bytes: _b2, contentHash: _h2, ...plainManifest } = manifestOf(plainFile)
      expect(manifest).toEqual(plainManifest)
    }), 300_000)

  it.scoped("a runner killed with SIGKILL mid-export: the other reads the parts left, no finished part is read again", () =>
    Effect.gen(function*() {
      const config = heavyLogs()
      const plainDir = yield* plainRun(config, "lite")
      // On lite (5 calls a second) the export lasts long enough to be cut by the kill; in 12 parts of
      // 5,000 rows, the killed runner still has parts to read after its first (with 6, its last two
      // could end together and the run with them before the kill).
      const [a, b] = [yield* runner(killedKey, "lite", 5_000), yield* runner(killedKey, "lite", 5_000)]
      // Both hold shards before the run, so the runner killed has parts to be killed in.
      yield* holdingShards(2)
      const out = path.join(suite.dir, "killed")
      const dir = path.resolve(out, "block-parts")
      const submitted = spawnCli([...runArgs(killedKey, "lite", config, out), "--cluster", database()])
      // Killed a while after it finished a part (its result stored by then), while the export goes on.
      yield* until(() => partsBy(a.output.stdout, a.port, "part-0.csv").size >= 1, 120_000)
      const stored = new Set(partsBy(a.output.stdout, a.port, "part-0.csv").keys())
      // (Real time: a scoped test's clock is the test clock.)
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 1_500)))
      expect(a.child.kill("SIGKILL")).toBe(true)
      yield* exited(a.child)
      const byA = partsBy(a.output.stdout, a.port, "part-0.csv")
      expect(submitted.child.exitCode).toBe(null)

      yield* until(() => submitted.child.exitCode !== null, 150_000).pipe(
        Effect.catchAllDefect(() =>
          Effect.dieMessage(`the run did not end:\n${[a, b].map((r) => r.output.stdout + r.output.stderr.slice(-3000)).join("\n")}`)
        )
      )
      succeeded({ args: ["run", "--cluster"], code: (yield* exited(submitted.child)).code, signal: null, ...submitted.output })
      const file = path.join(dir, "part-0.csv")
      expect(readFileSync(file).equals(readFileSync(path.join(plainDir, "part-0.csv")))).toBe(true)
      // The manifest says the same but how the run went: a kill during the export's last activity (the
      // merge) leaves a checkpoint the survivor resumes, and its manifest then says "resumed", as a
      // one-machine export's after a kill does.
      const { run: _run, ...manifest } = manifestOf(file)
      const { run: _plainRun, ...plainManifest } = manifestOf(path.join(plainDir, "part-0.csv"))
      expect(manifest).toEqual(plainManifest)

      // Every part read; none that the killed runner had finished a while before the kill read again,
      // and only those under way at the kill (at most 2 at once on a runner) read again at all.
      const byB = partsBy(b.output.stdout, b.port, "part-0.csv")
      expect(byB.size, b.output.stdout).toBeGreaterThan(0)
      const again = [...byB.keys()].filter((i) => byA.has(i))
      expect(again.filter((i) => stored.has(i)), b.output.stdout).toEqual([])
      expect(again.length).toBeLessThanOrEqual(2)
      const indexes = [...new Set([...byA.keys(), ...byB.keys()])].sort((x, y) => x - y)
      expect(indexes).toEqual(Array.from({ length: indexes.length }, (_, i) => i + 2))
    }), 300_000)
})
