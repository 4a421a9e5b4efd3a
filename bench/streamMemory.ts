/**
 * Section 13 of the bench: the peak RSS of a 1,000,000-row `Streams.logs(…)` drained in a script (bench/stream.ts
 * through tsx, as a notebook-style script runs: V8's default heap settings), beside the CLI's export of
 * the same rows (section 3). Against a simulator in a process of its own (bench/server.ts, limits off),
 * the heavy contract's logs on the proplus plan at its own rate (30 calls/s, as section 3 runs the CLI):
 * the Stream with its rows read ahead held in memory (the default bound, `heldRows`), and with them on
 * disk (`spill: { directory }`). Each run's rows are compared with the oracle's (count and sha256 of their
 * fingerprints in order).
 *
 * Usage: tsx bench/streamMemory.ts [--rows N] [--emit] [--merge]
 * (--merge: the figures written into bench/results.json as its `streamMemory`, RESULTS.md rendered again)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { args, emit, repoRoot, round, runChild, startServer } from "./lib.js"
import { render, type Results } from "./report.js"

/** One drained Stream. */
export interface StreamMemoryRun {
  readonly config: string
  readonly description: string
  readonly rows: number
  readonly exact: boolean
  readonly seconds: number
  readonly peakRssMb: number
  readonly eventLoop: number
}

/** What section 13 reports. */
export interface StreamMemoryResults {
  readonly date: string
  readonly plan: string
  readonly targetRows: number
  readonly oracleRows: number
  readonly goalMb: number
  readonly runs: ReadonlyArray<StreamMemoryRun>
}

const GOAL_MB = 150

export const streamMemory = async (targetRows: number): Promise<StreamMemoryResults> => {
  const server = await startServer({ seed: 1, enforceRateLimits: false, dailyCaps: false, dataset: { busyWalletTransactions: 1_000, heavyContractLogs: targetRows } })
  const spillDir = mkdtempSync(path.join(os.tmpdir(), "bench-stream-spill-"))
  try {
    const d = server.dataset
    const query = { chainId: 1, module: "logs", action: "getLogs", params: { address: d.heavyContract.address, fromblock: 0, toblock: d.latestBlock } }
    await server.command({ cmd: "warm", query })
    const oracle = await server.command<{ rows: number; sha256: string }>({ cmd: "oracleFingerprint", query })
    const plan = "proplus"
    const common = [
      "--base-url", server.baseUrl,
      "--key", server.demoKeys[plan] ?? "",
      "--plan", plan,
      "--address", d.heavyContract.address,
      "--from-block", "0",
      "--to-block", String(d.latestBlock)
    ]
    const cliSettings = ["--import", path.join(repoRoot, "bin", "v8-settings.js")]
    const configs: ReadonlyArray<{
      readonly config: string
      readonly description: string
      readonly extra: ReadonlyArray<string>
      readonly nodeArgs: ReadonlyArray<string>
    }> = [
      {
        config: "in memory",
        description: "the default: rows read ahead of their turn held in memory, at most `heldRows` (twenty pages, ≥ 20,000 rows); V8's default heap settings",
        extra: [],
        nodeArgs: []
      },
      {
        config: "disk spill",
        description: "`spill: { directory }`: rows read ahead of their turn in temporary files (JSON lines of the record schema's encoded form); V8's default heap settings",
        extra: ["--spill", spillDir],
        nodeArgs: []
      },
      {
        config: "in memory, the CLI's V8 settings",
        description: "the default bound, the script run with the CLI's V8 settings (`node --import bin/v8-settings.js`)",
        extra: [],
        nodeArgs: cliSettings
      },
      {
        config: "disk spill, the CLI's V8 settings",
        description: "the disk spill, the script run with the CLI's V8 settings",
        extra: ["--spill", spillDir],
        nodeArgs: cliSettings
      }
    ]
    const only = process.env.BENCH_STREAM_MEMORY_ONLY
    const runs: Array<StreamMemoryRun> = []
    for (const c of configs) {
      if (only !== undefined && !only.split(",").includes(c.config)) continue
      await server.command({ cmd: "gc" })
      process.stderr.write(`[stream memory] ${c.config}: Streams.logs of ${oracle.rows} rows drained\n`)
      const r = await runChild<{ rows: number; sha256: string; seconds: number; eventLoop: number; peakRssMb: number }>(
        "stream",
        [...common, ...c.extra],
        { timeoutMs: 900_000, nodeArgs: c.nodeArgs }
      )
      runs.push({
        config: c.config,
        description: c.description,
        rows: r.result.rows,
        exact: r.result.rows === oracle.rows && r.result.sha256 === oracle.sha256,
        seconds: r.result.seconds,
        peakRssMb: r.result.peakRssMb,
        eventLoop: r.result.eventLoop
      })
    }
    return { date: new Date().toISOString(), plan, targetRows, oracleRows: oracle.rows, goalMb: GOAL_MB, runs }
  } finally {
    await server.stop()
    rmSync(spillDir, { recursive: true, force: true })
  }
}

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]).replace(/\.js$/, ".ts").endsWith(path.join("bench", "streamMemory.ts"))
if (isMain) {
  const options = args()
  streamMemory(Number(options.rows ?? 1_000_000)).then((results) => {
    if (options.merge === "true") {
      const file = path.join(repoRoot, "bench", "results.json")
      const merged = { ...(JSON.parse(readFileSync(file, "utf8")) as Results), streamMemory: results }
      writeFileSync(file, JSON.stringify(merged, null, 2) + "\n")
      writeFileSync(path.join(repoRoot, "bench", "RESULTS.md"), render(merged))
    }
    if (options.emit === "true") emit(results)
    else process.stdout.write(`${JSON.stringify({ ...results, runs: results.runs.map((x) => ({ ...x, peakRssMb: round(x.peakRssMb, 1) })) }, null, 2)}\n`)
    process.exit(0)
  }, (error: unknown) => {
    process.stderr.write(`stream memory bench failed: ${String(error)}\n`)
    process.exit(1)
  })
}
