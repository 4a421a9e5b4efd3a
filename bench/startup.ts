/**
 * Start-up of the command line: how long `explorer-etl --help` and `explorer-etl export --help` take,
 * warm (the files in the page cache: one run first, not counted), as a user runs them
 * (`node bin/explorer-etl.js …`, stdout a pipe). A plain `--help` is answered from the texts the build
 * prerendered (src/cli/HelpTexts.ts) without loading Effect or a command; `export txs --help
 * --log-level none` (the same help through the whole command line: a flag the prerendered answer does
 * not take) and `node -e 0` are measured beside them for scale. Goal: ≤ 0.8 s each.
 *
 * Usage: tsx bench/startup.ts [--runs N] [--emit] [--merge]
 * (--merge: the figures written into bench/results.json as its `startup`; then `npm run bench --
 * --render` renders bench/RESULTS.md again.)
 */
import { spawnSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { args, emit, repoRoot, round } from "./lib.js"

/** One command's wall times, in milliseconds. */
export interface StartupRow {
  readonly command: string
  readonly medianMs: number
  readonly maxMs: number
  readonly runs: number
}

/** What this bench gives: a row per command, and when and where it was measured. */
export interface StartupResults {
  readonly date: string
  readonly loadAverage: number
  readonly goalMs: number
  readonly rows: ReadonlyArray<StartupRow>
}

const bin = path.join(repoRoot, "bin", "explorer-etl.js")

const commands: ReadonlyArray<{ readonly command: string; readonly argv: ReadonlyArray<string> }> = [
  { command: "explorer-etl --help", argv: [bin, "--help"] },
  { command: "explorer-etl export --help", argv: [bin, "export", "--help"] },
  { command: "explorer-etl export txs --help --log-level none (the whole command line)", argv: [bin, "export", "txs", "--help", "--log-level", "none"] },
  { command: "node -e 0 (Node.js alone)", argv: ["-e", "0"] }
]

const wall = (argv: ReadonlyArray<string>): number => {
  const started = performance.now()
  const run = spawnSync(process.execPath, argv, { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } })
  const ms = performance.now() - started
  if (run.status !== 0) throw new Error(`${argv.join(" ")} exited ${run.status}: ${run.stderr.toString().slice(-2000)}`)
  return ms
}

/** Measures every command `runs` times after one warm-up run. */
export const startup = (runs: number): StartupResults => {
  const rows = commands.map(({ argv, command }) => {
    wall(argv)
    const times = Array.from({ length: runs }, () => wall(argv)).sort((a, b) => a - b)
    return { command, medianMs: round(times[Math.floor(times.length / 2)] ?? 0, 0), maxMs: round(times[times.length - 1] ?? 0, 0), runs }
  })
  return { date: new Date().toISOString(), loadAverage: round((process.platform === "linux" ? Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]) : 0), 2), goalMs: 800, rows }
}

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]).replace(/\.js$/, ".ts").endsWith(path.join("bench", "startup.ts"))
if (isMain) {
  const options = args()
  const results = startup(Number(options.runs ?? 9))
  if (options.merge === "true") {
    const file = path.join(repoRoot, "bench", "results.json")
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), startup: results }, null, 2) + "\n")
  }
  if (options.emit === "true") emit(results)
  else process.stdout.write(`${JSON.stringify(results, null, 2)}\n`)
}
