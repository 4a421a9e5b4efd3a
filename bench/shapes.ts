/**
 * Shapes: how much of the plan's budget a logs export, and a drained `Streams.logs`, use on the densities
 * users meet, at the sizes they export.
 *
 * The bench simulator (bench/server.ts, a process of its own) with `latency=<fixed>+<jitter>` (default
 * 300+300: 300–600 ms) and its per-key windows enforced serves the simulator's density-shape log sets
 * (`dataset.chain(1).shapes`: sparse, dense, bursty, hot, window, each at 2 s, 5 s, 30 s and 5 min of the
 * free, standard and professional plans' budgets, budget = rows ÷ (plan calls/s × 1,000 rows a getLogs
 * call returns)). Each cell reads one set whole with the plan the set is sized for, by one reader:
 * - `export`: the CLI as a user runs it, `node bin/explorer-etl.js export logs --address … --from-block …
 *   --to-block … --out x.jsonl` (dist/, built first), in a process of its own;
 * - `stream`: `Streams.logs(query)` drained by a script (bench/stream.ts) in a process of its own;
 * - `stream-spill`: the same with `spill: { directory }` (rows read ahead wait in temporary files, not in
 *   memory up to `heldRows`; only when named in `--readers`).
 * So the figures are the engine's that is in the tree, through its public surface only.
 *
 * Per cell: calls made (every call that arrived at the simulator, refused ones too) ÷ ideal calls
 * (⌈rows ÷ 1,000⌉); the ratio to the physical limit: rows ÷ (budget used × plan rate × 1,000), where the
 * budget used is the span of the calls' arrivals (first to last) plus one call's share (1 ÷ rate), so a
 * perfect reader — full pages, sent at exactly the plan's rate — scores 1.0; the wall ratio, the same with
 * the reader's own time from start to end (the first answer's wait and the last's included); rate-limit
 * answers; exact: the rows, in order, are the oracle's (the sha256 of their fingerprints, bench/lib.ts).
 *
 * Default cells: every shape × plan at 2 s, 5 s and 30 s, both readers, and the 5 min export of one shape
 * per plan (free sparse, standard bursty, professional dense); `--all` adds every other 5 min cell;
 * `--quick` keeps 2 s and 5 s. Filters: `--only bursty-standard-5s,…` (set names), `--shapes`, `--plans`,
 * `--sizes`, `--readers export,stream` (comma lists). `--list` prints the sets; `--no-build` skips
 * `npm run build`; `--json FILE` writes the cells; `--emit`: the result line for `npm run bench`.
 *
 * Usage: npx tsx bench/shapes.ts [--only bursty-standard-5s] [--readers export] [--latency 300+300] [--all|--quick]
 */
import { execFileSync } from "node:child_process"
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import * as path from "node:path"
import { createInterface } from "node:readline"
import { createHash } from "node:crypto"
import { shapesTable } from "./report.js"
import { args, emit, logFingerprint, repoRoot, round, runChild, runCli, type ShapeSet, startServer } from "./lib.js"

const a = args()
const list = (name: string): ReadonlyArray<string> | undefined => a[name]?.split(",").map((x) => x.trim()).filter((x) => x !== "")
const latencySpec = a.latency ?? "300+300"
const [fixedMs, jitterMs] = latencySpec.split("+").map(Number) as [number, number | undefined]
const ROWS_PER_CALL = 1_000
const rates = { free: 3, standard: 10, professional: 30 } as const
/** The 5 min cell of each plan in the default run (every other one with --all). */
const fiveMinutes: Readonly<Record<ShapeSet["plan"], string>> = { free: "sparse", standard: "bursty", professional: "dense" }

export type Reader = "export" | "stream" | "stream-spill"

/** One cell of the matrix. */
export interface ShapeCell {
  readonly set: string
  readonly shape: string
  readonly plan: ShapeSet["plan"]
  readonly size: ShapeSet["size"]
  readonly reader: Reader
  /** Rows the reader returned, and the rows of the set (the oracle's). */
  readonly rows: number
  readonly oracleRows: number
  /** The rows, in order, are exactly the oracle's. */
  readonly exact: boolean
  readonly calls: number
  readonly idealCalls: number
  readonly callsOverIdeal: number
  readonly planRate: number
  /** Calls as they arrived at the simulator, per second of their span. */
  readonly callsPerSecond: number
  readonly spanSeconds: number
  /** rows ÷ ((span + 1 ÷ rate) × rate × 1,000). */
  readonly ratio: number
  /** The reader's own time, start to end (the export's manifest, the Stream's run). */
  readonly wallSeconds: number
  readonly wallRatio: number
  readonly rateLimited: number
  readonly peakRssMb?: number
  readonly eventLoop?: number
  readonly error?: string
}

/** What the section reports. */
export interface ShapesResults {
  readonly date: string
  readonly commit: string
  readonly latency: string
  readonly cells: ReadonlyArray<ShapeCell>
  readonly seconds: number
  /**
   * The machine's load average (1, 5, 15 min) at the start and at the end of the run: on 2 shared cores,
   * a load far above 2 starves the readers' CPU (professional's 30,000 rows/s first).
   */
  readonly loadAverage?: { readonly start: ReadonlyArray<number>; readonly end: ReadonlyArray<number> }
  /** What the figures need beside them (a run's conditions), written by whoever keeps the run. */
  readonly note?: string
}

interface SimStats {
  readonly rateLimited: number
  readonly arrivalsMs: ReadonlyArray<number>
}

/** The cells asked for, in the order they run (smallest first: a broken run shows early). */
const cellsOf = (sets: ReadonlyArray<ShapeSet>): ReadonlyArray<readonly [ShapeSet, Reader]> => {
  const only = list("only")
  const shapes = list("shapes")
  const plans = list("plans")
  const sizes = list("sizes")
  const readers = (list("readers") ?? ["export", "stream"]) as ReadonlyArray<Reader>
  const all = a.all === "true"
  const quick = a.quick === "true"
  const order = ["2s", "5s", "30s", "5m"]
  const out: Array<readonly [ShapeSet, Reader]> = []
  for (const size of order) {
    for (const s of sets) {
      if (s.size !== size) continue
      if (only !== undefined && !only.includes(s.name)) continue
      if (shapes !== undefined && !shapes.includes(s.shape)) continue
      if (plans !== undefined && !plans.includes(s.plan)) continue
      if (sizes !== undefined && !sizes.includes(s.size)) continue
      // Unless named (--only, --sizes), the 5 min sets are the default's one per plan, or all with --all.
      const named = only !== undefined || sizes !== undefined
      if (!named && quick && (size === "30s" || size === "5m")) continue
      for (const reader of readers) {
        if (!named && !all && size === "5m" && (fiveMinutes[s.plan] !== s.shape || reader !== "export")) continue
        out.push([s, reader])
      }
    }
  }
  return out
}

/** The rows of a JSONL export and the sha256 of their fingerprints, in file order. */
const fileFingerprint = async (file: string): Promise<{ readonly rows: number; readonly sha256: string }> => {
  const hash = createHash("sha256")
  let rows = 0
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (line === "") continue
    hash.update(`${logFingerprint(JSON.parse(line) as Readonly<Record<string, unknown>>)}\n`)
    rows++
  }
  return { rows, sha256: hash.digest("hex") }
}

const gitCommit = (): string => {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: repoRoot, encoding: "utf8" }).trim()
    const dirty = execFileSync("git", ["status", "--porcelain", "--", "src", "bin"], { cwd: repoRoot, encoding: "utf8" }).trim() !== ""
    return dirty ? `${head} (src changed since)` : head
  } catch {
    return "unknown"
  }
}

const log = (message: string) => process.stderr.write(`[shapes] ${message}\n`)

export const run = async (): Promise<ShapesResults> => {
  const t0 = performance.now()
  const loadStart = loadavg().map((x) => round(x, 2))
  if (a["no-build"] !== "true" && a.list !== "true") {
    // The CLI runs dist/: build it from the tree measured.
    log("npm run build (the CLI runs dist/)")
    execFileSync(path.join(repoRoot, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.build.json"], { cwd: repoRoot, stdio: "inherit" })
  }
  const server = await startServer({
    seed: 11,
    dailyCaps: false,
    dataset: { chains: [1], heavyContractLogs: 0, busyWalletTransactions: 0 },
    faults: { latency: { fixedMs, jitterMs: jitterMs ?? 0 } }
  })
  const sets = server.dataset.shapes ?? []
  const dir = mkdtempSync(path.join(tmpdir(), "shapes-"))
  const cells: Array<ShapeCell> = []
  try {
    if (a.list === "true") {
      for (const s of sets) process.stdout.write(`${s.name.padEnd(24)} ${s.address} rows ${s.rows} blocks ${s.fromBlock}..${s.toBlock}\n`)
      return { date: new Date().toISOString(), commit: gitCommit(), latency: latencySpec, cells, seconds: 0 }
    }
    const planned = cellsOf(sets)
    log(`${planned.length} cells at latency ${latencySpec} ms`)
    const oracles = new Map<string, { readonly rows: number; readonly sha256: string }>()
    for (const [s, reader] of planned) {
      const query = { chainId: 1, module: "logs", action: "getLogs", params: { address: s.address, fromblock: s.fromBlock, toblock: s.toBlock } }
      let oracle = oracles.get(s.name)
      if (oracle === undefined) {
        // Builds the set's rows (outside the measurement) and fingerprints the oracle's answer.
        oracle = await server.command<{ rows: number; sha256: string }>({ cmd: "oracleFingerprint", query })
        oracles.set(s.name, oracle)
      }
      await server.command({ cmd: "gc" })
      await server.command({ cmd: "resetStats" })
      const rate = rates[s.plan]
      const key = server.demoKeys[s.plan] ?? ""
      const budget = s.rows / (rate * ROWS_PER_CALL)
      const range = ["--address", s.address, "--from-block", String(s.fromBlock), "--to-block", String(s.toBlock)]
      let got: { rows: number; sha256: string; wallSeconds: number; peakRssMb?: number; eventLoop?: number } | undefined
      let error: string | undefined
      try {
        if (reader === "export") {
          const out = path.join(dir, `${s.name}.jsonl`)
          const r = await runCli(["export", "logs", ...range, "--base-url", server.baseUrl, "--plan", s.plan, "--quiet", "--out", out], out, {
            EXPLORER_API_KEY: key
          })
          const fp = await fileFingerprint(out)
          got = { ...fp, wallSeconds: r.rows / r.rowsPerSecond, peakRssMb: r.peakRssMb }
          rmSync(out, { force: true })
        } else {
          const r = await runChild<{ rows: number; sha256: string; seconds: number; eventLoop: number; peakRssMb: number }>(
            "stream",
            ["--base-url", server.baseUrl, "--key", key, "--plan", s.plan, ...range, ...(reader === "stream-spill" ? ["--spill", dir] : [])],
            { timeoutMs: Math.max(300_000, budget * 20_000 + 120_000) }
          )
          got = { rows: r.result.rows, sha256: r.result.sha256, wallSeconds: r.result.seconds, peakRssMb: r.result.peakRssMb, eventLoop: r.result.eventLoop }
        }
      } catch (e) {
        error = String(e).split("\n").slice(0, 3).join(" ").slice(0, 300)
      }
      const stats = await server.command<SimStats>({ cmd: "stats" })
      const arrivals = stats.arrivalsMs
      const span = arrivals.length > 1 ? ((arrivals[arrivals.length - 1] as number) - (arrivals[0] as number)) / 1000 : 0
      const rows = got?.rows ?? 0
      const idealCalls = Math.ceil(s.rows / ROWS_PER_CALL)
      const cell: ShapeCell = {
        set: s.name,
        shape: s.shape,
        plan: s.plan,
        size: s.size,
        reader,
        rows,
        oracleRows: oracle.rows,
        exact: got !== undefined && got.rows === oracle.rows && got.sha256 === oracle.sha256,
        calls: arrivals.length,
        idealCalls,
        callsOverIdeal: round(arrivals.length / idealCalls, 2),
        planRate: rate,
        callsPerSecond: span > 0 ? round((arrivals.length - 1) / span, 2) : 0,
        spanSeconds: round(span, 2),
        ratio: round(rows / ((span + 1 / rate) * rate * ROWS_PER_CALL), 3),
        wallSeconds: round(got?.wallSeconds ?? 0, 2),
        wallRatio: got === undefined ? 0 : round(rows / (got.wallSeconds * rate * ROWS_PER_CALL), 3),
        rateLimited: stats.rateLimited,
        ...(got?.peakRssMb === undefined ? {} : { peakRssMb: got.peakRssMb }),
        ...(got?.eventLoop === undefined ? {} : { eventLoop: got.eventLoop }),
        ...(error === undefined ? {} : { error })
      }
      log(`${s.name} ${reader}: ${cell.calls}/${idealCalls} calls, ratio ${cell.ratio} (wall ${cell.wallRatio}), refused ${cell.rateLimited}, ${cell.exact ? "exact" : "NOT EXACT"}${error === undefined ? "" : ` — ${error}`}`)
      cells.push(cell)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
    await server.stop()
  }
  return {
    date: new Date().toISOString(),
    commit: gitCommit(),
    latency: latencySpec,
    cells,
    seconds: round((performance.now() - t0) / 1000),
    loadAverage: { start: loadStart, end: loadavg().map((x) => round(x, 2)) }
  }
}

if (process.argv[1]?.endsWith("shapes.ts") || process.argv[1]?.endsWith("shapes.js")) {
  run().then((r) => {
    if (a.list === "true") return
    if (a.emit === "true") emit(r)
    else process.stdout.write(`${shapesTable(r)}\n`)
    if (a.json !== undefined) writeFileSync(a.json, JSON.stringify(r, null, 2))
  }, (error: unknown) => {
    process.stderr.write(`${String(error)}\n`)
    process.exit(1)
  })
}
