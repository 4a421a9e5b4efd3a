/**
 * Section 13 of the bench: the peak RSS (VmHWM) of a 1,000,000-row `Streams.logs(…)` drained chunk by chunk
 * in a script of its own (bench/stream.ts), beside the CLI's export of the same rows (section 3), against a
 * simulator in a process of its own (bench/server.ts, limits off): the heavy contract's logs on the
 * proplus plan at its own rate (30 calls/s, as section 3 runs the CLI). The script compiled and run with
 * the CLI's V8 settings (the goal's measure: as the CLI runs), with V8's defaults, and through tsx (as
 * notebook-style scripts run); its rows read ahead held in memory (the default bound, `heldRows`) or on
 * disk (`spill: { directory }`). The run as the CLI runs is measured again against the same rows served
 * 300–600 ms after each call (`latency=300+300`, as sections 6 and 8: where users' servers are, with more
 * requests in flight and answers waiting for their turn), and once more there with `--expose-gc` (a full
 * collection every 200 ms) for the live heap. Each run's rows are compared with the oracle's (count and
 * sha256 of their fingerprints in order).
 *
 * Usage: tsx bench/streamMemory.ts [--rows N] [--emit] [--merge]
 * (--merge: the figures written into bench/results.json as its `streamMemory`, RESULTS.md rendered again;
 * BENCH_STREAM_MEMORY_ONLY="config;config": only those runs)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { args, compileBench, emit, repoRoot, round, runChild, runCompiled, startServer } from "./lib.js"
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
  /** With --expose-gc: the heap before the first row, and the most and the median a full collection left. */
  readonly heapBeforeMb?: number | undefined
  readonly liveHeapMaxMb?: number | undefined
  readonly liveHeapMedianMb?: number | undefined
}

/** What section 13 reports. */
export interface StreamMemoryResults {
  readonly date: string
  readonly plan: string
  readonly targetRows: number
  readonly oracleRows: number
  readonly goalMb: number
  readonly runs: ReadonlyArray<StreamMemoryRun>
  /** Written by hand after a run: what the figures rest on. */
  readonly note?: string
}

const GOAL_MB = 150

/** What bench/stream.ts reports. */
interface Drained {
  readonly rows: number
  readonly sha256: string
  readonly seconds: number
  readonly eventLoop: number
  readonly peakRssMb: number
  readonly heapBeforeMb?: number
  readonly liveHeapMaxMb?: number
  readonly liveHeapMedianMb?: number
}

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
    const compiled = compileBench("stream")
    const tsx = (extra: ReadonlyArray<string>) => runChild<Drained>("stream", [...common, ...extra], { timeoutMs: 900_000 }).then((r) => r.result)
    const node = (extra: ReadonlyArray<string>, nodeArgs: ReadonlyArray<string>) => runCompiled<Drained>(compiled, [...common, ...extra], nodeArgs)
    const spill = ["--spill", spillDir]
    // The runs "300–600 ms away": the same server, answering each call that much later (`setFaults`).
    const distant = { latency: { fixedMs: 300, jitterMs: 300 } }
    const configs: ReadonlyArray<{
      readonly config: string
      readonly description: string
      readonly run: () => Promise<Drained>
      readonly faults?: typeof distant
    }> = [
      {
        config: "compiled, the CLI's V8 settings, in memory",
        description: "bench/stream.ts compiled by tsc as dist/ is, run as the CLI runs (`node --import bin/v8-settings.js`); rows read ahead held in memory, at most `heldRows` (the default: twenty pages, ≥ 20,000 rows)",
        run: () => node([], cliSettings)
      },
      {
        config: "compiled, the CLI's V8 settings, disk spill",
        description: "the same, rows read ahead in temporary files (`spill: { directory }`)",
        run: () => node(spill, cliSettings)
      },
      {
        config: "compiled, V8 defaults, in memory",
        description: "compiled, V8's default heap settings (a library user's own `node` process)",
        run: () => node([], [])
      },
      {
        config: "tsx, in memory",
        description: "the sources through `node --import tsx`, V8's defaults (how tsx scripts and notebooks run)",
        run: () => tsx([])
      },
      {
        config: "tsx, disk spill",
        description: "the same with `spill: { directory }`",
        run: () => tsx(spill)
      },
      {
        config: "compiled, the CLI's V8 settings, in memory, 300–600 ms away",
        description: "the first run against the same rows served 300–600 ms after each call (`latency=300+300`)",
        run: () => node([], cliSettings),
        faults: distant
      },
      {
        config: "live heap, the CLI's V8 settings, in memory, 300–600 ms away",
        description: "the same with `--expose-gc`: a full collection every 200 ms, and the heap it leaves (its peak RSS is not the goal's measure)",
        run: () => node([], [...cliSettings, "--expose-gc"]),
        faults: distant
      }
    ]
    const only = process.env.BENCH_STREAM_MEMORY_ONLY
    const runs: Array<StreamMemoryRun> = []
    for (const c of configs) {
      if (only !== undefined && !only.split(";").includes(c.config)) continue
      await server.command({ cmd: "setFaults", faults: c.faults ?? {} })
      await server.command({ cmd: "gc" })
      process.stderr.write(`[stream memory] ${c.config}: Streams.logs of ${oracle.rows} rows drained\n`)
      const r = { result: await c.run() }
      runs.push({
        config: c.config,
        description: c.description,
        rows: r.result.rows,
        exact: r.result.rows === oracle.rows && r.result.sha256 === oracle.sha256,
        seconds: r.result.seconds,
        peakRssMb: r.result.peakRssMb,
        eventLoop: r.result.eventLoop,
        heapBeforeMb: r.result.heapBeforeMb,
        liveHeapMaxMb: r.result.liveHeapMaxMb,
        liveHeapMedianMb: r.result.liveHeapMedianMb
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
