/**
 * Renders `bench/RESULTS.md` from the figures of one `npm run bench` run: each figure beside its goal,
 * met or not, and what bounds the ones that are not.
 */
import { existsSync, readFileSync } from "node:fs"
import { round } from "./lib.js"
import type { ClusterResults } from "./cluster.js"
import type { DistanceRow } from "./distance.js"
import type { EngineRow } from "./engine.js"
import type { Reader, ShapeCell, ShapesResults } from "./shapes.js"
import type { CompressionResults } from "./compression.js"
import type { WorkersResults } from "./workers.js"
import type { StartupResults } from "./startup.js"
import type { StreamMemoryResults } from "./streamMemory.js"
import type { ArrivalFigures } from "./timing.js"

/**
 * A partitioned distance row against issue 14's goal (≥ 0.9 on free and standard, ≥ 0.8 on
 * professional). Where the plan's limit is beyond what this machine's CPU exports (the zero-latency
 * run of the same export, measured in the same run, is below the goal's share of it), the row is
 * judged against that run: what latency costs, which is what partitions are for.
 */
const distanceJudged = (x: DistanceRow): { readonly machineBound: boolean; readonly ratio: number; readonly met: boolean } => {
  const goal = x.plan === "professional" ? 0.8 : 0.9
  const machineBound = x.zeroLatencyRowsPerSecond !== undefined && x.zeroLatencyRowsPerSecond < x.limitRowsPerSecond * goal
  const ratio = machineBound ? x.ratioToZeroLatency ?? 0 : x.ratio
  return { machineBound, ratio, met: ratio >= goal }
}

/** What one memory measurement gives (a figure a process does not report is left out). */
export interface MemoryFigures {
  readonly rows?: number | undefined
  readonly rowsPerSecond?: number | undefined
  readonly rssBeforeMb?: number | undefined
  readonly peakRssMb: number
  readonly heapBeforeMb?: number | undefined
  readonly liveHeapMaxMb?: number | undefined
  readonly liveHeapMedianMb?: number | undefined
}

/** The figures the report reads (bench/run.ts writes them all to results.json). */
export interface Results {
  readonly date: string
  readonly quick: boolean
  readonly durationSeconds: number
  readonly machine: {
    readonly cpus: number
    readonly cpuModel: string
    readonly memoryGb: number
    readonly node: string
    readonly platform: string
    readonly loadAverage: ReadonlyArray<number>
  }
  readonly simulators: {
    readonly strict: { readonly rateLimitToleranceMs: number } & Readonly<Record<string, unknown>>
    readonly open: Readonly<Record<string, unknown>>
  }
  readonly rate: ReadonlyArray<{
    readonly name: string
    /** Whether the issue sets a goal for this run (professional is shown for what bounds it). */
    readonly goal: boolean
    readonly rowsPerSecond?: number | undefined
    readonly allowedPerSecond: number
    readonly callsPerSecond: number
    readonly utilisation: number
    readonly maxInAnySecond: number
    readonly calls: number
    readonly serverRequests: number
    readonly rateLimitedByServer: number
    readonly rateLimitedSeenByClient: number
    /** The largest delay of the simulator's event loop during the run (it timestamps a request when its handler runs). */
    readonly serverLoopDelayMaxMs?: number | undefined
    /** The calls' arrivals at the simulator's handler against their send times (when they pair up). */
    readonly arrivals?: ArrivalFigures | undefined
  }>
  readonly cpu: {
    readonly captured?: Readonly<Record<string, { readonly pages: number; readonly rows: number; readonly bytes: number }>>
    readonly rounds?: number
    readonly cases?: Readonly<
      Record<string, {
        readonly explorer: number
        readonly baseline: number
        readonly ratio: number
        /** JSONL only: JSON.parse + JSON.stringify per record, a stricter reference with no goal. */
        readonly strict?: number
        readonly strictRatio?: number
        /** Parquet and decoded events: rows/s against explorer-etl's own CSV path of the same bodies (goal ≥ 0.5). */
        readonly vsCsv?: number
      }>
    >
    readonly stages?: Readonly<Record<string, Readonly<Record<string, number>>>>
    readonly peakRssMb?: number
    /** When the section was measured on its own (not with the rest of the run), and at which commit. */
    readonly date?: string
    readonly commit?: string
    /** What the figures rest on, when one draw is not the whole story. */
    readonly note?: string
  }
  readonly endToEnd: ReadonlyArray<{
    readonly dataset: string
    readonly format: string
    readonly rows?: number | undefined
    readonly seconds: number
    readonly rowsPerSecond?: number | undefined
    readonly calls: number
    readonly simulatorCpuSeconds: number
  }>
  readonly memory: ReadonlyArray<
    {
      readonly config: string
      readonly description: string
      readonly dataset: string
      readonly pageRows: number
      readonly targetRows: number
    } & MemoryFigures
  >
  /** Written by hand: what was measured of section 3's figures since its run (the CLI's peak at a later commit). */
  readonly memoryNote?: string | undefined
  readonly modules: ReadonlyArray<{ readonly step: string; readonly rssMb: number; readonly heapMb: number }>
  readonly naive: ReadonlyArray<{
    readonly query: string
    readonly blocks: { readonly from: number; readonly to: number; readonly denseBlock: number; readonly denseRows: number }
    readonly plan: string
    readonly oracleRows: number
    readonly naive: Readonly<Record<string, unknown>>
    readonly explorerEtl: {
      readonly completed: boolean
      readonly error?: { readonly tag: string; readonly message: string } | undefined
      readonly rowsExported?: number | undefined
      readonly calls: number
      readonly oracle?: { readonly missing: number; readonly duplicated: number; readonly unexpected: number; readonly matched: number } | undefined
    }
  }>
  readonly serving: ReadonlyArray<{
    readonly dataset: string
    readonly rows: number
    readonly requests: number
    readonly seconds: number
    readonly rowsPerSecond: number
    readonly serverCpuSeconds: number
    readonly rowsPerServerCpuSecond: number
  }>
  /** Issue 14: one export against a distant server (bench/distance.ts); absent in older results. */
  readonly distance?: {
    readonly latency: string
    readonly rows: ReadonlyArray<DistanceRow>
    /** When and how the rows were measured, where not in the bench's own run. */
    readonly note?: string
  }
  /** Issue 18: runner processes of a cluster (bench/cluster.ts); absent in older results. */
  readonly cluster?: ClusterResults
  /** The density-shape matrix (bench/shapes.ts); absent in older results. */
  readonly shapes?: ShapesResults
  /**
   * The same matrix measured on the paging engine before its rewrite (a subset of cells), kept from run
   * to run: what the new engine is compared with.
   */
  readonly shapesBaseline?: ShapesResults
  /** The paging engine on a model of the API in virtual time (bench/engine.ts); absent in older results. */
  readonly engine?: {
    readonly date: string
    readonly commit: string
    readonly rows: ReadonlyArray<EngineRow>
    /** What changed since the run before, and which cells got worse (written by hand). */
    readonly note?: string
  }
  /** Start-up of the command line (bench/startup.ts); absent in older results. */
  readonly startup?: StartupResults
  /** Compressed answers on 10,000-row pages (bench/compression.ts); absent in older results. */
  readonly compression?: CompressionResults
  /** Peak RSS of a drained 1,000,000-row `Streams.logs` (bench/streamMemory.ts); absent in older results. */
  readonly streamMemory?: StreamMemoryResults
  /** Decoding workers: scaling and memory (bench/workers.ts); absent in older results. */
  readonly workers?: WorkersResults
}

/** The shape matrix as a Markdown table, then the worst and the best cell of each reader. */
export const shapesTable = (r: ShapesResults): string => {
  const row = (c: ShapeCell) =>
    `| ${c.shape} | ${c.plan} | ${c.size} | ${c.reader} | ${c.rows.toLocaleString("en-US")} | ${c.calls} ÷ ${c.idealCalls} = ${c.callsOverIdeal} | ${c.callsPerSecond} (${c.planRate}) | **${c.ratio}** | ${c.wallRatio} | ${c.rateLimited} | ${c.exact ? "yes" : `**no**${c.error === undefined ? "" : ` (${c.error.slice(0, 80)})`}`} |`
  const lines = [
    `Latency ${r.latency} ms; commit ${r.commit}; ${r.date.slice(0, 16).replace("T", " ")} UTC; ${r.cells.length} cells in ${Math.round(r.seconds / 60)} min${r.loadAverage === undefined ? "" : `; load average (1/5/15 min) ${r.loadAverage.start.join("/")} at the start, ${r.loadAverage.end.join("/")} at the end, on 2 cores`}.`,
    ...(r.note === undefined ? [] : ["", r.note]),
    "",
    "| shape | plan | size | reader | rows | calls ÷ ideal | calls/s (plan rate) | ratio to the limit | wall ratio | refused | exact |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
    ...r.cells.map(row)
  ]
  // Every reader of bench/shapes.ts named (a reader added there without a name here does not compile).
  const names: Record<Reader, string> = {
    export: "Export (CLI)",
    stream: "Stream (`Streams.logs` drained)",
    "stream-spill": "Stream with `spill` (rows ahead on disk)"
  }
  for (const reader of Object.keys(names) as Array<Reader>) {
    const mine = r.cells.filter((c) => c.reader === reader)
    if (mine.length === 0) continue
    const sorted = [...mine].sort((x, y) => x.ratio - y.ratio)
    const worst = sorted[0] as ShapeCell
    const best = sorted[sorted.length - 1] as ShapeCell
    lines.push(
      "",
      `${names[reader]}: worst cell ${worst.set} at ${worst.ratio} of the limit (${worst.callsOverIdeal}× the ideal calls), best ${best.set} at ${best.ratio} (${best.callsOverIdeal}×); ${mine.filter((c) => !c.exact).length} of ${mine.length} not exact, ${mine.reduce((k, c) => k + c.rateLimited, 0)} rate-limit answers.`
    )
  }
  return lines.join("\n")
}

/** How the shape figures are measured (the text above both shape tables). */
const SHAPES_METHOD =
  "Log sets of the simulator's named density shapes (`dataset.chain(1).shapes`): sparse (about 1 log per 20 blocks), dense (every block 5–35 logs), bursty (quiet stretches, then runs of 1–12 consecutive blocks of 100–1,500 logs, about 1 log per 10 blocks overall, as a popular token), hot (90 % of the logs in one range of consecutive blocks of 50–150 inside a quiet one), window (blocks of 900–1,500 logs, 900–999 on free, next to the 1,000-row page); each sized to 2 s, 5 s, 30 s or 5 min of a plan's budget (rows ÷ (plan calls/s × 1,000 rows a getLogs call returns)) and read whole with that plan's demo key, against the bench simulator (a process of its own) answering after the latency shown with its per-key windows enforced. Readers, each a process of its own: `export`, the CLI (`node bin/explorer-etl.js export logs … --out x.jsonl`); `stream`, a script draining `Streams.logs(query)` (bench/stream.ts); `stream-spill`, the same with `spill: { directory }` (rows read ahead wait in temporary files instead of memory). Calls = every call that arrived at the simulator (refused ones too); ideal = ⌈rows ÷ 1,000⌉. Ratio to the limit = rows ÷ ((span of the arrivals + 1 ÷ plan rate) × plan rate × 1,000): a reader of full pages sent at exactly the plan's rate scores 1.0. Wall ratio: the same over the reader's own time from its start to its end (the first answer's wait and the last's included). Exact: the rows, in order, are the oracle's (sha256 of each row's block, log index, transaction hash and data). Measured by `bench/shapes.ts`."


const TOP_PLAN_ROWS_PER_SECOND = 300_000

const n = (x: number | undefined, digits = 0): string =>
  x === undefined || Number.isNaN(x) ? "–" : round(x, digits).toLocaleString("en-US", { maximumFractionDigits: digits })
const pct = (x: number): string => `${round(x * 100, 1)} %`
const mark = (ok: boolean): string => (ok ? "**met**" : "**not met**")

/** RESULTS.md of a run. */
export const render = (r: Results): string => {
  const out: Array<string> = []
  const line = (s = "") => out.push(s)

  const rateOk = r.rate.map((x) => x.utilisation >= 0.95 && x.rateLimitedByServer === 0 && x.rateLimitedSeenByClient === 0)
  const cases = r.cpu.cases ?? {}
  const memoryBy = (config: string) => r.memory.filter((m) => m.config === config && m.dataset === "logs")
  const configNames = [...new Set(r.memory.map((m) => m.config))]
  const tsxMemory = memoryBy("tsx")
  const cliMemory = memoryBy("CLI")
  const defaultsMemory = memoryBy("V8 defaults")
  const cappedMemory = memoryBy("heap ≤ 96 MB")
  /**
   * "Flat" is judged on the live heap (what a full collection leaves, sampled every 200 ms) of the
   * smallest and the largest export: at most +15 % or +5 MB, whichever is larger. Each export's median
   * sample where the run recorded it (the typical heap held), else its largest: the largest of more
   * samples is larger by chance alone (a 1M-row export is sampled some 250 times, a 10,000-row one
   * about 5), so a maximum grows with the export's length even when nothing accumulates. Peak RSS is
   * shown beside it, but it measures when V8 chooses to collect more than what the export holds.
   */
  const liveOf = (m: { readonly liveHeapMaxMb?: number | undefined; readonly liveHeapMedianMb?: number | undefined }) =>
    m.liveHeapMedianMb ?? m.liveHeapMaxMb ?? Number.NaN
  const liveRows = r.memory.filter((m) => m.dataset === "logs" && m.liveHeapMaxMb !== undefined)
  const liveFirst = liveRows[0]
  const liveLast = liveRows[liveRows.length - 1]
  const liveGrowth = liveFirst !== undefined && liveLast !== undefined ? liveOf(liveLast) - liveOf(liveFirst) : Number.NaN
  const flatOk = liveFirst !== undefined && liveLast !== undefined && liveGrowth <= Math.max(5, 0.15 * liveOf(liveFirst))
  const servingOk = r.serving.map((s) => s.rowsPerSecond >= 20_000)
  const bestCpu = (dataset: string) => Math.max(cases[`${dataset}.csv`]?.explorer ?? 0, cases[`${dataset}.jsonl`]?.explorer ?? 0)
  const stages = r.cpu.stages ?? {}
  const e2eTxs = r.endToEnd.filter((e) => e.dataset === "txs")

  line("# explorer-etl benchmark results")
  line()
  line(`One run of \`npm run bench\` on ${r.date.slice(0, 10)} (${r.date}), ${n(r.durationSeconds)} s in all${r.quick ? " — **quick mode: smaller sizes, not the reference run**" : ""}.`)
  line(`Machine: ${r.machine.cpus} × ${r.machine.cpuModel}, ${r.machine.memoryGb} GB, ${r.machine.platform}, Node ${r.machine.node}; load average at the end ${r.machine.loadAverage.join(" / ")}.`)
  line("Every measurement runs in a process of its own against simulators in processes of their own (bench/server.ts), so CPU and peak RSS are the export's own; baselines run in the same process, alternating with explorer-etl, so a noisy machine slows both. Raw figures: [results.json](results.json).")
  line()
  line("## Summary")
  line()
  line("| # | Figure | Measured | Goal | |")
  line("|---|---|---|---|---|")
  r.rate.forEach((x, i) => {
    if (x.goal) {
      line(`| 1 | Rate utilisation (simulator's windows, ${r.simulators.strict.rateLimitToleranceMs} ms tolerance), ${x.name} | ${n(x.callsPerSecond, 2)} of ${x.allowedPerSecond} calls/s = ${pct(x.utilisation)}; rate-limit answers: ${x.rateLimitedByServer} | ≥ 95 %, 0 | ${mark(rateOk[i] === true)} |`)
    }
  })
  for (const [name, c] of Object.entries(cases)) {
    if (c.vsCsv !== undefined) {
      // Issue 15: Parquet and decoded events against explorer-etl's own CSV path of the same bodies.
      const csv = name.startsWith("txs") ? "txs.csv" : "logs.csv"
      line(`| 2 | CPU path ${name}: explorer-etl ÷ its own ${csv} path, paired round by round | ${n(c.explorer)} rows/s, ${c.vsCsv} of ${csv} (to the baseline, no goal: ${c.ratio}) | ≥ 0.5 | ${mark(c.vsCsv >= 0.5)} |`)
      continue
    }
    const strict = c.strictRatio === undefined ? "" : ` (against JSON.parse + JSON.stringify, no goal: ${c.strictRatio})`
    line(`| 2 | CPU path ${name}: explorer-etl ÷ baseline (JSON.parse + csv-stringify) | ${n(c.explorer)} ÷ ${n(c.baseline)} rows/s = ${c.ratio}${strict} | ≥ 0.7 | ${mark(c.ratio >= 0.7)} |`)
  }
  line(`| 2 | Keeps up with the top plan (30 calls/s × 10,000 rows = 300,000 rows/s)? | best CPU path ${n(bestCpu("txs"))} rows/s (${pct(bestCpu("txs") / TOP_PLAN_ROWS_PER_SECOND)}); end to end ${n(Math.max(...e2eTxs.map((e) => e.rowsPerSecond ?? 0)))} rows/s | 300,000 | ${mark(bestCpu("txs") >= TOP_PLAN_ROWS_PER_SECOND)} |`)
  if (liveFirst !== undefined && liveLast !== undefined) {
    const median = liveFirst.liveHeapMedianMb !== undefined
    const most = median ? `; at most ${liveRows.map((m) => n(m.liveHeapMaxMb, 1)).join(" / ")} MB` : ""
    line(`| 3 | Memory flat: live heap (left by a full GC every 200 ms${median ? ", median sample" : ""}) of log exports of ${liveRows.map((m) => n(m.targetRows)).join(" / ")} rows | ${liveRows.map((m) => `${n(liveOf(m), 1)}`).join(" / ")} MB (${liveGrowth >= 0 ? "+" : ""}${n(liveGrowth, 1)} MB from the smallest to the largest${most}) | flat (≤ +15 % or +5 MB) | ${mark(flatOk)} |`)
  }
  for (const config of configNames) {
    const rows = memoryBy(config)
    if (rows.length === 0) continue
    const peaks = rows.map((m) => `${n(m.targetRows)} rows: ${n(m.peakRssMb)} MB`).join(", ")
    const txs = r.memory.find((m) => m.config === config && m.dataset === "txs")
    const txsText = txs === undefined ? "" : `; txs (10,000-row pages): ${n(txs.peakRssMb)} MB`
    const judged = config === "CLI" ? " — the goal's measure" : " (no goal: shown for comparison)"
    line(`| 3 | Peak RSS, log exports (${config}${config === "CLI" ? ": as bin/explorer-etl.js runs" : ""})${judged} | ${peaks}${txsText} | < 150 MB | ${config === "CLI" ? mark(rows.every((m) => m.peakRssMb < 150) && (txs === undefined || txs.peakRssMb < 150)) : "–"} |`)
    const parquet = r.memory.find((m) => m.config === config && m.dataset === "logs.parquet")
    if (parquet !== undefined) {
      line(`| 3 | Peak RSS, log export to Parquet (${config}: as bin/explorer-etl.js runs) | ${n(parquet.targetRows)} rows: ${n(parquet.peakRssMb)} MB | < 150 MB | ${mark(parquet.peakRssMb < 150)} |`)
    }
    const txsParquet = r.memory.find((m) => m.config === config && m.dataset === "txs.parquet")
    if (txsParquet !== undefined) {
      line(`| 3 | Peak RSS, transactions to Parquet, 10,000-row pages (${config}: as bin/explorer-etl.js runs) | ${n(txsParquet.rows)} rows: ${n(txsParquet.peakRssMb)} MB | < 150 MB | ${mark(txsParquet.peakRssMb < 150)} |`)
    }
  }
  for (const x of r.naive) {
    const peer = x.naive as { rowsExported?: number; missing?: number; duplicated?: number; errors?: ReadonlyArray<string> }
    const ours = x.explorerEtl
    const oursText = ours.completed
      ? `explorer-etl: ${n(ours.rowsExported)} rows, ${ours.oracle?.missing ?? "?"} missing, ${ours.oracle?.duplicated ?? "?"} duplicated`
      : `explorer-etl: refused (${ours.error?.tag ?? "error"}), no file`
    const oursOk = ours.completed ? ours.oracle?.missing === 0 && ours.oracle.duplicated === 0 && ours.oracle.unexpected === 0 : true
    line(`| 4 | ${x.query}, ${x.plan}: naive page++ vs explorer-etl (${n(x.oracleRows)} rows) | naive: ${n(peer.rowsExported)} rows, ${n(peer.missing)} missing, ${n(peer.duplicated)} duplicated; ${oursText} | no row lost or doubled, or no file | ${mark(oursOk)} |`)
  }
  r.serving.forEach((s, i) =>
    line(`| 5 | Simulator serving rate, ${s.dataset} (${n(s.rows)} rows) | ${n(s.rowsPerSecond)} rows/s | ≥ 20,000 rows/s | ${mark(servingOk[i] === true)} |`)
  )
  for (const x of r.distance?.rows ?? []) {
    if (x.cursors === 1) continue
    const goal = x.plan === "professional" ? 0.8 : 0.9
    const zero = x.zeroLatencyRowsPerSecond === undefined
      ? ""
      : ` (this machine at zero latency: ${n(x.zeroLatencyRowsPerSecond)} rows/s, ratio ${n(x.ratioToZeroLatency ?? 0, 3)}${x.rounds === undefined ? "" : `, the median round of ${x.rounds.map((v) => n(v, 3)).join(" / ")}`})`
    const exact = x.oracleRows === undefined || x.oracleRows === x.rows
    const { machineBound, ratio } = distanceJudged(x)
    const judged = machineBound ? `; judged against the zero-latency run: the plan's ${n(x.limitRowsPerSecond)} rows/s is beyond this machine's CPU` : ""
    line(`| 6 | Distance (latency ${r.distance?.latency} ms), ${x.dataset}, ${x.plan}, partitioned: rows/s ÷ (plan rate × rows a call) | ${n(x.rowsPerSecond)} ÷ ${n(x.limitRowsPerSecond)} = ${n(x.ratio, 3)}${zero}${judged}; rate-limit answers: ${x.rateLimited}; file ${exact ? "=" : "≠"} oracle | ≥ ${goal}, 0 | ${mark(ratio >= goal && x.rateLimited === 0 && exact)} |`)
  }
  const scaling = r.cluster?.scaling?.table
  const one = scaling?.find((x) => x.how === "1 runner")
  const two = scaling?.find((x) => x.how === "2 runners")
  if (one !== undefined && two !== undefined) {
    line(`| 7 | Cluster, CPU-bound export (${n(r.cluster?.scaling?.rows)} transactions, professional, limits off): 2 runner processes ÷ 1 | ${n(two.rowsPerSecond)} ÷ ${n(one.rowsPerSecond)} rows/s = ${n(two.rowsPerSecond / one.rowsPerSecond, 2)} (${r.cluster?.cores} cores, the simulator on them too) | reported | – |`)
  }
  const budget = r.cluster?.budget
  const shared = budget?.table.find((x) => x.how === "2 runners")
  if (budget !== undefined && shared !== undefined) {
    line(`| 7 | Cluster, two runners on one key (${shared.planRate} calls/s, latency ${budget.latency} ms): calls/s as arrived ÷ plan rate | ${n(shared.callsPerSecond, 2)} ÷ ${shared.planRate} = ${n(shared.utilisation, 3)}; rate-limit answers: ${shared.rateLimited} | ≥ 0.9, 0 | ${mark(shared.utilisation >= 0.9 && shared.rateLimited === 0)} |`)
  }
  for (const x of r.streamMemory?.runs ?? []) {
    const goal = r.streamMemory?.goalMb ?? 150
    if (x.config.startsWith("live heap")) continue
    const judged = x.config.startsWith("compiled, the CLI's V8 settings")
    line(`| 13 | Peak RSS, \`Streams.logs\` of ${n(r.streamMemory?.oracleRows)} rows drained in a script (${x.config})${judged ? " — the goal's measure" : " (no goal: shown for comparison)"} | ${n(x.peakRssMb)} MB; rows ${x.exact ? "=" : "≠"} oracle | < ${goal} MB | ${judged ? mark(x.peakRssMb < goal && x.exact) : "–"} |`)
  }
  for (const p of r.workers?.projections ?? []) {
    line(`| 14 | Decoding workers, ${p.case}: 2 workers ÷ 1 (export; the decoding stage alone) | ${p.twoToOne}; ${p.decodeTwoToOne} (2 cores allow ${n(p.twoCoreBound)} rows/s, 1 worker's bound ${n(p.perCores.find((c) => c.workers === 1)?.rowsPerSecond ?? 0)}) | ≥ 1.7 | ${mark(p.twoToOne >= 1.7)} |`)
  }
  for (const m of (r.workers?.memory ?? []).filter((m) => m.workers > 0)) {
    line(`| 14 | Peak RSS of the CLI with ${m.workers} worker${m.workers === 1 ? "" : "s"}, transactions in 10,000-row pages | ${n(m.peakRssMb)} MB (${n(r.workers?.memory.find((x) => x.workers === 0)?.peakRssMb ?? 0)} MB with none) | < ${150 + 40 * m.workers} MB | ${mark(m.peakRssMb < 150 + 40 * m.workers)} |`)
  }
  for (const x of (r.startup?.rows ?? []).filter((x) => !x.command.includes("("))) {
    line(`| 9 | Start-up, warm: \`${x.command}\` (median of ${x.runs}) | ${n(x.medianMs)} ms (at most ${n(x.maxMs)} ms) | ≤ ${n(r.startup?.goalMs)} ms | ${mark(x.medianMs <= (r.startup?.goalMs ?? 0))} |`)
  }
  line()

  line("## 1. Rate-budget utilisation")
  line()
  const tolerance = r.simulators.strict.rateLimitToleranceMs
  line(`The simulator enforces its per-key sliding windows as it does by default, with a tolerance of **${tolerance} ms** for arrival jitter (docs/behaviour.md, "Simulator choices"): a call is refused when it would be the (N+1)-th within ${n(1000 - tolerance)} ms of arrivals. Each run goes flat out for a fixed time (the throttled lane's twice as long as the plans': at 2 calls/s a single send late by 100 ms would weigh 0.6 % of 16 s); calls/s is (calls − 1) ÷ (last send − first send), as the client sent them. The simulator timestamps a call when its handler runs (that is when its windows count it); the bench pairs those times with the client's send times: how long a call took from send to handler, and the shortest span of any N + 1 consecutive calls as sent and as the simulator saw them (refused below ${n(1000 - tolerance)} ms).`)
  line()
  line("| Run | Allowed | Calls/s | Utilisation | Most calls in any 1 s (as sent) | Calls | Rate-limit answers (server / client) | Send → handler, median / max | Shortest N + 1 span, sent / seen | Simulator's longest event-loop delay | Rows/s |")
  line("|---|---|---|---|---|---|---|---|---|---|---|")
  for (const x of r.rate) {
    const a = x.arrivals
    const shift = a === undefined ? "– | –" : `${n(a.delayMedianMs, 1)} / ${n(a.delayMaxMs, 1)} ms | ${n(a.shortestSpanSentMs, 1)} / ${n(a.shortestSpanSeenMs, 1)} ms`
    line(`| ${x.name}${x.goal ? "" : " (no goal: shown for what bounds it)"} | ${x.allowedPerSecond}/s | ${n(x.callsPerSecond, 3)} | ${pct(x.utilisation)} | ${x.maxInAnySecond} | ${x.calls} | ${x.rateLimitedByServer} / ${x.rateLimitedSeenByClient} | ${shift} | ${n(x.serverLoopDelayMaxMs, 1)} ms | ${n(x.rowsPerSecond)} |`)
  }
  line()
  const refused = r.rate.filter((x) => x.goal && x.rateLimitedByServer > 0)
  if (refused.length > 0) {
    line(`**Refused in this run:** ${refused.map((x) => `${x.name}: ${x.rateLimitedByServer} rate-limit answer${x.rateLimitedByServer === 1 ? "" : "s"} although the client sent at most ${x.maxInAnySecond} calls in any second${x.arrivals === undefined ? "" : ` (shortest span of ${x.allowedPerSecond + 1} calls: ${n(x.arrivals.shortestSpanSentMs, 1)} ms as sent, ${n(x.arrivals.shortestSpanSeenMs, 1)} ms as seen)`}`).join("; ")}. Arrivals shifted by more than the margin's slack and the tolerance together; the client then pauses the key for a second, which is what the utilisation lost.`)
    line()
  }
  const pro = r.rate.find((x) => !x.goal)
  if (pro !== undefined) {
    line(`On the professional plan (30/s) a single export of 1,000-row log pages reaches ${pct(pro.utilisation)} of the budget: there the CPU path (parse, check, write: ${n(pro.rowsPerSecond)} rows/s, see §2), not the limiter, sets the pace.`)
    line()
  }
  line("The limiter spaces calls 1000 ÷ (rate × 0.96) ms apart (a 4 % margin, planned in fractions of a millisecond): 347.2 ms on free, 104.2 ms on standard, 520.8 ms on the lane of the throttled operations — 96 % of the budget at best; a start that fires late by a timer's usual 1–2 ms is made up by the next one (never more than 2 ms). Any N + 1 consecutive starts are then at least N × spacing − 3 ms apart, 1,038 ms or more (the send times above are taken a moment after the slot, so they may show a millisecond or two less): ~40 ms of slack, on top of the simulator's tolerance, for whatever shifts an arrival — the network, and on this machine the event loops of the client (between the slot and the socket) and of the simulator, which stall now and then while the host takes their CPU (the columns above show by how much). With no tolerance at all, two of the three runs of this bench before this one met a refusal: on free at a 3 % margin (31 ms of slack) in both, on the throttled lane at 4 % in one, with the simulator's event loop alone stalling up to 70 ms; a margin wide enough for such stalls would cost the 95 % goal (95 % leaves at most 52 ms of slack). The real service's tolerance is unknown (docs/behaviour.md); a refusal costs a second's pause, never a row. A block-cursor export has one request in flight at a time: against a real server with latency L, one export makes at most 1 ÷ (L + processing) calls/s, so to use a large budget run several exports (chains, data sets, address ranges) in one program — they share the key's limiter.")
  line()

  line("## 2. The CPU path")
  line()
  const cap = r.cpu.captured ?? {}
  line(`Bodies captured once from the simulator and replayed in-process (no network: an undici \`MockAgent\` behind the client's own \`NodeHttpClient\`, which reads each body as it reads a real answer): ${Object.entries(cap).map(([k, v]) => `${k}: ${v.pages} pages, ${n(v.rows)} rows, ${n(v.bytes / 1e6, 1)} MB`).join("; ")}. explorer-etl = \`Exports.toFile\` (client checks and limiter, classification, JSON.parse, every record checked against its schema and written in the file's encoding, block cursor, sha256, checkpoints, manifest) to a file. Baseline, as the goal defines it: JSON.parse + csv-stringify of the raw records to a file, the reference of the CSV and the JSONL ratios alike. For JSONL a stricter reference is shown beside it with no goal: JSON.parse + one JSON.stringify per raw record (no checks, no CSV quoting: about the least any JSONL writer can do). ${r.cpu.rounds ?? "?"} rounds, each running both sides back to back in alternating order: rows/s are the medians of the rounds, a ratio is the median of the rounds' own ratios (so that a slow spell of this shared machine, whose CPU time is partly stolen by its host, weighs on both sides of a ratio at once).`)
  line()
  line("| Case | explorer-etl rows/s | baseline rows/s (JSON.parse + csv-stringify) | ratio (goal ≥ 0.7) | JSON.parse + JSON.stringify rows/s (no goal) | ratio to it |")
  line("|---|---|---|---|---|---|")
  const textCases = Object.entries(cases).filter(([, c]) => c.vsCsv === undefined)
  const newCases = Object.entries(cases).filter(([, c]) => c.vsCsv !== undefined)
  for (const [name, c] of textCases) {
    line(`| ${name} | ${n(c.explorer)} | ${n(c.baseline)} | ${c.ratio} ${c.ratio >= 0.7 ? "✓" : "✗"} | ${n(c.strict)} | ${c.strictRatio ?? "–"} |`)
  }
  line()
  if (newCases.length > 0) {
    line("Parquet and decoded events through the same `Exports.toFile`, on the same bodies: `events` decodes the log bodies' Swap events with ox (`Sources.events`: each log's file record, as the logs export reads it, decoded into its row's file form). Goal: at least half the rows/s of explorer-etl's own CSV path of the same bodies (`logs.csv` for events), paired round by round.")
    line()
    line("| Case | explorer-etl rows/s | to explorer-etl's CSV path (goal ≥ 0.5) | to the baseline (no goal) |")
    line("|---|---|---|---|")
    for (const [name, c] of newCases) {
      const vsCsv = c.vsCsv as number
      line(`| ${name} | ${n(c.explorer)} | ${vsCsv} ${vsCsv >= 0.5 ? "✓" : "✗"} | ${c.ratio} |`)
    }
    line()
  }
  line("Stages on their own (rows/s, same bodies, best of three passes):")
  line()
  line("| Data set | JSON.parse | file records (parse + classify + check, what exports call) | client call (parse + classify + decode) | write CSV / JSONL from file records | encode CSV / JSONL from decoded records | csv-stringify of raw records | JSON.stringify per raw record |")
  line("|---|---|---|---|---|---|---|---|")
  for (const [name, st] of Object.entries(stages)) {
    line(`| ${name} | ${n(st.jsonParse)} | ${n(st.fileRecords)} | ${n(st.clientCall)} | ${n(st.writeCsv)} / ${n(st.writeJsonl)} | ${n(st.encodeCsv)} / ${n(st.encodeJsonl)} | ${n(st.csvStringify)} | ${n(st.jsonStringify)} |`)
  }
  line()
  if (r.cpu.date !== undefined) {
    line(`Measured on its own, ${r.cpu.date.slice(0, 16).replace("T", " ")} UTC at commit ${r.cpu.commit ?? "?"}, as \`npm run bench\` runs it, merged into results.json.`)
    line()
  }
  if (r.cpu.note !== undefined) {
    line(r.cpu.note)
    line()
  }
  const parseTxs = stages.txs?.jsonParse ?? 0
  line(`**Where the time goes.** An export never builds the decoded records: the client parses a list answer a slice (~48 KB) at a time, checks each field of each record on the wire (the very checks its schema makes: hex digits of every hash and topic, canonical numbers) and writes the file's encoding in place (logs: hex to decimal; the account lists: the server's own text), and turns each slice into the file's lines at once, which the sinks write as they are. Per row that leaves JSON.parse (a native floor every client pays), the checks (about as costly again on log rows, whose data and four topics are ~600 hex digits), writing the line, sha256 and the writes. A CSV row whose cells are all text (nearly every export's: numbers, hex, addresses, names) is written directly, byte for byte what csv-stringify writes (a property test holds the two to each other), the formula guard and RFC 4180 quoting included; any other row goes through csv-stringify (one sync \`stringify\` per page). Against a bare JSON.stringify, which checks nothing, the checks are the difference.`)
  line()
  line(`**300,000 rows/s?** No. On one core of this machine JSON.parse alone reads ${n(parseTxs)} txlist rows/s (${pct(parseTxs / TOP_PLAN_ROWS_PER_SECOND)} of 300,000), so neither explorer-etl nor either baseline can keep up with the top plan's 30 × 10,000-row pages; explorer-etl's best CPU path is ${n(bestCpu("txs"))} rows/s (${pct(bestCpu("txs") / TOP_PLAN_ROWS_PER_SECOND)}). It is bound by one core: JSON.parse, the checks, the writing. Reaching the top plan's rate would take several exports in parallel processes (chains, data sets, block ranges), each with a core of its own, sharing the key's budget.`)
  line()
  line("End to end against the simulator process (limits off, professional plan, client rate raised to 1,000 calls/s; the simulator uses the other core):")
  line()
  line("| Data set | Format | Rows | Seconds | Rows/s | Calls | Simulator CPU s |")
  line("|---|---|---|---|---|---|---|")
  for (const e of r.endToEnd) line(`| ${e.dataset} | ${e.format} | ${n(e.rows)} | ${n(e.seconds, 2)} | ${n(e.rowsPerSecond)} | ${e.calls} | ${n(e.simulatorCpuSeconds, 2)} |`)
  line()

  line("## 3. Memory")
  line()
  line("Peak RSS (VmHWM of the export's process, read when the export ends) and the RSS once everything is loaded, before the first row (read by the library's export only: the CLI prints nothing of it). Logs of the heavy contract (1,000-row pages) up to 1M rows (the largest also to Parquet, as the CLI runs: \`logs.parquet\`); transactions of the busy wallet (10,000-row pages, the largest answers; also to Parquet: \`txs.parquet\`).")
  line()
  line("| Process | Data set | Rows | RSS before the first row | Peak RSS | Heap before → live heap (median, most) | Rows/s |")
  line("|---|---|---|---|---|---|---|")
  for (const m of r.memory) {
    const heap = m.liveHeapMaxMb === undefined
      ? "–"
      : `${n(m.heapBeforeMb, 1)} → ${m.liveHeapMedianMb === undefined ? "" : `${n(m.liveHeapMedianMb, 1)} (median), `}${n(m.liveHeapMaxMb, 1)} MB`
    line(`| ${m.config} | ${m.dataset} (${n(m.pageRows)}-row pages) | ${n(m.rows)} | ${n(m.rssBeforeMb)} MB | ${n(m.peakRssMb)} MB | ${heap} | ${n(m.rowsPerSecond)} |`)
  }
  line()
  for (const config of [...new Set(r.memory.map((m) => m.config))]) {
    line(`- **${config}**: ${r.memory.find((m) => m.config === config)?.description ?? ""}`)
  }
  line()
  const before = (rows: ReadonlyArray<{ readonly rssBeforeMb?: number | undefined }>) => rows[0]?.rssBeforeMb
  const compiledMemory = memoryBy("compiled")
  const compiledLargest = compiledMemory[compiledMemory.length - 1]
  const capped = cappedMemory[cappedMemory.length - 1]
  const defaults = defaultsMemory[defaultsMemory.length - 1]
  const cliTxs = r.memory.find((m) => m.config === "CLI" && m.dataset === "txs")
  const cliOk = cliMemory.length > 0 && cliMemory.every((m) => m.peakRssMb < 150) && (cliTxs === undefined || cliTxs.peakRssMb < 150)
  line(`**Flat.** The data an export holds does not grow with its rows: the heap a full collection leaves stays at ${liveRows.map((m) => `${n(liveOf(m), 1)} MB`).join(", ")} for ${liveRows.map((m) => n(m.targetRows)).join(", ")} rows (${liveRows[0]?.liveHeapMedianMb === undefined ? "" : `the median of its samples; the largest sample: ${liveRows.map((m) => `${n(m.liveHeapMaxMb, 1)} MB`).join(", ")}, more samples catching rarer moments; `}the page being written and the one read ahead, as their lines, the answer being parsed, the file buffer), and the ${n(capped?.targetRows)}-row export runs to the end with V8's heap capped at 96 MB.`)
  line()
  line(`**Peak RSS ${cliOk ? "under" : "not under"} 150 MB** as the CLI runs: ${cliMemory.map((m) => `${n(m.peakRssMb)} MB for ${n(m.targetRows)} log rows`).join(", ")}${cliTxs === undefined ? "" : `, ${n(cliTxs.peakRssMb)} MB for ${n(cliTxs.rows)} transactions in 10,000-row pages`}.${cliOk ? "" : " The largest answers are what remains over: a 10,000-row txlist page is ~6.5 MB of JSON and ~5 MB of CSV lines (~10 MB as JSONL), and an export holds two of them (the one being written and the one read ahead) beside the answer being parsed."} What brings it down: the pages are held as text — the client parses a list answer about 48 KB at a time, from the bytes as they came (no string of the whole answer is made), and turns each slice into the file's lines at once, so a page's records die young instead of all living until the page is written (a 10,000-row txlist page: ~15 MB of records, ~5 MB of CSV lines), and an export reads one page ahead, no more. The modules — explorer-etl imports the Effect packages module by module (\`effect/Effect\`, \`@effect/platform/HttpClient\`, …) rather than through their indexes, which load every module of each package, so the library's export holds ~${n(before(compiledMemory))} MB before the first row (table below; the CLI loads its commands too, and the embedded simulator only when a command starts it). And V8's appetite: an export allocates fast and keeps little (each page is parsed, checked, written and dropped within milliseconds), and with its default settings V8 lets that garbage pile up — the same compiled export with V8's defaults peaks at ${n(defaults?.peakRssMb)} MB for ${n(defaults?.targetRows)} rows at ${n(defaults?.rowsPerSecond)} rows/s. The CLI's settings (bin/v8-settings.js) keep the young generation at its starting size and let the old one grow by 25 % over what survived the last full collection: the same compiled export with them, ${n(compiledLargest?.peakRssMb)} MB at ${n(compiledLargest?.rowsPerSecond)} rows/s. More collections cost some throughput on the CPU path, which rarely sets the pace behind a rate limit; \`EXPLORER_ETL_V8_DEFAULTS=1\` keeps V8's defaults. Programs of your own (tsx scripts, the library) run with whatever settings you give node: \`node --semi-space-growth-factor=1 --heap-growing-percent=25 …\` does the same; through tsx a process starts at ~${n(before(tsxMemory))} MB (tsx's loader thread, source maps, modules compiled on the fly).`)
  line()
  if (r.memoryNote !== undefined) {
    line(r.memoryNote)
    line()
  }
  line("What the modules alone hold, before any export (compiled, plain node):")
  line()
  line("| Loaded | RSS | V8 heap used |")
  line("|---|---|---|")
  for (const m of r.modules) line(`| ${m.step} | ${n(m.rssMb)} MB | ${n(m.heapMb)} MB |`)
  line()

  line("## 4. Against a naive peer")
  line()
  line("The naive peer pages the way most clients do: page = 1, 2, … with offset 1,000 and plain fetch, a polite pause to stay under the rate, stopping at an empty or short page or at the first error. Same query, same plan, same simulator (limits enforced). Rows are compared with the oracle (every record the query matches).")
  line()
  line("| Query | Plan | Oracle rows | Naive: rows, missing, duplicated, calls, errors | explorer-etl |")
  line("|---|---|---|---|---|")
  for (const x of r.naive) {
    const p = x.naive as { rowsExported?: number; missing?: number; duplicated?: number; calls?: number; errors?: ReadonlyArray<string> }
    const ours = x.explorerEtl
    const oursText = ours.completed
      ? `${n(ours.rowsExported)} rows, ${ours.oracle?.missing ?? "?"} missing, ${ours.oracle?.duplicated ?? "?"} duplicated, ${ours.calls} calls`
      : `**refused**: ${ours.error?.tag ?? "error"} (${(ours.error?.message ?? "").split(": paging")[0]?.replace(/\|/g, "/")}) — no file published, ${ours.calls} calls`
    line(`| ${x.query} (blocks ${x.blocks.from}..${x.blocks.to}, block ${x.blocks.denseBlock} holds ${n(x.blocks.denseRows)}) | ${x.plan} | ${n(x.oracleRows)} | ${n(p.rowsExported)}, ${n(p.missing)}, ${n(p.duplicated)}, ${n(p.calls)}, ${(p.errors ?? []).join("; ").replace(/\|/g, "/") || "none"} | ${oursText} |`)
  }
  line()
  line("On the free plan the result window is 1,000 rows (page × offset ≤ 1,000): the naive peer gets one page and then the window error, a file missing almost everything. explorer-etl moves a block cursor instead of a page number, so the window never stops it — except on a block denser than the window, which no free-plan request can read whole: it then stops with DenseBlockError naming the block rather than write a silently truncated file. On a paid plan (window 10,000) the naive peer stops after 10 pages; explorer-etl exports every row exactly once.")
  line()

  line("## 5. Simulator serving rate")
  line()
  line("| Query | Rows | Requests | Seconds (request + body) | Rows/s (goal ≥ 20,000) | Simulator CPU s | Rows per simulator CPU second |")
  line("|---|---|---|---|---|---|---|")
  for (const s of r.serving) line(`| ${s.dataset} | ${n(s.rows)} | ${s.requests} | ${n(s.seconds, 2)} | ${n(s.rowsPerSecond)} ${s.rowsPerSecond >= 20_000 ? "✓" : "✗"} | ${n(s.serverCpuSeconds, 2)} | ${n(s.rowsPerServerCpuSecond)} |`)
  line()
  if (r.distance !== undefined) {
    const d = r.distance
    line("## 6. Distance: one export against a server with latency")
    line()
    line(`The simulator answers after \`latency=${d.latency}\` ms (its per-key windows enforced, counting arrivals). Throughput is rows written ÷ the span of the calls' arrivals at the simulator; the physical limit is plan rate × rows one call can return (getLogs 1,000; txlist 1,000 on free, 10,000 on paid plans). Each data set and plan runs twice: with one block cursor (\`concurrency: 1\`, about 20 calls) and partitioned (the default: partitions sized by the measured latency; about 30 s of the plan's budget where a call returns 1,000 rows, 60 calls of 10,000-row transaction pages). The goal for the partitioned rows: ≥ 0.9 on free and standard, ≥ 0.8 on professional, 0 rate-limit answers. "Oracle" says whether the file holds exactly the simulator's rows for the query. Where the plan allows more than 20,000 rows/s, this machine's CPU may bind first: the same export also runs against the simulator with no latency, and "zero latency" gives its rows/s and the ratio of the distant export to it (a baseline measured in the same run: three rounds of the two exports back to back in alternating order, the row being the round of the median ratio, since one round alone is a draw on this shared machine; "rounds" lists each round's ratio); where that run is itself below the goal's share of the plan's limit (this machine's CPU binds, not the plan), the summary judges the distant export against it: what the distance costs. "Event loop" is the export process's event-loop utilisation (near 1: its CPU bound the export). Measured by \`bench/distance.ts\` (the simulator in a process of its own; also runnable alone, \`--only\` for some rows).`)
    line()
    line("| Data set | Plan | Cursors | Rows | Oracle | Calls | Calls/s (plan rate) | Rows/s | Limit rows/s | Ratio | Zero latency: rows/s (ratio) | Rounds | Event loop | Rate-limit answers |")
    line("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (const x of d.rows) {
      const oracle = x.oracleRows === undefined ? "–" : x.oracleRows === x.rows ? "✓" : `✗ ${n(x.oracleRows)}`
      const goal = x.cursors === 1 ? "" : distanceJudged(x).met ? " ✓" : " ✗"
      line(`| ${x.dataset} | ${x.plan} | ${x.cursors} | ${n(x.rows)} | ${oracle} | ${x.calls} | ${n(x.callsPerSecond, 2)} (${x.planRate}) | ${n(x.rowsPerSecond)} | ${n(x.limitRowsPerSecond)} | ${n(x.ratio, 3)}${goal} | ${x.zeroLatencyRowsPerSecond === undefined ? "–" : `${n(x.zeroLatencyRowsPerSecond)} (${n(x.ratioToZeroLatency ?? 0, 3)})`} | ${x.rounds === undefined ? "–" : x.rounds.map((v) => n(v, 3)).join(", ")} | ${x.eventLoop === undefined ? "–" : n(x.eventLoop, 2)} | ${x.rateLimited} |`)
    }
    line()
    line("One request in flight makes about 1 ÷ latency calls/s whatever the plan: the one-cursor ratio falls as the plan's rate rises. Partitions keep rate × latency × 1.5 requests in flight; what is left between them and the limit is the first call (alone, one latency), the last partitions' tails, the rows of a full page's last block read again, a short last page per cut, and on paid plans' 10,000-row transaction pages this machine's CPU (the client parses about 60,000 rows/s a core; docs/behaviour.md, \"Requests in flight\").")
    line()
    if (d.note !== undefined) {
      line(d.note)
      line()
    }
  }
  if (r.cluster !== undefined) {
    const c = r.cluster
    line("## 7. Runners of a cluster")
    line()
    line(`\`explorer-etl runner\` processes sharing a real PostgreSQL (a throwaway server started by the bench: fsync off), runs submitted with \`explorer-etl run --cluster\`, the pipeline \`bench/pipelines/block-parts.ts\` (one address's rows over 8 block ranges of about equal rows, a file each: 8 independent exports, 4 at once). Measured by \`bench/cluster.ts\` on ${c.cores} cores${c.quick ? " (quick)" : ""}, ${c.date.slice(0, 16).replace("T", " ")} UTC${c.date.slice(0, 13) !== r.date.slice(0, 13) ? " (on its own: \`npx tsx bench/cluster.ts\`, merged into results.json)" : ""}.`)
    line()
    if (c.scaling !== undefined) {
      line(`**Scaling, CPU-bound.** The busy wallet's ${n(c.scaling.rows)} transactions (10,000 rows a call) on professional (30 calls/s: 300,000 rows/s, beyond this machine), the simulator's limits off and no latency. Rows/s = rows ÷ the time from starting the command to its result (the runners already running). CPU seconds: each process that ran exports; the simulator's own beside them, on the same cores.`)
      line()
      line("| How | Rows | Seconds | Rows/s | Ratio to 1 runner | CPU s of the exporting processes | Simulator CPU s |")
      line("|---|---|---|---|---|---|---|")
      const base = c.scaling.table.find((x) => x.how === "1 runner")?.rowsPerSecond
      for (const x of c.scaling.table) {
        line(`| ${x.how} | ${n(x.rows)} | ${n(x.seconds, 2)} | ${n(x.rowsPerSecond)} | ${base === undefined ? "–" : n(x.rowsPerSecond / base, 2)} | ${x.cpuSeconds.map((s) => n(s, 1)).join(" + ")} | ${n(x.simulatorCpuSeconds, 1)} |`)
      }
      line()
    }
    if (c.budget !== undefined) {
      const b = c.budget
      line(`**One key, shared by runners.** The heavy contract's ${n(b.rows)} logs (1,000 a call) on standard (10 calls/s: on professional, 30,000 logs/s, two runners, the simulator and PostgreSQL saturate 2 cores before the limiter binds), the simulator \`latency=${b.latency}\` ms away enforcing the plan's per-key windows: the same run by one process without a cluster (its own limiter), by one runner, then by two, whose calls reserve their send times from the key's row in PostgreSQL (\`KeyBudget\`). Utilisation = calls as they arrived at the simulator ÷ (plan rate × span from the first arrival to the last). The goal, for two runners: ≥ 0.9 of the plan, no rate-limit answer.`)
      line()
      line("| How | Rows | Calls | Span s | Calls/s (plan rate) | Utilisation | Rows/s ÷ limit | Rate-limit answers |")
      line("|---|---|---|---|---|---|---|---|")
      for (const x of b.table) {
        const goal = x.how === "2 runners" ? (x.utilisation >= 0.9 && x.rateLimited === 0 ? " ✓" : " ✗") : ""
        line(`| ${x.how} | ${n(x.rows)} | ${x.calls} | ${n(x.spanSeconds, 2)} | ${n(x.callsPerSecond, 2)} (${x.planRate}) | ${n(x.utilisation, 3)}${goal} | ${n(x.rowsPerSecond)} ÷ ${n(x.limitRowsPerSecond)} = ${n(x.rowsPerSecond / x.limitRowsPerSecond, 3)} | ${x.rateLimited} |`)
      }
      line()
    }
  }
  if (r.shapes !== undefined) {
    line("## 8. Shapes: the densities and sizes users meet")
    line()
    line(SHAPES_METHOD)
    line()
    line(shapesTable(r.shapes))
    line()
  }
  if (r.shapesBaseline !== undefined) {
    line("## Shapes (baseline before the engine rewrite)")
    line()
    line(`The paging engine as it was before its rewrite (partitions inside the file sink, one cursor in a Stream), on a subset of the matrix: free, standard and professional × bursty, dense and sparse at 2 s and 5 s. Kept from run to run (results.json \`shapesBaseline\`): a change that makes a cell worse than this says so. ${SHAPES_METHOD}`)
    line()
    line(shapesTable(r.shapesBaseline))
    line()
  }
  if (r.startup !== undefined) {
    const s = r.startup
    line("## 9. Start-up of the command line")
    line()
    line(`Wall time of each command as a user runs it (\`node bin/explorer-etl.js …\`, stdout a pipe), warm: one run first, not counted, then ${s.rows[0]?.runs ?? 0} runs, median and slowest. A plain \`--help\` is answered from the help texts the build prerendered (dist/cli/help-texts.json) without loading Effect or a command; \`--log-level none\` on the line sends the same help through the whole command line, which loads every command. Measured by \`bench/startup.ts\`, ${s.date.slice(0, 16).replace("T", " ")} UTC, load average ${s.loadAverage} on this machine's cores${s.date.slice(0, 13) !== r.date.slice(0, 13) ? " (on its own: `npx tsx bench/startup.ts --merge`, merged into results.json)" : ""}.`)
    line()
    line("| Command | Median | Slowest |")
    line("|---|---|---|")
    for (const x of s.rows) line(`| \`${x.command.replace(/ \(.*$/, "")}\`${x.command.includes("(") ? ` ${x.command.slice(x.command.indexOf("("))}` : ""} | ${n(x.medianMs)} ms | ${n(x.maxMs)} ms |`)
    line()
  }
  // Section 10 is measured by bench/machineBudget.ts on its own and kept as it wrote it.
  const machineBudget = new URL("./machine-budget.md", import.meta.url)
  if (existsSync(machineBudget)) {
    line(readFileSync(machineBudget, "utf8").trimEnd())
    line()
  }
  if (r.engine !== undefined) {
    const e = r.engine
    line("## 11. The paging engine in virtual time")
    line()
    line(`The engine's decisions alone, apart from this machine's CPU and load: \`bench/engine.ts\` reads a model of getLogs (1,000 rows a call; a window of 10,000 rows on paid plans, 1,000 on free) behind a limiter that lets the plan's calls/s through (the lowest priority level first, as the client's) and answers 300–600 ms after each slot, under Effect's TestClock. Two sources of rows: \`simulator\`, the simulator's own density-shape sets (\`src/simulator/shapes.ts\`, the rows section 8 reads over HTTP: bursts of 1–12 blocks of 100–1,500 logs, a hot range of 50–150 logs a block, blocks of 900–1,500 logs 1–40 blocks apart as \`nearWindow\`), and \`model\`, the bench's own generators (bursts of 5–60 blocks, a hot range of 30–50 logs a block, consecutive blocks of 900–1,500 logs). Readers: \`export\` (spools of any size), \`stream\` (\`Streams.*\`: rows read ahead held in memory, the default bound), and \`one-page\`, an export as if every query had a window of one page (partitions only) — baselines measured in the same run. Ratio = rows ÷ ((last call's slot − first call's slot + 1 ÷ rate) × rate × 1,000), as section 6 counts arrivals: 1.0 is full pages sent at exactly the plan's rate. One cursor: the calls a single block cursor makes on the same rows (on the free plan's one-page window a page that ends inside a block reads that block's rows again: no reader needs fewer). Waste: calls that returned no row / fewer than a page / were sent and given up, and the limiter's idle time inside the span. Goal: 0.9 on free and standard, 0.85 on professional, 0.8 where a professional export is under 2 s of budget.${e.rows.some((x) => x.seeds !== undefined) ? ` A cell with a bracket is the mean of ${Math.max(...e.rows.map((x) => x.seeds ?? 1))} draws of the rows and the latencies (seeds), the lowest ratio of them in brackets; the others are one draw, which swings a cell by up to ±0.2.` : ""} Commit ${e.commit}, ${e.date.slice(0, 16).replace("T", " ")} UTC; every row checked against the data.`)
    line()
    const goal = (x: EngineRow) => x.plan === "professional" ? (x.budgetSeconds <= 2 ? 0.8 : 0.85) : 0.9
    line("| data | shape | plan | budget | rows | export: calls ÷ ideal (one cursor) | export: ratio | waste: empty / short / given up, idle | stream: ratio | one-page: calls, ratio | goal |")
    line("|---|---|---|---|---|---|---|---|---|---|---|")
    const key = (x: EngineRow) => `${x.data ?? "model"}|${x.shape}|${x.plan}|${x.budgetSeconds}`
    const of = (reader: EngineRow["reader"], k: string) => e.rows.find((x) => x.reader === reader && key(x) === k)
    const ratio = (x: EngineRow | undefined) =>
      x === undefined ? "–" : `**${x.ratio}**${x.worstRatio === undefined ? "" : ` (≥ ${x.worstRatio})`}${x.exact ? "" : " (not exact)"}`
    for (const k of [...new Set(e.rows.map(key))]) {
      const any = e.rows.find((x) => key(x) === k) as EngineRow
      const ex = of("export", k)
      const one = of("one-page", k)
      line(`| ${any.data ?? "model"} | ${any.shape} | ${any.plan} | ${any.budgetSeconds} s | ${any.rows.toLocaleString("en-US")} | ${ex === undefined ? "–" : `${ex.calls} ÷ ${ex.idealCalls}${ex.cursorCalls === undefined ? "" : ` (${ex.cursorCalls})`}`} | ${ratio(ex)} | ${ex?.empty === undefined ? "–" : `${ex.empty} / ${ex.short} / ${ex.givenUp}, ${ex.idleMs} ms`} | ${ratio(of("stream", k))} | ${one === undefined ? "–" : `${one.calls}, ${ratio(one)}`} | ${(ex ?? any).ratio >= goal(ex ?? any) ? "met" : goal(any)} |`)
    }
    line()
    for (const data of [...new Set(e.rows.map((x) => x.data ?? "model"))]) {
      for (const reader of ["export", "stream", "one-page"] as const) {
        const mine = e.rows.filter((x) => x.reader === reader && (x.data ?? "model") === data)
        if (mine.length === 0) continue
        const worst = mine.reduce((a, b) => (b.ratio < a.ratio ? b : a))
        const best = mine.reduce((a, b) => (b.ratio > a.ratio ? b : a))
        const mean = Math.round((mine.reduce((a, x) => a + x.ratio, 0) / mine.length) * 1000) / 1000
        line(`- ${data} rows, ${reader}: ${mine.length} cells, mean ${mean}; worst ${worst.shape} ${worst.plan} ${worst.budgetSeconds} s at ${worst.ratio}, best ${best.shape} ${best.plan} ${best.budgetSeconds} s at ${best.ratio}; ${mine.filter((x) => x.ratio >= goal(x)).length} at goal; ${mine.filter((x) => !x.exact).length} not exact.`)
      }
    }
    line()
    if (e.note !== undefined) {
      line(e.note)
      line()
    }
  }
  if (r.compression !== undefined) {
    const c = r.compression
    const plain = c.rows.find((x) => x.encoding === "identity")
    line("## 12. Compressed answers")
    line()
    line(`One 10,000-row \`txlist\` page (a professional key), asked plain, with gzip and with br: the bytes on the wire (a raw GET), and the median time of one client call over ${c.pages} calls after a first one — the simulator compresses, the bytes travel, the client decodes them as they come and reads the records — on loopback and through a local proxy that sends the answer no faster than ${c.bandwidthsMbit.join(" or ")} Mbit/s. On loopback compressing only costs time (moving the bytes is free there, compressing them is not); the saving is on a real link. Measured by \`bench/compression.ts\`, ${c.date.slice(0, 16).replace("T", " ")} UTC.`)
    line()
    line(`| Encoding | Bytes on the wire | Of plain | Loopback | ${c.bandwidthsMbit.map((b) => `${b} Mbit/s`).join(" | ")} |`)
    line(`|---|---|---|---|${c.bandwidthsMbit.map(() => "---").join("|")}|`)
    for (const x of c.rows) {
      const saved = (b: number) => {
        const before = plain?.pacedMs[String(b)]
        const ms = x.pacedMs[String(b)] ?? 0
        return before === undefined || x.encoding === "identity" ? `${n(ms)} ms` : `${n(ms)} ms (${n(before - ms)} ms saved)`
      }
      line(`| ${x.encoding} | ${n(x.wireBytes)} | ${Math.round((x.wireBytes / x.plainBytes) * 100)} % | ${n(x.loopbackMs)} ms | ${c.bandwidthsMbit.map(saved).join(" | ")} |`)
    }
    line()
  }
  if (r.streamMemory !== undefined) {
    const m = r.streamMemory
    line("## 13. Memory of a drained Stream")
    line()
    line(`\`Streams.logs(…)\` of the heavy contract's ${n(m.oracleRows)} logs drained chunk by chunk in a script of its own (bench/stream.ts: compiled and run with the CLI's V8 settings, as the CLI runs; with V8's defaults; and through tsx, as notebook-style scripts run, a process that starts at ~180 MB before any row), against the simulator in another process (limits off), on the ${m.plan} plan at its own rate, as section 3 runs the CLI's export of the same rows; the runs marked "300–600 ms away" against the same rows served 300–600 ms after each call (\`latency=300+300\`, as sections 6 and 8). Peak RSS is the process's VmHWM. Measured by \`bench/streamMemory.ts\`, ${m.date.slice(0, 16).replace("T", " ")} UTC${m.date.slice(0, 13) !== r.date.slice(0, 13) ? " (on its own: \`npx tsx bench/streamMemory.ts --merge\`, merged into results.json)" : ""}.`)
    line()
    line("| Run | Rows | = oracle | Seconds | Event loop busy | Peak RSS | Live heap: before, median, most |")
    line("|---|---|---|---|---|---|---|")
    for (const x of m.runs) {
      const live = x.liveHeapMaxMb === undefined ? "–" : `${n(x.heapBeforeMb, 1)}, ${n(x.liveHeapMedianMb, 1)}, ${n(x.liveHeapMaxMb, 1)} MB`
      line(`| ${x.config}: ${x.description} | ${n(x.rows)} | ${x.exact ? "yes" : "**no**"} | ${n(x.seconds, 1)} | ${n(x.eventLoop * 100)} % | ${n(x.peakRssMb)} MB | ${live} |`)
    }
    if (m.note !== undefined) {
      line()
      line(m.note)
    }
    line()
  }
  if (r.workers !== undefined) workersSection(r.workers, line)
  line("## Reproduce")
  line()
  line(`\`npm run bench\` (this run: ${Math.round(r.durationSeconds / 60)} minutes on 2 cores; \`npm run bench -- --quick\` for a short trial run). Section 7 alone: \`npx tsx bench/cluster.ts\`; section 6 alone: \`npx tsx bench/distance.ts\`; section 8 alone: \`npx tsx bench/shapes.ts\` (one cell: \`npx tsx bench/shapes.ts --only bursty-standard-5s --readers export\`); section 9 alone: \`npx tsx bench/startup.ts --merge\`; section 11 (virtual time, not part of \`npm run bench\`), cell by cell: \`npx tsx bench/engine.ts --data simulator --readers export,stream,one-page --sizes 2,5 --seeds 2 --merge\` (\`--data model\` for the model's rows, \`--sizes 30,300\` for the longer ones); section 12 alone: \`npx tsx bench/compression.ts --merge\`; section 13 alone: \`npx tsx bench/streamMemory.ts --merge\`; section 14 alone: \`npx tsx bench/workers.ts --merge\`; the CLI's peak RSS alone, with the engine's partitions and with one cursor: \`npx tsx bench/cliMemory.ts\`. The fault-injection suite that proves the exports byte-exact under every fault kind is \`test/faults/\` (part of \`npm test\`).`)
  line()
  return out.join("\n")
}

/** Section 14: decoding workers (bench/workers.ts). */
const workersSection = (w: WorkersResults, line: (s?: string) => void) => {
  const n = (x: number) => x.toLocaleString("en-US")
  line("## 14. Decoding workers")
  line()
  line(`Pages parsed, checked and written as the file's lines in the main thread alone (\`workers: 0\`, as before) or by 1 and 2 worker threads (the pages' bytes go to a worker, their lines come back; the main thread keeps the network, the limiter, the cursor and the writes), on records captured once from the bench simulator and replayed in-process (the section 2 method, the simulator idle: every record of the busy wallet's transactions, ${n(w.captured.txs.rows)}, and of the heavy contract's logs, ${n(w.captured.logs.rows)}, kept as their JSON text; each answer of a range and page put together from them once, then served from memory; no network, no simulator on the cores). Two measures: **export**, \`Exports.toFile\` as a user runs it (standard plan, its limiter out of the way, partitions as the engine decides); **decode**, the client's file lines of every page alone (\`fileRecordsMapped\` with and without \`LineWorkers\`, 4 pages at once: no engine, no writes). ${w.rounds} rounds in alternating order, rows/s the median of the rounds, 2 ÷ 1 the median of the rounds' own ratios. CPU from /proc: the main thread's and the whole process's (every thread: workers, V8's GC helpers, libuv) per row, the cores the export used (its CPU ÷ its wall time) and the cores the machine's other processes took meanwhile (this VM's 2 cores are shared with other work). Commit ${w.commit}, ${w.date.slice(0, 16).replace("T", " ")} UTC, ${w.machine.cpus} cores, load average ${w.machine.loadAverage.join(" / ")} at the end. Measured by \`bench/workers.ts\` (alone: \`npx tsx bench/workers.ts --merge\`).`)
  line()
  line("| What | Case | workers | rows/s (median) | rounds | main thread µs/row | process µs/row | cores used | cores others used meanwhile |")
  line("|---|---|---|---|---|---|---|---|---|")
  for (const x of w.scaling) {
    line(`| ${x.mode} | ${x.case} | ${x.workers} | ${n(x.rowsPerSecond)} | ${x.samples.map(n).join(", ")} | ${x.mainMicrosPerRow} | ${x.cpuMicrosPerRow} | ${x.cores} | ${x.othersCores} |`)
  }
  line()
  line("What bounds it, from the export's CPU per row with workers: the main thread's share is what no worker takes off it (its bound: 1 ÷ its µs/row); the rest is the workers' and their collections'. Here the main thread and two workers share 2 cores: 2 ÷ the process's µs/row is the most they allow, so 2 workers ÷ 1 can reach at most that over 1 ÷ the workers' µs/row (\"bound here\"). Projected with each worker and the main thread on a core of its own: rows/s = min(main bound, k ÷ the workers' µs/row); a plan keeps up with the workers shown (its rows/s = calls/s × rows a call: txlist 10,000 on paid plans, getLogs 1,000; –: the main thread binds first).")
  line()
  line("| Case | export 2 ÷ 1 (goal ≥ 1.7) | decode 2 ÷ 1 | bound of 2 ÷ 1 here | 2 cores allow | main thread allows | workers µs/row | projected rows/s with k workers (k + 1 cores) | keeps up (workers) |")
  line("|---|---|---|---|---|---|---|---|---|")
  for (const p of w.projections) {
    const one = p.perCores.find((c) => c.workers === 1)?.rowsPerSecond ?? 0
    const bound = one === 0 ? 0 : Math.min(p.twoCoreBound, p.perCores.find((c) => c.workers === 2)?.rowsPerSecond ?? 0) / one
    line(`| ${p.case} | ${p.twoToOne}${p.twoToOne >= 1.7 ? " ✓" : " ✗"} | ${p.decodeTwoToOne} | ${bound.toFixed(2)} | ${n(p.twoCoreBound)} | ${n(p.mainBound)} | ${p.workerMicrosPerRow} | ${p.perCores.map((c) => `${c.workers}: ${n(c.rowsPerSecond)}`).join(", ")} | ${p.plans.map((x) => `${x.plan} ${n(x.rowsPerSecond)}: ${x.workers ?? "–"}`).join("; ")} |`)
  }
  line()
  if (w.memory.length > 0) {
    const base = w.memory.find((m) => m.workers === 0)
    const apart = w.memoryMeasured === undefined ? "" : ` Measured apart from the rest of the section (\`npx tsx bench/workers.ts --memory-only --merge\`): commit ${w.memoryMeasured.commit}, ${w.memoryMeasured.date.slice(0, 16).replace("T", " ")} UTC.`
    line(`Peak RSS (VmHWM) of the CLI as a user runs it (\`node bin/explorer-etl.js export txs … --workers N\`, dist/, its V8 settings), the busy wallet's transactions in 10,000-row pages against the bench simulator (limits off, plan proplus). Goal: < 150 MB + 40 MB per worker.${apart}`)
    line()
    line("| workers | rows | peak RSS (median) | runs | goal | over the main thread alone | rows/s |")
    line("|---|---|---|---|---|---|---|")
    for (const m of w.memory) {
      const goal = 150 + 40 * m.workers
      line(`| ${m.workers} | ${n(m.rows)} | ${m.peakRssMb} MB | ${(m.runsMb ?? []).join(", ")} MB | < ${goal} MB ${m.peakRssMb < goal ? "✓" : "✗"} | ${base === undefined || m.workers === 0 ? "–" : `+${m.peakRssMb - base.peakRssMb} MB (${Math.round((m.peakRssMb - base.peakRssMb) / m.workers)} MB a worker)`} | ${n(m.rowsPerSecond)} |`)
    }
    line()
  }
  if (w.note !== undefined) {
    line(w.note)
    line()
  }
}
