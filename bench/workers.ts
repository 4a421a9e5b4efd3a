/**
 * Section 14, decoding workers: how an export scales with the worker threads that parse, check and
 * write its pages (`Exports.toFile` `workers`, `--workers`), and what each worker costs in memory.
 *
 * - Scaling, on captured answers (the section 2 method: every record of the two queries captured once
 *   from the bench simulator, which then sits idle, as its JSON text; each answer of a range and page put
 *   together from them once and then served from memory through an undici `MockAgent` behind the
 *   client's own `NodeHttpClient`; no simulator and no network on the cores), txs and logs to CSV and
 *   JSONL with `workers: 0` (in the main thread, as before), 1 and 2, two ways: `export`,
 *   `Exports.toFile` as a user runs it; `decode`, the client's file lines of every page alone, 4 at once
 *   (no engine, no writes). Rounds in alternating order, rows/s the medians of the rounds and the 2 ÷ 1
 *   ratios the medians of the rounds' own ratios. For each run the CPU time of the main thread and of
 *   the whole process (every thread; /proc's counters) per row, and the cores the machine's other
 *   processes took meanwhile: from them, what bounds the export (the main thread's share is what no
 *   worker takes off it), the rows/s projected for each core added (a core of its own for the main
 *   thread, one for each worker), and the workers that would keep up with each plan.
 * - Memory: peak RSS (VmHWM) of the CLI as a user runs it (`node bin/explorer-etl.js export txs …`,
 *   dist/, its V8 settings), the busy wallet's transactions in 10,000-row pages, with `--workers 0, 1, 2`
 *   against the bench simulator (limits off): what each worker adds.
 *
 * Usage: tsx bench/workers.ts [--rounds 5] [--busy 100000] [--logs 60000] [--memory false]
 *        [--emit] [--merge]   (--merge: written into bench/results.json as its `workers`; then
 *        `npm run bench -- --render` renders bench/RESULTS.md again)
 *        tsx bench/workers.ts --memory-only [--merge]   (the CLI's peak RSS alone: --merge replaces the
 *        section's memory rows and says when and at which commit they were measured)
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import * as Client from "../src/ExplorerClient.js"
import * as Exports from "../src/Exports.js"
import * as Schemas from "../src/schemas/index.js"
import * as Format from "../src/sinks/Format.js"
import * as Sources from "../src/streams/Sources.js"
import { args, emit, machine, median, repoRoot, round, runCli, startServer } from "./lib.js"
import { type CapturedRecords, type Dataset, recordsOf, REPLAY_ORIGIN, replayRanges } from "./replay.js"


/** CLI runs of each worker count for the peak RSS. */
const MEMORY_RUNS = 3

/** The worker counts measured: 0 is the main thread alone. */
const SETTINGS = [0, 1, 2] as const

/** One case at one worker count: medians over the rounds. */
export interface ScalingRow {
  /** `export`: `Exports.toFile`; `decode`: the client's file lines of every page, 4 at once (no engine, no writes). */
  readonly mode: "export" | "decode"
  readonly case: string
  readonly workers: number
  readonly rowsPerSecond: number
  readonly samples: ReadonlyArray<number>
  /** The main thread's CPU, µs per row. */
  readonly mainMicrosPerRow: number
  /** The process's CPU (every thread, GC included), µs per row. */
  readonly cpuMicrosPerRow: number
  /** Cores the export used (its process's CPU ÷ wall time). */
  readonly cores: number
  /** Cores the machine's other processes used meanwhile (their CPU ÷ wall time). */
  readonly othersCores: number
}

/** What the figures project for one case. */
export interface Projection {
  readonly case: string
  /** Rows of one answer (10,000-row txlist pages, 1,000-row getLogs pages). */
  readonly rowsPerCall: number
  /** The export's 2 workers ÷ 1, median of the rounds' ratios. */
  readonly twoToOne: number
  /** The same of the decoding stage alone (pages 4 at once). */
  readonly decodeTwoToOne: number
  /** The most the 2 cores of this machine allow: 2 cores ÷ the CPU of a row with workers. */
  readonly twoCoreBound: number
  /** The most the main thread allows, whatever the workers: 1 ÷ its busy time per row. */
  readonly mainBound: number
  /** The workers' CPU per row (process CPU − main thread's), µs. */
  readonly workerMicrosPerRow: number
  /** Rows/s projected with k workers, each and the main thread on a core of its own (k = 1, 2, 3, 4, 8). */
  readonly perCores: ReadonlyArray<{ readonly workers: number; readonly rowsPerSecond: number }>
  /** Each plan's rows/s (calls/s × rows a call) and the workers that would keep up (undefined: the main thread binds first). */
  readonly plans: ReadonlyArray<{ readonly plan: string; readonly rowsPerSecond: number; readonly workers: number | undefined }>
}

/** Peak RSS of the CLI with N workers. */
export interface MemoryRow {
  readonly workers: number
  readonly rows: number
  /** The median of the runs. */
  readonly peakRssMb: number
  readonly runsMb: ReadonlyArray<number>
  readonly rowsPerSecond: number
}

/** What this bench gives. */
export interface WorkersResults {
  readonly date: string
  readonly commit: string
  readonly machine: ReturnType<typeof machine>
  readonly rounds: number
  readonly captured: Readonly<Record<Dataset, { readonly rows: number; readonly bytes: number }>>
  readonly scaling: ReadonlyArray<ScalingRow>
  readonly projections: ReadonlyArray<Projection>
  readonly memory: ReadonlyArray<MemoryRow>
  /** When and at which commit the memory rows were measured, where apart from the rest (`--memory-only`). */
  readonly memoryMeasured?: { readonly date: string; readonly commit: string } | undefined
  /** What the figures mean, and the bounds measured apart (written by hand into results.json). */
  readonly note?: string
}

const PLANS = [
  { plan: "free", callsPerSecond: 3, rows: { txs: 1_000, logs: 1_000 } },
  { plan: "standard", callsPerSecond: 10, rows: { txs: 10_000, logs: 1_000 } },
  { plan: "professional", callsPerSecond: 30, rows: { txs: 10_000, logs: 1_000 } }
] as const

const CASES = [["txs", "csv"], ["txs", "jsonl"], ["logs", "csv"], ["logs", "jsonl"]] as const

interface Sample {
  readonly rowsPerSecond: number
  readonly mainMs: number
  readonly cpuMs: number
  readonly rows: number
  readonly cores: number
  readonly others: number
}

/** Clock ticks a second of /proc's CPU times (USER_HZ: 100 on Linux). */
const TICKS = 100

/**
 * CPU ms (user + system) of the main thread (its task in /proc has the process's id) and of the whole
 * process, every thread: on a shared machine busy wall time is not CPU time, so /proc's counters.
 */
const cpuNow = (): { readonly main: number; readonly all: number } => {
  const ticks = (file: string) => {
    const fields = readFileSync(file, "utf8").split(") ")[1]?.split(" ") ?? []
    return Number(fields[11]) + Number(fields[12])
  }
  return { main: (ticks(`/proc/self/task/${process.pid}/stat`) * 1000) / TICKS, all: (ticks("/proc/self/stat") * 1000) / TICKS }
}

/** CPU ms (user, nice, system, irq, softirq, steal) every core of the machine spent, every process's. */
const machineBusyMs = (): number => {
  const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").trim().split(/\s+/).slice(1).map(Number)
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields
  return ((user + nice + system + irq + softirq + steal) * 1000) / TICKS
}

/**
 * One export on the replayed answers: rows, seconds, the main thread's and the process's CPU ms, and
 * what the machine's other processes took of its cores meanwhile (ms).
 */
const measured = <E, R>(run: Effect.Effect<number, E, R>) =>
  Effect.gen(function*() {
    const cpu0 = cpuNow()
    const busy0 = machineBusyMs()
    const t0 = performance.now()
    const rows = yield* run
    const seconds = (performance.now() - t0) / 1000
    const cpu1 = cpuNow()
    const cpuMs = cpu1.all - cpu0.all
    return { rows, seconds, mainMs: cpu1.main - cpu0.main, cpuMs, othersMs: Math.max(0, machineBusyMs() - busy0 - cpuMs) }
  })

const scaling = (at: { latest: number; fromBlock: number; txAddress: string; logAddress: string }, records: Record<Dataset, CapturedRecords>, options: {
  readonly rounds: number
  readonly dir: string
}) =>
  Effect.gen(function*() {
    const ClientLive = Client.layer({
      apiKey: Redacted.make("REPLAYREPLAYREPLAYREPLAYREPLAY0000"),
      baseUrl: REPLAY_ORIGIN,
      plan: "standard",
      rate: { callsPerSecond: 1_000_000, throttledPerSecond: 1_000_000 }
    }).pipe(Layer.provide(replayRanges(records, at.latest)))
    const program = Effect.gen(function*() {
      const client = yield* Client.ExplorerClient
      const sources = {
        txs: yield* Sources.transactions({ chainId: 1, address: at.txAddress, fromBlock: at.fromBlock, toBlock: at.latest }),
        logs: yield* Sources.logs({ chainId: 1, address: at.logAddress, fromBlock: at.fromBlock, toBlock: at.latest })
      }
      const exported = (dataset: Dataset, format: "csv" | "jsonl", workers: number) =>
        measured(Effect.map(
          Exports.toFile(sources[dataset] as Sources.Source<unknown, unknown>, {
            out: path.join(options.dir, `workers-${dataset}-${workers}.${format}`),
            quiet: true,
            workers
          }),
          (summary) => summary.rowsWritten
        ))
      // The decoding stage alone: every page of the records (a page from each 1,000th or 10,000th
      // record's block), 4 at once, through the client's file lines, in workers or in the main thread.
      const encoders = {
        csv: { txs: yield* Format.encodedEncoder(Schemas.NormalTransaction, { format: "csv" }), logs: yield* Format.encodedEncoder(Schemas.LogFileRow, { format: "csv" }) },
        jsonl: { txs: yield* Format.encodedEncoder(Schemas.NormalTransaction, { format: "jsonl" }), logs: yield* Format.encodedEncoder(Schemas.LogFileRow, { format: "jsonl" }) }
      }
      const decoded = (dataset: Dataset, format: "csv" | "jsonl", workers: number) => {
        const perPage = dataset === "txs" ? 10_000 : 1_000
        const starts = records[dataset].blocks.filter((_, i) => i % perPage === 0)
        const lines = encoders[format][dataset].lines as (rows: ReadonlyArray<unknown>) => Either.Either<ReadonlyArray<unknown>, unknown>
        const offload = workers === 0 ? undefined : { workers, format, rows: (l: Client.WorkerLines) => Array.from(l.ends) }
        const page = (start: number) =>
          dataset === "txs"
            ? client.fileRecordsMapped("txlist", { chainId: 1, address: at.txAddress, startBlock: start, endBlock: at.latest, page: 1, offset: perPage, sort: "asc" }, Schemas.NormalTransaction, lines, undefined, offload)
            : client.fileRecordsMapped("getLogs", { chainId: 1, address: at.logAddress, fromBlock: start, toBlock: at.latest, page: 1, offset: perPage }, Schemas.LogFileRow, lines, undefined, offload)
        return measured(Effect.map(Effect.forEach(starts, page, { concurrency: 4 }), (pages) => pages.reduce((n, p) => n + p.length, 0)))
      }
      const runs = { export: exported, decode: decoded } as const
      // Warm: the JIT, and each pool's workers started (a pool lives on between exports).
      for (const [dataset, format] of CASES) for (const w of SETTINGS) for (const run of Object.values(runs)) yield* run(dataset, format, w)
      const samples = new Map<string, Array<Sample>>()
      for (let r = 0; r < options.rounds; r++) {
        for (const [dataset, format] of r % 2 === 0 ? CASES : [...CASES].reverse()) {
          for (const w of r % 2 === 0 ? SETTINGS : [...SETTINGS].reverse()) {
            for (const [mode, run] of Object.entries(runs)) {
              const m = yield* run(dataset, format, w)
              if (mode === "export" && m.rows !== records[dataset].texts.length) {
                return yield* Effect.die(new Error(`${dataset}.${format} with ${w} workers wrote ${m.rows} rows of ${records[dataset].texts.length}`))
              }
              const key = `${mode}:${dataset}.${format}:${w}`
              const list = samples.get(key) ?? []
              list.push({
                rowsPerSecond: m.rows / m.seconds,
                mainMs: m.mainMs,
                cpuMs: m.cpuMs,
                rows: m.rows,
                cores: m.cpuMs / (m.seconds * 1000),
                others: m.othersMs / (m.seconds * 1000)
              })
              samples.set(key, list)
            }
          }
        }
      }
      return samples
    })
    const samples = yield* program.pipe(Effect.provide(Layer.merge(ClientLive, NodeContext.layer)))
    const rows: Array<ScalingRow> = []
    const projections: Array<Projection> = []
    for (const [dataset, format] of CASES) {
      const name = `${dataset}.${format}`
      const of = (w: number, mode = "export") => samples.get(`${mode}:${name}:${w}`) ?? []
      for (const [mode, w] of (["export", "decode"] as const).flatMap((m) => SETTINGS.map((x) => [m, x] as const))) {
        const s = of(w, mode)
        rows.push({
          mode,
          case: name,
          workers: w,
          rowsPerSecond: round(median(s.map((x) => x.rowsPerSecond))),
          samples: s.map((x) => round(x.rowsPerSecond)),
          mainMicrosPerRow: round(median(s.map((x) => (x.mainMs * 1000) / x.rows)), 2),
          cpuMicrosPerRow: round(median(s.map((x) => (x.cpuMs * 1000) / x.rows)), 2),
          cores: round(median(s.map((x) => x.cores)), 2),
          othersCores: round(median(s.map((x) => x.others)), 2)
        })
      }
      const one = of(1)
      const two = of(2)
      const withWorkers = [...one, ...two]
      const main = median(withWorkers.map((x) => (x.mainMs * 1000) / x.rows))
      const cpu = median(withWorkers.map((x) => (x.cpuMs * 1000) / x.rows))
      const worker = Math.max(cpu - main, 0.001)
      const mainBound = 1e6 / main
      const projected = (k: number) => Math.min(mainBound, (k * 1e6) / worker)
      projections.push({
        case: name,
        rowsPerCall: dataset === "txs" ? 10_000 : 1_000,
        twoToOne: round(median(two.map((x, i) => x.rowsPerSecond / (one[i]?.rowsPerSecond ?? x.rowsPerSecond))), 2),
        decodeTwoToOne: round(median(of(2, "decode").map((x, i) => x.rowsPerSecond / (of(1, "decode")[i]?.rowsPerSecond ?? x.rowsPerSecond))), 2),
        twoCoreBound: round((2 * 1e6) / cpu),
        mainBound: round(mainBound),
        workerMicrosPerRow: round(worker, 2),
        perCores: [1, 2, 3, 4, 8].map((k) => ({ workers: k, rowsPerSecond: round(projected(k)) })),
        plans: PLANS.map((p) => {
          const target = p.callsPerSecond * p.rows[dataset]
          return { plan: p.plan, rowsPerSecond: target, workers: target > mainBound ? undefined : Math.max(1, Math.ceil((target * worker) / 1e6)) }
        })
      })
    }
    const bytesOf = (r: CapturedRecords) => r.texts.reduce((n, t) => n + t.length + 1, 0)
    return {
      captured: {
        txs: { rows: records.txs.texts.length, bytes: bytesOf(records.txs) },
        logs: { rows: records.logs.texts.length, bytes: bytesOf(records.logs) }
      },
      scaling: rows,
      projections
    }
  })

/**
 * Peak RSS of the CLI as a user runs it (dist/ built first: bin/explorer-etl.js rebuilds a stale one),
 * with each worker count, the busy wallet's transactions in 10,000-row pages. Peak RSS moves with the
 * moments the collector happens to pick: three runs each, in turn, the median.
 */
const memoryRows = async (server: Awaited<ReturnType<typeof startServer>>, dir: string): Promise<Array<MemoryRow>> => {
  const d = server.dataset
  const runs = new Map<number, Array<{ rows: number; peakRssMb: number; rowsPerSecond: number }>>()
  for (let i = 0; i < MEMORY_RUNS; i++) {
    for (const w of SETTINGS) {
      const out = path.join(dir, `workers-mem-${w}.csv`)
      const r = await runCli([
        "export", "txs", "--address", d.busyWallet.address, "--from-block", "0", "--to-block", String(d.latestBlock),
        "--base-url", server.baseUrl, "--plan", "proplus", "--quiet", "--workers", String(w), "--out", out
      ], out, { EXPLORER_API_KEY: server.demoKeys.proplus ?? "" })
      runs.set(w, [...(runs.get(w) ?? []), r])
    }
  }
  return SETTINGS.map((w) => {
    const r = runs.get(w) ?? []
    return {
      workers: w,
      rows: r[0]?.rows ?? 0,
      peakRssMb: round(median(r.map((x) => x.peakRssMb)), 0),
      runsMb: r.map((x) => round(x.peakRssMb, 0)),
      rowsPerSecond: round(median(r.map((x) => x.rowsPerSecond)))
    }
  })
}

/** The bench simulator of this section's data (limits off) for `use`, with the bench's work folder; stopped after. */
const withServer = async <A>(
  options: { readonly busy: number; readonly logs: number },
  use: (server: Awaited<ReturnType<typeof startServer>>, dir: string) => Promise<A>
): Promise<A> => {
  const dir = path.join(repoRoot, "bench", ".work")
  mkdirSync(dir, { recursive: true })
  const server = await startServer({
    seed: 1,
    enforceRateLimits: false,
    dailyCaps: false,
    dataset: { busyWalletTransactions: options.busy, heavyContractLogs: options.logs }
  })
  try {
    return await use(server, dir)
  } finally {
    await server.stop()
  }
}

/** The memory rows alone (`--memory-only`), against a simulator of the same data. */
export const memoryOnly = (options: { readonly busy: number; readonly logs: number }): Promise<{ readonly memory: Array<MemoryRow>; readonly memoryMeasured: { readonly date: string; readonly commit: string } }> =>
  withServer(options, async (server, dir) => {
    const memory = await memoryRows(server, dir)
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: repoRoot }).toString().trim()
    return { memory, memoryMeasured: { date: new Date().toISOString(), commit } }
  })

export const workers = async (options: {
  readonly rounds: number
  readonly busy: number
  readonly logs: number
  readonly memory: boolean
}): Promise<WorkersResults> => {
  return withServer(options, async (server, dir) => {
    const d = server.dataset
    // Every record of the two queries, captured once from the simulator (which then sits idle).
    const captureAll = async (query: Readonly<Record<string, unknown>>, name: string) => {
      const file = path.join(dir, `workers-${name}.jsonl`)
      await server.command({ cmd: "oracleToFile", query, path: file })
      const lines = readFileSync(file, "utf8").split("\n").filter((l) => l !== "")
      rmSync(file, { force: true })
      return recordsOf(lines)
    }
    const records: Record<Dataset, CapturedRecords> = {
      txs: await captureAll({ chainId: 1, module: "account", action: "txlist", params: { address: d.busyWallet.address, startblock: 0, endblock: d.latestBlock } }, "txs"),
      logs: await captureAll({ chainId: 1, module: "logs", action: "getLogs", params: { address: d.heavyContract.address, fromblock: 0, toblock: d.latestBlock } }, "logs")
    }
    const scaled = await Effect.runPromise(scaling({
      fromBlock: 0,
      latest: d.latestBlock,
      txAddress: d.busyWallet.address,
      logAddress: d.heavyContract.address
    }, records, { rounds: options.rounds, dir }))
    const memory = options.memory ? await memoryRows(server, dir) : []
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: repoRoot }).toString().trim()
    return { date: new Date().toISOString(), commit, machine: machine(), rounds: options.rounds, ...scaled, memory }
  })
}

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]).replace(/\.js$/, ".ts").endsWith(path.join("bench", "workers.ts"))
if (isMain && args()["memory-only"] === "true") {
  const o = args()
  memoryOnly({ busy: Number(o.busy ?? "100000"), logs: Number(o.logs ?? "60000") }).then((results) => {
    if (o.merge === "true") {
      const file = path.join(repoRoot, "bench", "results.json")
      const all = JSON.parse(readFileSync(file, "utf8")) as { workers?: WorkersResults }
      if (all.workers === undefined) throw new Error("bench/results.json has no workers section to merge the memory rows into")
      writeFileSync(file, JSON.stringify({ ...all, workers: { ...all.workers, ...results } }, null, 2) + "\n")
    }
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`)
    process.exit(0)
  }, (error: unknown) => {
    process.stderr.write(`workers bench failed: ${String(error)}\n`)
    process.exit(1)
  })
} else if (isMain) {
  const o = args()
  workers({
    rounds: Number(o.rounds ?? "5"),
    busy: Number(o.busy ?? "100000"),
    logs: Number(o.logs ?? "60000"),
    memory: o.memory !== "false"
  }).then((results) => {
    if (o.merge === "true") {
      const file = path.join(repoRoot, "bench", "results.json")
      writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), workers: results }, null, 2) + "\n")
    }
    if (o.emit === "true") emit(results)
    else process.stdout.write(`${JSON.stringify(results, null, 2)}\n`)
    process.exit(0)
  }, (error: unknown) => {
    process.stderr.write(`workers bench failed: ${String(error)}\n`)
    process.exit(1)
  })
}
