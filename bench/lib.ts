/**
 * Shared plumbing of the benchmarks: how a measurement child reports (one `BENCH_RESULT <json>` line on
 * stdout), how its peak RSS is read, how the orchestrator starts children and the bench simulator
 * process, and a few number helpers. Plain Node (no Effect) so the harness itself costs nothing measurable.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { existsSync, readFileSync, rmSync, statSync } from "node:fs"
import * as path from "node:path"
import * as os from "node:os"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"

/** The repository root (children run from there). */
export const repoRoot = fileURLToPath(new URL("../", import.meta.url))

/** The marker of a child's result line. */
const RESULT = "BENCH_RESULT "

/**
 * Peak resident set size of this process in MB: `VmHWM` of /proc/self/status (the kernel's high-water
 * mark), else `process.resourceUsage().maxRSS`.
 */
export const peakRssMb = (): number => {
  try {
    const m = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync("/proc/self/status", "utf8"))
    if (m?.[1] !== undefined) return Number(m[1]) / 1024
  } catch {
    // not Linux: fall through
  }
  return process.resourceUsage().maxRSS / 1024
}

/** Current RSS in MB. */
export const rssMb = (): number => process.memoryUsage().rss / 1024 / 1024

/** Reports a child's result to the orchestrator (the last line of its stdout). */
export const emit = (result: unknown): void => {
  process.stdout.write(`${RESULT}${JSON.stringify(result)}\n`)
}

/** `--name value` pairs of argv. */
export const args = (argv: ReadonlyArray<string> = process.argv.slice(2)): Readonly<Record<string, string>> => {
  const out: Record<string, string> = {}
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? ""
    if (!a.startsWith("--")) continue
    const next = argv[i + 1]
    if (next === undefined || next.startsWith("--")) out[a.slice(2)] = "true"
    else {
      out[a.slice(2)] = next
      i++
    }
  }
  return out
}

/** A required argument. */
export const arg = (all: Readonly<Record<string, string>>, name: string): string => {
  const v = all[name]
  if (v === undefined) throw new Error(`missing --${name}`)
  return v
}

/**
 * The request the block cursor makes after a full page whose last row is in block `last`: the query's
 * next page while the result window holds it (or the page held only `start`'s block), else page 1 from
 * `last` (re-read whole).
 */
export const nextCursorPage = (
  start: number,
  page: number,
  last: number,
  cap: number,
  window: number
): { readonly start: number; readonly page: number } =>
  // As BlockCursor: the query's next page while the window holds it, else a new query at the last block.
  (page + 1) * cap <= window || last === start ? { start, page: page + 1 } : { start: last, page: 1 }

/** What a finished child gave back. */
export interface ChildRun<A> {
  readonly result: A
  readonly wallMs: number
  readonly stderr: string
}

/**
 * Runs `node <argv>` in a process of its own and returns its result line. Fails with the child's stderr
 * (named by `label`) when it exits without one; killed after `timeoutMs` (default 5 minutes).
 */
const runNode = <A>(argv: ReadonlyArray<string>, label: string, timeoutMs = 300_000): Promise<ChildRun<A>> =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, [...argv], {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1" }
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d: Buffer) => void (stdout += d.toString()))
    child.stderr.on("data", (d: Buffer) => void (stderr += d.toString()))
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
    child.on("exit", (code, signal) => {
      clearTimeout(timer)
      const line = stdout.split("\n").reverse().find((l) => l.startsWith(RESULT))
      if (line === undefined) {
        reject(new Error(`${label} ended (${code ?? signal}) without a result:\n${stderr.slice(-3000)}`))
        return
      }
      resolve({ result: JSON.parse(line.slice(RESULT.length)) as A, wallMs: performance.now() - started, stderr })
    })
  })

/**
 * Runs `node [nodeArgs] --import tsx bench/<script>.ts <args>` and returns its result line. Fails with
 * the child's stderr when it exits without one.
 */
export const runChild = <A>(
  script: string,
  childArgs: ReadonlyArray<string>,
  options: { readonly nodeArgs?: ReadonlyArray<string>; readonly timeoutMs?: number } = {}
): Promise<ChildRun<A>> => {
  // BENCH_DIST=1: the compiled script (after `tsc -p bench`), e.g. for --cpu-prof with real names.
  const entry = process.env.BENCH_DIST ? [`bench/.compiled/bench/${script}.js`] : ["--import", "tsx", `bench/${script}.ts`]
  return runNode<A>([...(options.nodeArgs ?? []), ...entry, ...childArgs], `bench/${script}.ts ${childArgs.join(" ")}`, options.timeoutMs)
}

/** What the real CLI did in {@link runCli}: its manifest's rows and time, its peak RSS. */
export interface CliRun {
  readonly rows: number
  /** Rows over the export's own time (the manifest's `durationMs`: from the start of the export to the file's publication). */
  readonly rowsPerSecond: number
  readonly peakRssMb: number
  /** The process from start to exit, startup and module loading included. */
  readonly wallMs: number
}

/**
 * Runs the CLI as a user does (`node bin/explorer-etl.js <args>`, dist/ as built, its own V8 settings)
 * with `env` added, and reads its peak RSS (VmHWM at exit, through bench/peak.mjs) and the manifest
 * written beside `out`. Fails with the CLI's stderr when it exits non-zero.
 */
/** Removes an export's file and what it leaves beside it (manifest, resume state). */
export const removeExport = (out: string): void => {
  for (const f of [out, `${out}.manifest.json`, `${out}.state.json`]) rmSync(f, { force: true })
}

export const runCli = (args: ReadonlyArray<string>, out: string, env: Readonly<Record<string, string>>): Promise<CliRun> =>
  new Promise((resolve, reject) => {
    // A fresh export each time: no earlier file, manifest or state beside it.
    removeExport(out)
    const peakFile = path.join(os.tmpdir(), `explorer-etl-bench-peak-${process.pid}-${Date.now()}`)
    const started = performance.now()
    const child = spawn(process.execPath, ["--import", path.join(repoRoot, "bench", "peak.mjs"), path.join(repoRoot, "bin", "explorer-etl.js"), ...args], {
      cwd: repoRoot,
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, ...env, NO_COLOR: "1", BENCH_PEAK_FILE: peakFile }
    })
    let stderr = ""
    child.stderr.on("data", (d: Buffer) => void (stderr += d.toString()))
    child.on("exit", (code, signal) => {
      const wallMs = performance.now() - started
      try {
        if (code !== 0) throw new Error(`the CLI ended (${code ?? signal}):\n${stderr.slice(-3000)}`)
        const peakRssMb = Number(readFileSync(peakFile, "utf8").trim())
        const manifest = JSON.parse(readFileSync(`${out}.manifest.json`, "utf8")) as { readonly rows: number; readonly durationMs: number }
        resolve({ rows: manifest.rows, rowsPerSecond: manifest.rows / (manifest.durationMs / 1000), peakRssMb, wallMs })
      } catch (e) {
        reject(e)
      } finally {
        rmSync(peakFile, { force: true })
      }
    })
  })

/** The well-known entities of the bench simulator's chain 1 (what the measurements query). */
export interface BenchDataset {
  readonly chainId: number
  readonly latestBlock: number
  readonly activity: { readonly fromBlock: number; readonly toBlock: number }
  readonly busyWallet: { readonly address: string; readonly transactions: number; readonly denseBlock: number | undefined }
  readonly heavyContract: { readonly address: string; readonly logs: number; readonly denseBlock: number | undefined }
  /** A token and a holder of it, for the throttled balance-history calls. */
  readonly token: { readonly address: string; readonly holder: string }
  /** The log sets of named density shapes (bench/shapes.ts); absent from older servers. */
  readonly shapes?: ReadonlyArray<ShapeSet>
}

/** One log set of a named density shape (the simulator's `dataset.chain(1).shapes`). */
export interface ShapeSet {
  readonly name: string
  readonly shape: string
  readonly plan: "free" | "standard" | "professional"
  readonly size: "2s" | "5s" | "30s" | "5m"
  readonly address: string
  readonly rows: number
  readonly fromBlock: number
  readonly toBlock: number
}

const intOf = (v: unknown): number => {
  if (typeof v === "number") return v
  const s = String(v)
  // The wire form is hex, "0x" for zero; files and decoded records hold decimals.
  return s.startsWith("0x") ? (s.length === 2 ? 0 : Number.parseInt(s, 16)) : Number(s)
}

/**
 * What identifies a log and its place in the order, in every form it takes (the wire record, a JSONL
 * line of the file, the decoded record of a Stream): block, log index, transaction hash, data. The
 * sha256 of these lines in order says a reader returned exactly the oracle's rows in the one-cursor order,
 * at a cost (about a microsecond a row) that does not weigh on the reader measured.
 */
export const logFingerprint = (r: Readonly<Record<string, unknown>>): string =>
  `${intOf(r.blockNumber)}:${intOf(r.logIndex)}:${String(r.transactionHash)}:${String(r.data)}`

/** The bench simulator's first line. */
export interface ServerReady {
  readonly baseUrl: string
  readonly demoKeys: Readonly<Record<string, string>>
  readonly dataset: BenchDataset
  readonly startMs: number
}

/** A running bench simulator process (bench/server.ts) and its control channel. */
export interface ServerProcess extends ServerReady {
  readonly pid: number
  /** Sends a command (see bench/server.ts) and waits for its reply. */
  readonly command: <A>(cmd: Readonly<Record<string, unknown>>) => Promise<A>
  /** CPU seconds (user + system) the server process used so far. */
  readonly cpuSeconds: () => number
  readonly peakRssMb: () => number
  readonly stop: () => Promise<void>
}

const procStat = (pid: number): { cpu: number; hwm: number } => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const ticks = Number(fields[11]) + Number(fields[12])
    const status = readFileSync(`/proc/${pid}/status`, "utf8")
    const hwm = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
    return { cpu: ticks / 100, hwm }
  } catch {
    return { cpu: Number.NaN, hwm: Number.NaN }
  }
}

/** Starts bench/server.ts with simulator options; resolves once it listens. */
export const startServer = (options: Readonly<Record<string, unknown>>): Promise<ServerProcess> =>
  new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, ["--expose-gc", "--import", "tsx", "bench/server.ts", JSON.stringify(options)], {
      cwd: repoRoot,
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stderr = ""
    child.stderr?.on("data", (d: Buffer) => void (stderr += d.toString()))
    const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>()
    let nextId = 0
    let ready = false
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })
    lines.on("line", (line) => {
      if (line.startsWith("READY ")) {
        ready = true
        const info = JSON.parse(line.slice(6)) as ServerReady
        const pid = child.pid ?? -1
        resolve({
          ...info,
          pid,
          command: <A>(cmd: Readonly<Record<string, unknown>>) =>
            new Promise<A>((res, rej) => {
              const id = nextId++
              pending.set(id, { resolve: (v) => res(v as A), reject: rej })
              child.stdin?.write(`${JSON.stringify({ ...cmd, id })}\n`)
            }),
          cpuSeconds: () => procStat(pid).cpu,
          peakRssMb: () => procStat(pid).hwm,
          stop: () =>
            new Promise<void>((res) => {
              if (child.exitCode !== null || child.signalCode !== null) return res()
              child.once("exit", () => res())
              child.kill("SIGTERM")
            })
        })
      } else if (line.startsWith("REPLY ")) {
        const reply = JSON.parse(line.slice(6)) as { id: number; result?: unknown; error?: string }
        const p = pending.get(reply.id)
        pending.delete(reply.id)
        if (reply.error !== undefined) p?.reject(new Error(reply.error))
        else p?.resolve(reply.result)
      }
    })
    child.on("exit", (code) => {
      if (!ready) reject(new Error(`bench/server.ts exited (${code}) before listening:\n${stderr.slice(-3000)}`))
      for (const p of pending.values()) p.reject(new Error(`bench/server.ts exited (${code}):\n${stderr.slice(-2000)}`))
      pending.clear()
    })
  })

/** Median of numbers (NaN for none). */
export const median = (xs: ReadonlyArray<number>): number => {
  if (xs.length === 0) return Number.NaN
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2
}

/** Rounds to `digits` decimals. */
export const round = (x: number, digits = 0): number => {
  const f = 10 ** digits
  return Math.round(x * f) / f
}

/** What the report says about the machine. */
export const machine = () => ({
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model ?? "unknown",
  memoryGb: round(os.totalmem() / 1024 ** 3, 1),
  node: process.version,
  platform: `${os.platform()} ${os.release()}`,
  loadAverage: os.loadavg().map((x) => round(x, 2))
})

/** A record as a comparable text (keys sorted, so the server's key order does not matter). */
export const canonical = (record: unknown): string =>
  JSON.stringify(record, (_k, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : v)

/** Rows compared with the oracle: how many matched, are missing, came twice or more, or are not in it. */
export const compare = (oracleLines: ReadonlyArray<string>, rows: ReadonlyArray<string>) => {
  const expected = new Map<string, number>()
  for (const line of oracleLines) expected.set(line, (expected.get(line) ?? 0) + 1)
  const seen = new Map<string, number>()
  let duplicated = 0
  let unexpected = 0
  for (const row of rows) {
    const n = (seen.get(row) ?? 0) + 1
    seen.set(row, n)
    const allowed = expected.get(row)
    if (allowed === undefined) unexpected++
    else if (n > allowed) duplicated++
  }
  let matched = 0
  for (const [row, n] of expected) matched += Math.min(n, seen.get(row) ?? 0)
  return { oracleRows: oracleLines.length, matched, missing: oracleLines.length - matched, duplicated, unexpected }
}

/** Runs a plain JavaScript file (compiled) in a node process of its own and returns its BENCH_RESULT. */
/**
 * bench/<name>.ts compiled by `tsc -p bench` (the options dist/ is built with) into bench/.compiled: the
 * path of its .js, checked to be there and newer than its source.
 */
export const compileBench = (name: string): string => {
  const compiled = path.join(repoRoot, "bench", ".compiled", "bench", `${name}.js`)
  try {
    execFileSync(path.join(repoRoot, "node_modules", ".bin", "tsc"), ["-p", "bench"], { cwd: repoRoot, stdio: "ignore" })
  } catch {
    // Type errors elsewhere in the tree do not stop tsc from writing its output; a missing file is checked below.
  }
  if (!existsSync(compiled) || statSync(compiled).mtimeMs < statSync(path.join(repoRoot, "bench", `${name}.ts`)).mtimeMs) {
    throw new Error(`bench/.compiled/bench/${name}.js is missing or stale after tsc -p bench`)
  }
  return compiled
}

export const runCompiled = <A>(script: string, childArgs: ReadonlyArray<string>, nodeArgs: ReadonlyArray<string>): Promise<A> =>
  runNode<A>([...nodeArgs, script, ...childArgs], script).then((run) => run.result)
