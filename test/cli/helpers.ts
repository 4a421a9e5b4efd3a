/**
 * Helpers of the CLI suites: run `node bin/explorer-etl.js …` as a subprocess (cwd = repo root, an
 * environment without API keys), keep every captured output for the "no key in any output" check,
 * start an in-process simulator the subprocesses reach over HTTP, and read the files an export writes.
 */
import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { parse } from "csv-parse/sync"
import { afterAll, beforeAll, expect } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { execFile, spawn, type ChildProcess } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Plan } from "../../src/Plan.js"
import * as Simulator from "../../src/simulator/index.js"

/** The repository root (the CLI runs from there, as a user would run `npx explorer-etl`). */
export const repoRoot = fileURLToPath(new URL("../../", import.meta.url))

/** The bin entry the package declares. */
export const bin = fileURLToPath(new URL("../../bin/explorer-etl.js", import.meta.url))

/** How long one CLI run may take before it is killed (a 2-core CI shared by several test files). */
const RUN_TIMEOUT_MS = 120_000

/** What a CLI run did. */
export interface CliResult {
  readonly args: ReadonlyArray<string>
  /** Exit code, or null when the process ended on a signal. */
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * The state directory of this test file's CLI runs (`XDG_STATE_HOME`): the key budgets the CLI shares
 * between a machine's processes live there, so test files running in parallel never share one.
 */
export const stateHome = mkdtempSync(join(tmpdir(), "explorer-etl-state-"))
process.once("exit", () => rmSync(stateHome, { recursive: true, force: true }))

/**
 * The environment of every CLI run: the test process's, without any API key, its state in
 * {@link stateHome}, plus `extra`.
 */
export const cliEnv = (extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", XDG_STATE_HOME: stateHome }
  delete env.EXPLORER_API_KEY
  delete env.ETHERSCAN_API_KEY
  for (const name of Object.keys(env)) if (name.startsWith("EXPLORER_")) delete env[name]
  return { ...env, ...extra }
}

/**
 * A transcript of one test file: every output of every CLI run it made, so the file can check at the
 * end that no key ever appeared anywhere.
 */
export class Transcript {
  readonly runs: Array<CliResult> = []

  /** Runs `explorer-etl <args>` and records what it printed. Never fails: the result says how it ended. */
  readonly cli = (args: ReadonlyArray<string>, options: { readonly env?: Readonly<Record<string, string>> } = {}) =>
    Effect.async<CliResult>((resume) => {
      const child = execFile(
        process.execPath,
        [bin, ...args],
        { cwd: repoRoot, env: cliEnv(options.env), timeout: RUN_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024, encoding: "utf8" },
        (_error, stdout, stderr) => {
          const result: CliResult = { args, code: child.exitCode, signal: child.signalCode, stdout, stderr }
          this.runs.push(result)
          resume(Effect.succeed(result))
        }
      )
      return Effect.sync(() => void child.kill("SIGKILL"))
    })

  /** Records the output of a process started another way (the `simulator` subcommand). */
  readonly record = (result: CliResult): void => {
    this.runs.push(result)
  }

  /** Every captured text (stdout and stderr of every run) that contains one of `secrets`. */
  readonly leaks = (secrets: ReadonlyArray<string>): ReadonlyArray<string> =>
    this.runs.flatMap((r) =>
      [r.stdout, r.stderr].filter((text) => secrets.some((s) => text.includes(s))).map((text) =>
        `explorer-etl ${r.args.join(" ")}: ${text.slice(0, 200)}`
      )
    )
}

/** Starts a long-running `explorer-etl <args>` (the simulator) with its output collected as it comes. */
export const spawnCli = (args: ReadonlyArray<string>) => {
  const child: ChildProcess = spawn(process.execPath, [bin, ...args], { cwd: repoRoot, env: cliEnv(), stdio: ["ignore", "pipe", "pipe"] })
  const output = { stdout: "", stderr: "" }
  child.stdout?.setEncoding("utf8").on("data", (d: string) => void (output.stdout += d))
  child.stderr?.setEncoding("utf8").on("data", (d: string) => void (output.stderr += d))
  return { child, output }
}

/** Waits for a child process to end: its exit code or the signal that ended it. */
export const exited = (child: ChildProcess) =>
  Effect.async<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      return resume(Effect.succeed({ code: child.exitCode, signal: child.signalCode }))
    }
    child.once("exit", (code, signal) => resume(Effect.succeed({ code, signal })))
  })

/**
 * A failed run as the CLI contract says: a non-zero exit, nothing on stdout, and one stderr line
 * `error <Tag>: <message>`. Returns the message.
 */
export const failureOf = (result: CliResult, tag: string): string => {
  const context = `explorer-etl ${result.args.join(" ")}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`
  if (result.code === 0 || result.code === null) throw new Error(`expected a non-zero exit\n${context}`)
  if (result.stdout !== "") throw new Error(`expected nothing on stdout\n${context}`)
  const match = /^error ([A-Za-z]+): (.+)\n$/.exec(result.stderr)
  if (match === null) throw new Error(`expected one stderr line "error <Tag>: <message>"\n${context}`)
  if (match[1] !== tag) throw new Error(`expected error ${tag}, got ${match[1]}\n${context}`)
  return match[2] as string
}

/** A successful run: exit 0. Returns it for further checks. */
export const succeeded = (result: CliResult): CliResult => {
  if (result.code !== 0) {
    throw new Error(`expected exit 0, got ${result.code} (${result.signal})\nexplorer-etl ${result.args.join(" ")}\nstderr: ${result.stderr}`)
  }
  return result
}

/**
 * A made-up API key in the shape of the simulator's demo keys (34 upper-case letters and digits),
 * unique per `name`.
 */
export const madeUpKey = (name: string): string => `SIMT${name.toUpperCase().replace(/[^A-Z0-9]/g, "")}`.padEnd(34, "7").slice(0, 34)

/**
 * One in-process simulator per test file: the CLI subprocesses reach it at `sim.baseUrl`. Each test
 * uses its own key (see `keys`), so the simulator's per-key rate windows and counters are its own.
 */
export const startSimulator = async (options: Simulator.SimulatorOptions) => {
  const scope = Effect.runSync(Scope.make())
  const sim = await Effect.runPromise(Scope.extend(Simulator.make(options), scope))
  return { sim, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

/** Requests the simulator received with this key (0 when it never saw it). */
export const requestsWith = (sim: Simulator.Simulator.Service, key: string) =>
  Effect.map(sim.stats, (s) => s.byKey[Simulator.keyFingerprint(key)] ?? 0)

/** A temporary folder for the files of one test file. */
export const makeTempDir = (prefix: string) =>
  Effect.runPromise(
    Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectory({ prefix })).pipe(Effect.provide(NodeFileSystem.layer))
  )

/** Removes a folder and everything in it. */
export const removeDir = (dir: string) =>
  Effect.runPromise(
    Effect.flatMap(FileSystem.FileSystem, (fs) => fs.remove(dir, { recursive: true })).pipe(Effect.provide(NodeFileSystem.layer))
  )

/** A CSV file as its header and its rows (arrays of cells). */
export const readCsv = (text: string) => {
  const records = parse(text, { relax_column_count: false }) as ReadonlyArray<ReadonlyArray<string>>
  const [header, ...rows] = records
  return { header: header ?? [], rows }
}

/** A JSONL file as its records. */
export const readJsonl = (text: string): ReadonlyArray<Readonly<Record<string, unknown>>> =>
  text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Readonly<Record<string, unknown>>)

/** The manifest written beside an export. */
export interface Manifest {
  readonly file: string
  readonly dataset: string
  readonly format: string
  readonly columns: ReadonlyArray<string>
  readonly rows: number
  readonly bytes: number
  readonly plan: string
  readonly blockRange: { readonly from: number; readonly to: number } | null
  readonly completeness: { readonly status: "complete" | "truncated"; readonly reason?: string }
  readonly run: { readonly mode: string; readonly rowsWritten: number }
}

/**
 * The set-up of a CLI test file: made-up keys (`key(name, plan)`, one per test, so each has its own
 * rate windows; all known to the simulator before it starts), an in-process simulator with `options`,
 * a temporary folder, and a transcript checked at the end for any key in any output. Call at the top
 * level of the file; `sim` and `dir` are there once the file's tests run.
 */
export const cliSuite = (prefix: string, options: Omit<Simulator.SimulatorOptions, "keys"> = {}) => {
  const keyPlans: Record<string, Plan> = {}
  let started: { readonly sim: Simulator.Simulator.Service; readonly close: () => Promise<void> } | undefined
  let folder: string | undefined
  const suite = {
    transcript: new Transcript(),
    key: (name: string, plan: Plan = "standard"): string => {
      const k = madeUpKey(`${prefix}${name}`)
      keyPlans[k] = plan
      return k
    },
    get sim(): Simulator.Simulator.Service {
      if (started === undefined) throw new Error("the simulator starts before the file's tests")
      return started.sim
    },
    get dir(): string {
      if (folder === undefined) throw new Error("the folder is made before the file's tests")
      return folder
    }
  }
  beforeAll(async () => {
    started = await startSimulator({ ...options, keys: keyPlans })
    folder = await makeTempDir(`cli-${prefix}-`)
  })
  afterAll(async () => {
    await started?.close()
    if (folder !== undefined) await removeDir(folder)
    expect(suite.transcript.leaks(Object.keys(keyPlans))).toEqual([])
  })
  return suite
}

/** Waits until `check` holds, polling every 20 ms (at most `ms`). */
export const until = (check: () => boolean, ms = 60_000) =>
  Effect.promise(async () => {
    const end = Date.now() + ms
    while (!check()) {
      if (Date.now() > end) throw new Error("timed out waiting")
      await new Promise((r) => setTimeout(r, 20))
    }
  })

/** `export logs` of the simulator's heavy contract on the standard plan, with the key on the line (tests of one export's safety). */
export const heavyLogsArgs = (sim: Simulator.Simulator.Service, out: string, apiKey: string): Array<string> => [
  "export",
  "logs",
  "--address",
  sim.dataset.chain(1).heavyContract.address,
  "--out",
  out,
  "--base-url",
  sim.baseUrl,
  "--api-key",
  apiKey,
  "--plan",
  "standard"
]
