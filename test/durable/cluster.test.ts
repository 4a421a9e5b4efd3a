/**
 * `explorer-etl run --cluster postgres://…` on real processes: a real PostgreSQL (test/durable/postgres.ts),
 * the simulator in this process (requests counted per key), two `explorer-etl runner` processes and
 * the submitting `run`. wallet-history over 8 wallets (56 exports) ends with files byte-identical to a
 * one-process plain `run`, and both runners wrote some of them (each prints a line per export it ran);
 * `status --cluster` reads the run and its exports from the database.
 * Two runners on one key keep one budget (`KeyBudget`, a PostgreSQL row per key): the simulator, which
 * refuses any call beyond the plan's per-second windows of a key, refuses none. A runner killed with
 * SIGKILL mid-run: the other takes its shards once its registration expires (`shardLockExpiration`,
 * 15 s) and finishes the run, the files byte-identical, nothing repeated but the exports under way
 * at the kill (the simulator records every query). The submitting process interrupted (Ctrl-C):
 * the runners finish the run all the same, and the same command started again prints its result.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import * as Status from "../../src/durable/Status.js"
import * as Plan from "../../src/Plan.js"
import * as Simulator from "../../src/simulator/index.js"
import { cliSuite, exited, failureOf, requestsWith, spawnCli, succeeded, until } from "../cli/helpers.js"
import { dataFiles, onDatabase, postgresForFile, startRunner } from "./helpers.js"
import * as Postgres from "./postgres.js"

// Every query recorded per key: the killed runner's test counts the calls repeated after the kill.
const suite = cliSuite("cluster", { recordQueries: true })
const plainKey = suite.key("plain", "proplus")
// One key per runner here: the budget they share on one key is the next test's subject.
const runnerKeys = [suite.key("runner-a", "proplus"), suite.key("runner-b", "proplus")]
const sharedKey = suite.key("shared", "proplus")
const killedKey = suite.key("killed", "proplus")
const plainAgainKey = suite.key("plain-again", "proplus")
const interruptedKey = suite.key("interrupted", "proplus")
const unreachableKey = suite.key("unreachable", "proplus")
const lockedKey = suite.key("locked", "proplus")
const freeKey = suite.key("free", "free")

const database = postgresForFile()

/**
 * How many times each data query (without the key) reached the simulator with `key`; the chain head's
 * queries (`getblocknobytime` at the time of each export) left out, as they differ from run to run.
 */
const queryCounts = (key: string) =>
  Effect.map(suite.sim.stats, (s) => {
    const counts = new Map<string, number>()
    for (const query of s.queriesByKey[Simulator.keyFingerprint(key)] ?? []) {
      // Without its end block: a run asks the head together with a first page up to the end block the
      // docs pre-fill, a cluster's part after the head answered (the same rows either way).
      const q = query.replace(/&(endblock|toBlock)=\d+/gi, "")
      if (!q.includes("action=getblocknobytime")) counts.set(q, (counts.get(q) ?? 0) + 1)
    }
    return counts
  })

/** wallet-history's file of each action. */
const fileOfAction: Readonly<Record<string, string>> = {
  txlist: "transactions.csv",
  txlistinternal: "internal-transactions.csv",
  tokentx: "erc20-transfers.csv",
  tokennfttx: "erc721-transfers.csv",
  token1155tx: "erc1155-transfers.csv",
  addresstokenbalance: "token-balances.csv",
  addresstokennftbalance: "nft-holdings.csv"
}

/** The wallet-history file (relative to its folder) a query of the eight wallets' run is for. */
const fileOfQuery = (query: string): string => {
  const params = new URLSearchParams(query)
  const wallet = suite.sim.dataset.chain(1).wallets.find((w) => w.address.toLowerCase() === params.get("address")?.toLowerCase())
  return path.join(wallet?.name ?? "?", fileOfAction[params.get("action") ?? ""] ?? "?")
}

const api = (key: string, plan: Plan.Plan = "proplus") => ["--base-url", suite.sim.baseUrl, "--api-key", key, "--plan", plan]

/** A runner process of wallet-history, ready (it printed so) when this succeeds; SIGTERM at the end of the scope. */
const runner = (key: string, plan: Plan.Plan = "proplus") =>
  startRunner(suite.transcript, "pipelines/wallet-history.ts", database(), api(key, plan))

/** The data files a runner's output says it exported (paths relative to the pipeline's folder). */
const exportedBy = (stdout: string, port: number, pipelineDir: string): ReadonlyArray<string> =>
  stdout.split("\n").flatMap((line) => {
    const match = new RegExp(`^127\\.0\\.0\\.1:${port} (\\S+)\\t`).exec(line)
    return match === null ? [] : [path.relative(pipelineDir, match[1] as string)]
  })

/** wallet-history's config over the simulator's first 8 wallets of chain 1 (56 exports). */
const eightWallets = (): string => {
  const config = path.join(suite.dir, "wallet-history.config.json")
  const wallets = suite.sim.dataset.chain(1).wallets.slice(0, 8).map((w) => ({ name: w.name, address: w.address }))
  writeFileSync(config, JSON.stringify({ chainId: 1, fromBlock: 0, wallets }))
  return config
}

const runArgs = (key: string, config: string, outDir: string) => [
  "run", "pipelines/wallet-history.ts", ...api(key), "--config", config, "--out-dir", outDir, "--quiet"
]

describe("explorer-etl run --cluster", () => {
  it.scoped("two runner processes share a run's exports; the files are byte-identical to a plain run", () =>
    Effect.gen(function*() {
      const config = eightWallets()
      const args = (key: string, outDir: string) => runArgs(key, config, outDir)

      const plainOut = path.join(suite.dir, "plain")
      const plain = spawnCli(args(plainKey, plainOut))
      expect((yield* exited(plain.child)).code, plain.output.stderr).toBe(0)

      const [a, b] = [yield* runner(runnerKeys[0] as string), yield* runner(runnerKeys[1] as string)]
      const clusterOut = path.join(suite.dir, "cluster")
      const submitted = spawnCli([...args(runnerKeys[0] as string, clusterOut), "--cluster", database()])
      succeeded({ args: ["run", "--cluster"], code: (yield* exited(submitted.child)).code, signal: null, ...submitted.output })

      const plainDir = path.join(plainOut, "wallet-history")
      const clusterDir = path.join(clusterOut, "wallet-history")
      const published = dataFiles(plainDir)
      expect(published.length).toBe(56)
      expect(dataFiles(clusterDir)).toEqual(published)
      for (const f of published) {
        expect(readFileSync(path.join(clusterDir, f)).equals(readFileSync(path.join(plainDir, f))), f).toBe(true)
      }
      // The same lines on stdout as the plain run, with this run's folder.
      expect(submitted.output.stdout.split(clusterOut).join("<out>")).toBe(plain.output.stdout.split(plainOut).join("<out>"))

      // Each export ran once, and both runners ran some.
      const byA = exportedBy(a.output.stdout, a.port, path.resolve(clusterDir))
      const byB = exportedBy(b.output.stdout, b.port, path.resolve(clusterDir))
      expect(byA.length, a.output.stdout).toBeGreaterThan(0)
      expect(byB.length, b.output.stdout).toBeGreaterThan(0)
      expect([...byA, ...byB].sort()).toEqual(published)

      // status --cluster reads the run from the database: done, each export done with its rows, the commit.
      const status = succeeded(yield* suite.transcript.cli(["status", "--cluster", database()])).stdout.trimEnd().split("\n")
      const at = status.reduce((last, line, i) => (line.startsWith("wallet-history\t") ? i : last), -1)
      expect(status[at]).toMatch(/^wallet-history\trun \S+\tdone\t56\/56 exports done, [\d,]+ rows?, \d+ calls?$/)
      const activities = status.slice(at + 1)
      expect(activities.filter((line) => /^ {2}export \S+\tdone\t[\d,]+ rows?\t\d+ calls?$/.test(line)).length).toBe(56)
      expect(activities.at(-1)).toBe("  commit\tdone")

      // The database forgets ended runs as a journal does (`Status.prune`, here keeping none): the
      // whole run goes, its exports' child workflows and their activities with it, no reply left behind.
      const rows = onDatabase(database(), (sql) =>
        Effect.all({
          messages: sql<{ n: number }>`SELECT count(*)::int AS n FROM cluster_messages WHERE entity_type LIKE 'Workflow/%'`,
          replies: sql<{ n: number }>`SELECT count(*)::int AS n FROM cluster_replies r
            WHERE NOT EXISTS (SELECT 1 FROM cluster_messages m WHERE m.request_id = r.request_id)`
        }))
      expect((yield* rows).messages[0]?.n).toBeGreaterThan(56 * 2)
      expect(yield* onDatabase(database(), (sql) => Status.prune(0).pipe(Effect.provideService(SqlClient.SqlClient, sql)))).toBe(1)
      const left = yield* rows
      expect([left.messages[0]?.n, left.replies[0]?.n]).toEqual([0, 0])
      expect(succeeded(yield* suite.transcript.cli(["status", "--cluster", database()])).stdout).not.toContain("wallet-history")
    }), 300_000)

  it.scoped("two runners on one key: the simulator refuses none of its calls, and they stay under the plan's rate", () =>
    Effect.gen(function*() {
      const config = eightWallets()
      yield* runner(sharedKey)
      yield* runner(sharedKey)
      const out = path.join(suite.dir, "shared")
      const started = Date.now()
      const submitted = spawnCli([...runArgs(sharedKey, config, out), "--cluster", database()])
      succeeded({ args: ["run", "--cluster"], code: (yield* exited(submitted.child)).code, signal: null, ...submitted.output })
      const seconds = (Date.now() - started) / 1000
      expect(dataFiles(path.join(out, "wallet-history")).length).toBe(56)

      const calls = yield* requestsWith(suite.sim, sharedKey)
      const stats = yield* suite.sim.stats
      expect(calls).toBeGreaterThan(56)
      // The simulator counts each key's calls per second, as the real service does, and refuses the one too many.
      expect(stats.rateLimitedByKey[Simulator.keyFingerprint(sharedKey)] ?? 0).toBe(0)
      expect(calls / seconds).toBeLessThanOrEqual(Plan.limits.proplus.callsPerSecond)
    }), 300_000)

  it.scoped("a runner killed with SIGKILL mid-run: the other finishes the run, the files byte-identical", () =>
    Effect.gen(function*() {
      const config = eightWallets()
      const plainOut = path.join(suite.dir, "plain-again")
      const plain = spawnCli(runArgs(plainAgainKey, config, plainOut))
      expect((yield* exited(plain.child)).code, plain.output.stderr).toBe(0)

      const [a, b] = [yield* runner(killedKey), yield* runner(killedKey)]
      const out = path.join(suite.dir, "killed")
      const dir = path.resolve(out, "wallet-history")
      const submitted = spawnCli([...runArgs(killedKey, config, out), "--cluster", database()])
      // Killed once it has finished more exports than a run has under way at once (4), while it runs
      // others: were their results lost, the survivor would run them again (counted below).
      yield* until(() => exportedBy(a.output.stdout, a.port, dir).length >= 6, 120_000)
      expect(a.child.kill("SIGKILL")).toBe(true)
      expect((yield* exited(a.child)).signal).toBe("SIGKILL")
      const byA = exportedBy(a.output.stdout, a.port, dir)
      // Mid-run: the run had not ended.
      expect(submitted.child.exitCode).toBe(null)

      succeeded({ args: ["run", "--cluster"], code: (yield* exited(submitted.child)).code, signal: null, ...submitted.output })
      const published = dataFiles(path.join(plainOut, "wallet-history"))
      expect(published.length).toBe(56)
      expect(dataFiles(dir)).toEqual(published)
      for (const f of published) {
        expect(readFileSync(path.join(dir, f)).equals(readFileSync(path.join(plainOut, "wallet-history", f))), f).toBe(true)
      }
      // The survivor ran every export the killed runner had not finished.
      const byB = exportedBy(b.output.stdout, b.port, dir)
      expect([...new Set([...byA, ...byB])].sort()).toEqual(published)

      // Nothing repeated but the exports under way at the kill, at most 4 (the run has at most 4 at
      // once: Pipeline's default concurrency). Under way: running, or ended but its result not yet
      // stored (the runner prints its line first, so the survivor may run such an export again).
      // Against the plain run of the same config (the same queries: these wallets' ranges are never
      // cut), a query asked more often is of one of them.
      const plainCounts = yield* queryCounts(plainAgainKey)
      const killedCounts = yield* queryCounts(killedKey)
      expect([...killedCounts.keys()].filter((q) => !plainCounts.has(q)), "queries the plain run never asked").toEqual([])
      const repeated = [...killedCounts].filter(([q, n]) => n > (plainCounts.get(q) ?? 0)).map(([q]) => q)
      const underWay = new Set([...byB.filter((f) => byA.includes(f)), ...repeated.map(fileOfQuery)])
      expect(underWay.size, [...underWay, ...repeated].join("\n")).toBeLessThanOrEqual(4)
    }), 300_000)

  it.scoped("the submitting process interrupted: the runners finish the run, the same command prints its result", () =>
    Effect.gen(function*() {
      const config = eightWallets()
      const [a, b] = [yield* runner(interruptedKey), yield* runner(interruptedKey)]
      const out = path.join(suite.dir, "interrupted")
      const dir = path.resolve(out, "wallet-history")
      const args = [...runArgs(interruptedKey, config, out), "--cluster", database()]
      const first = spawnCli(args)
      const exported = () => new Set([...exportedBy(a.output.stdout, a.port, dir), ...exportedBy(b.output.stdout, b.port, dir)])
      yield* until(() => exported().size >= 2, 120_000)
      expect(first.child.kill("SIGINT")).toBe(true)
      expect((yield* exited(first.child)).code).toBe(130)
      expect(exported().size).toBeLessThan(56)
      const key = readFileSync(path.join(dir, ".durable", "run.json"), "utf8")

      // Nobody waits for the run: the runners finish it, its files published by its commit.
      yield* until(() => exported().size === 56 && dataFiles(dir).length === 56, 180_000)
      const calls = yield* requestsWith(suite.sim, interruptedKey)
      const again = spawnCli(args)
      succeeded({ args: ["run", "--cluster"], code: (yield* exited(again.child)).code, signal: null, ...again.output })
      // The same run (its key kept), its result read, not run again.
      expect(key).toContain("runTime")
      expect(yield* requestsWith(suite.sim, interruptedKey)).toBe(calls)
      expect(again.output.stdout.trimEnd().split("\n").length).toBe(56)
    }), 300_000)

  it.scoped("a lock another machine's runner left is taken over once the cluster says that runner is gone; a live runner's holds", () =>
    Effect.gen(function*() {
      // Two machines are not at hand: a lock file as a runner of another host writes it (its host, pid
      // and runner address) stands for one. The cluster knows a runner by its heartbeat in the database.
      const config = path.join(suite.dir, "locked.config.json")
      const wallets = suite.sim.dataset.chain(1).wallets.slice(0, 2).map((w) => ({ name: w.name, address: w.address }))
      writeFileSync(config, JSON.stringify({ chainId: 1, fromBlock: 0, wallets }))
      const a = yield* runner(lockedKey)
      const out = path.join(suite.dir, "locked")
      const file = path.join(out, "wallet-history", wallets[0]?.name ?? "", "transactions.csv")
      const plantLock = (runnerAddress: string) =>
        Effect.sync(() => {
          const lock = `${file}.lock`
          writeFileSync(lock, JSON.stringify({ pid: 4242, host: "another-machine", runner: runnerAddress, startedAt: new Date().toISOString() }) + "\n")
          return lock
        })
      mkdirSync(path.dirname(file), { recursive: true })

      // A runner no longer in the cluster (never registered here, as one gone for longer than the
      // shard locks' expiry): its lock is taken over, and the run ends with every file.
      const gone = yield* plantLock("10.0.0.9:34431")
      const first = yield* suite.transcript.cli([...runArgs(lockedKey, config, out), "--cluster", database()])
      succeeded(first)
      expect(first.stdout.trimEnd().split("\n").length).toBe(14)
      expect(existsSync(gone)).toBe(false)
      expect(existsSync(file)).toBe(true)

      // A runner registered but silent for 20 s, past the shard locks' expiry (15 s): gone as well (the
      // cluster gives its shards to the others, and its lock is taken over); the next run ends.
      const silent = "10.0.0.8:34431"
      yield* onDatabase(database(), (sql) =>
        sql`INSERT INTO cluster_runners (address, runner, last_heartbeat, healthy)
          VALUES (${silent}, ${"{}"}, NOW() - INTERVAL '20 seconds', TRUE)`)
      const stale = yield* plantLock(silent)
      succeeded(yield* suite.transcript.cli([...runArgs(lockedKey, config, out), "--cluster", database()]))
      expect(existsSync(stale)).toBe(false)

      // A live runner's lock (runner a's address, on another host): it holds, and the run fails saying who holds it.
      const held = yield* plantLock(`127.0.0.1:${a.port}`)
      const before = yield* queryCounts(lockedKey)
      const second = yield* suite.transcript.cli([...runArgs(lockedKey, config, out), "--cluster", database()])
      expect(failureOf(second, "OutputLockedError")).toBe(`another export (pid 4242 on another-machine) is writing ${file} (lock file ${file}.lock)`)
      expect(existsSync(held)).toBe(true)
      // Nothing asked for the locked file.
      const locked = path.relative(path.join(out, "wallet-history"), file)
      for (const [query, n] of yield* queryCounts(lockedKey)) {
        if (fileOfQuery(query) === locked) expect(n, query).toBe(before.get(query))
      }
    }), 180_000)

  it.scoped("a run the runners' plan cannot finish stops before any request or file, with the runner's error", () =>
    Effect.gen(function*() {
      // The runner's key is on free; the submitter says proplus, which is not the plan the calls are made with.
      yield* runner(freeKey, "free")
      const out = path.join(suite.dir, "free")
      const submitted = spawnCli([...runArgs(freeKey, eightWallets(), out), "--cluster", database()])
      const result = { args: ["run", "--cluster"], code: (yield* exited(submitted.child)).code, signal: null, ...submitted.output }
      expect(failureOf(result, "PlanTierError")).toMatch(/^account\/addresstokenbalance on chain 1: addresstokenbalance is not available on plan free/)
      expect(yield* requestsWith(suite.sim, freeKey)).toBe(0)
      expect(existsSync(path.join(out, "wallet-history")) ? dataFiles(path.join(out, "wallet-history")) : []).toEqual([])
    }), 120_000)

  it.live("a database that does not answer: run and runner refuse --cluster, before any request", () =>
    Effect.gen(function*() {
      const key = unreachableKey
      // A port nothing listens on: the throwaway server's, once it is closed, is not known here; a fresh free one is.
      const port = yield* Effect.orDie(Postgres.freePort)
      const url = `postgres://postgres@127.0.0.1:${port}/explorer_etl`
      const config = eightWallets()
      for (const args of [
        [...runArgs(key, config, path.join(suite.dir, "unreachable")), "--cluster", url],
        ["runner", "pipelines/wallet-history.ts", "--cluster", url, ...api(key)]
      ]) {
        const message = failureOf(yield* suite.transcript.cli(args), "InvalidInputError")
        expect(message, args[0]).toMatch(/--cluster: .*Failed to connect/)
      }
      expect(yield* requestsWith(suite.sim, key)).toBe(0)
    }), 120_000)
})
