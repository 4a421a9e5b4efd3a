/**
 * What real use brings around one export, proven with subprocesses, real signals and real files: a
 * forgotten --resume continues the interrupted export (and says so) instead of throwing its rows away,
 * --restart starts over; a lock left by a process that is gone — its pid now this process's own (a
 * container restarted: PID 1 again) or another process that started later — is taken over, a live one
 * names its lock file; an --out that cannot be published is refused before the first request, with
 * --force too.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { existsSync, mkdirSync, readFileSync } from "node:fs"
import { readFile, writeFile } from "node:fs/promises"
import { hostname } from "node:os"
import { join } from "node:path"
import type * as Simulator from "../../src/simulator/index.js"
import {
  bin,
  cliEnv,
  exited,
  failureOf,
  heavyLogsArgs,
  madeUpKey,
  makeTempDir,
  removeDir,
  repoRoot,
  requestsWith,
  spawnCli,
  startSimulator,
  succeeded,
  Transcript,
  until
} from "./helpers.js"

const TIMEOUT = 240_000
const keyPlans: Record<string, "standard"> = {}
const key = (name: string): string => {
  const k = madeUpKey(`ru${name}`)
  keyPlans[k] = "standard"
  return k
}

const keys = {
  lone: key("lone"),
  forgot: key("forgot"),
  restart: key("restart"),
  ownPid: key("ownPid"),
  reused: key("reused"),
  live: key("live"),
  lockDir: key("lockDir"),
  outDir: key("outDir"),
  proc: key("proc")
}

const transcript = new Transcript()
let sim: Simulator.Simulator.Service
let close: () => Promise<void>
let dir: string

beforeAll(async () => {
  // Every answer is late: an export of the heavy contract's logs takes seconds, long enough to kill it.
  const started = await startSimulator({ keys: keyPlans, faults: { latency: { fixedMs: 250 } } })
  sim = started.sim
  close = started.close
  dir = await makeTempDir("cli-real-use-")
})

afterAll(async () => {
  await close?.()
  if (dir !== undefined) await removeDir(dir)
})

const text = (path: string) => Effect.promise(() => readFile(path, "utf8"))

const logsArgs = (out: string, apiKey: string) => heavyLogsArgs(sim, out, apiKey)

/** Rows a state file counts, its partitions' included (0 when absent or unreadable). */
const stateRows = (out: string): number => {
  try {
    const state = JSON.parse(readFileSync(`${out}.state.json`, "utf8")) as { rows: number; partitions?: Array<{ rows: number }> }
    return (state.partitions ?? []).reduce((n, p) => n + p.rows, state.rows)
  } catch {
    return 0
  }
}

/** The file a lone, uninterrupted export writes. */
let lone: Promise<{ readonly text: string }> | undefined
const loneExport = () =>
  Effect.promise(() => {
    lone ??= (async () => {
      const out = join(dir, "lone.csv")
      succeeded(await Effect.runPromise(transcript.cli(logsArgs(out, keys.lone))))
      return { text: await readFile(out, "utf8") }
    })()
    return lone
  })

/** An export killed with SIGKILL once its checkpoint keeps rows: what a crash or an OOM kill leaves. */
const killedExport = (out: string, apiKey: string) =>
  Effect.gen(function*() {
    const run = spawnCli(logsArgs(out, apiKey))
    yield* until(() => stateRows(out) > 0)
    run.child.kill("SIGKILL")
    yield* exited(run.child)
    transcript.record({ args: ["killed"], code: null, signal: "SIGKILL", ...run.output })
    // A request the killed process had written to its socket may reach the simulator after it died (a
    // loaded machine, three test files at once): counted once the key's count holds still for a second
    // (300 ms was not enough with other processes on both cores: one arrived after it).
    let seen = -1
    while (true) {
      const now = yield* requestsWith(sim, apiKey)
      if (now === seen) break
      seen = now
      yield* Effect.sleep("1 second")
    }
    return stateRows(out)
  })

/** A lock file as an export of another process would have written it. */
const lockBody = (fields: Record<string, unknown>) => JSON.stringify({ host: hostname(), startedAt: new Date().toISOString(), ...fields }) + "\n"

describe.concurrent("real use", () => {
  it.live("a forgotten --resume continues the killed export, says so on one line, and pays only the rest", () =>
    Effect.gen(function*() {
      const out = join(dir, "forgot.csv")
      const kept = yield* killedExport(out, keys.forgot)
      expect(kept).toBeGreaterThan(0)
      const again = succeeded(yield* transcript.cli(logsArgs(out, keys.forgot)))
      const lines = again.stderr.split(/\r|\n/).filter((l) => l.startsWith("resuming"))
      expect(lines).toEqual([
        `resuming the interrupted export of this query: ${kept.toLocaleString("en-US")} rows kept (--restart starts over)`
      ])
      expect(again.stderr).toMatch(/appended [\d,]+ rows? to/)
      const whole = yield* loneExport()
      expect(yield* text(out)).toBe(whole.text)
      // The kept rows were not read again: this run wrote only the others.
      const manifest = JSON.parse(readFileSync(`${out}.manifest.json`, "utf8")) as { rows: number; run: { mode: string; rowsWritten: number } }
      expect(manifest.run.mode).toBe("resumed")
      expect(manifest.run.rowsWritten).toBe(manifest.rows - kept)
    }), TIMEOUT)

  it.live("--restart starts over; with --resume it is refused before any request", () =>
    Effect.gen(function*() {
      const out = join(dir, "restart.csv")
      yield* killedExport(out, keys.restart)
      const before = yield* requestsWith(sim, keys.restart)
      const both = yield* transcript.cli([...logsArgs(out, keys.restart), "--resume", "--restart"])
      expect(both.code).toBe(2)
      expect(failureOf(both, "InvalidInputError")).toBe("--restart: starts over, --resume continues: give one of them")
      expect(yield* requestsWith(sim, keys.restart)).toBe(before)
      const again = succeeded(yield* transcript.cli([...logsArgs(out, keys.restart), "--restart"]))
      expect(again.stderr).not.toContain("resuming")
      expect(again.stderr).toMatch(/wrote [\d,]+ rows to/)
      expect(yield* text(out)).toBe((yield* loneExport()).text)
    }), TIMEOUT)

  it.live("a lock naming the process's own pid (a container restarted) is taken over", () =>
    Effect.gen(function*() {
      const out = join(dir, "own-pid.csv")
      // `exec` keeps the shell's pid: the lock names the very process that then runs the export.
      const script = `printf '%s\\n' "{\\"pid\\":$$,\\"host\\":\\"${hostname()}\\",\\"startedAt\\":\\"2026-01-01T00:00:00Z\\"}" > "$1.lock"; ` +
        `shift; exec "$0" "$@"`
      const args = [process.execPath, out, bin, ...logsArgs(out, keys.ownPid)]
      const result = yield* Effect.async<{ code: number | null; stdout: string; stderr: string }>((resume) => {
        const child = execFile("sh", ["-c", script, ...args], { cwd: repoRoot, env: cliEnv(), encoding: "utf8" }, (_e, stdout, stderr) =>
          resume(Effect.succeed({ code: child.exitCode, stdout, stderr })))
      })
      transcript.record({ args: ["own pid"], signal: null, ...result })
      expect(result.stderr).toMatch(/wrote [\d,]+ rows to/)
      expect(result.code).toBe(0)
      expect(existsSync(`${out}.lock`)).toBe(false)
      expect(yield* text(out)).toBe((yield* loneExport()).text)
    }), TIMEOUT)

  it.live("a lock whose pid now runs another process (started after the lock was written) is taken over", () =>
    Effect.gen(function*() {
      const out = join(dir, "reused.csv")
      // This test's own process runs, but it is not the process that wrote the lock: its start differs.
      yield* Effect.promise(() => writeFile(`${out}.lock`, lockBody({ pid: process.pid, pidStart: "1" })))
      succeeded(yield* transcript.cli(logsArgs(out, keys.reused)))
      expect(existsSync(`${out}.lock`)).toBe(false)
    }), TIMEOUT)

  it.live("a lock of a running export holds, and the error names the lock file; 0 requests", () =>
    Effect.gen(function*() {
      const out = join(dir, "live.csv")
      yield* Effect.promise(() => writeFile(`${out}.lock`, lockBody({ pid: process.pid })))
      const result = yield* transcript.cli(logsArgs(out, keys.live))
      expect(failureOf(result, "OutputLockedError")).toBe(`another export (pid ${process.pid}) is writing ${out} (lock file ${out}.lock)`)
      expect(yield* requestsWith(sim, keys.live)).toBe(0)
    }), TIMEOUT)

  it.live("a folder where the lock file goes is told as such, not as a lock of pid 0; 0 requests", () =>
    Effect.gen(function*() {
      const out = join(dir, "lock-dir.csv")
      mkdirSync(`${out}.lock`)
      const message = failureOf(yield* transcript.cli(logsArgs(out, keys.lockDir)), "SinkError")
      expect(message).toContain(`${out}.lock`)
      expect(message).toContain("is a folder")
      expect(message).not.toContain("pid")
      expect(yield* requestsWith(sim, keys.lockDir)).toBe(0)
    }), TIMEOUT)

  it.live("an --out that is a folder is refused before the first request, with --force too", () =>
    Effect.gen(function*() {
      const out = join(dir, "a-folder")
      mkdirSync(out)
      for (const extra of [[], ["--force"]]) {
        const result = yield* transcript.cli([...logsArgs(out, keys.outDir), "--format", "csv", ...extra])
        expect(result.code).toBe(2)
        expect(failureOf(result, "InvalidInputError")).toMatch(/^--out: .*a-folder is a folder/)
      }
      expect(yield* requestsWith(sim, keys.outDir)).toBe(0)
      expect(existsSync(`${out}.lock`)).toBe(false)
    }), TIMEOUT)

  it.live("an --out where nothing can be written (/proc) is refused before the first request", () =>
    Effect.gen(function*() {
      const result = yield* transcript.cli(logsArgs("/proc/explorer-etl-test.csv", keys.proc))
      expect(failureOf(result, "SinkError")).toContain("/proc")
      expect(yield* requestsWith(sim, keys.proc)).toBe(0)
    }), TIMEOUT)
})

describe("real use: secrets", () => {
  it("no API key appears in any output", () => {
    expect(transcript.leaks(Object.keys(keyPlans))).toEqual([])
  })
})
