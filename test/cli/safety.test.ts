/**
 * The CLI protects the user's files (issue 17), proven with subprocesses, real signals and real files:
 * one writer per output (a second export to the same --out fails at once), SIGINT/SIGTERM exit 130/143
 * with the `interrupted: … run the same command to continue` line and a partial that --resume ends byte-identical, no silent
 * overwrite of a file explorer-etl did not write (unless --force), an impossible --out fails before any
 * request, and a damaged state file is one `error …` line.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import type * as Simulator from "../../src/simulator/index.js"
import {
  exited,
  failureOf,
  heavyLogsArgs,
  madeUpKey,
  makeTempDir,
  removeDir,
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
  const k = madeUpKey(`s${name}`)
  keyPlans[k] = "standard"
  return k
}

// Every key is known to the simulator before it starts.
const keys = {
  lone: key("lone"),
  lockA: key("lockA"),
  lockB: key("lockB"),
  SIGINT: key("SIGINT"),
  SIGTERM: key("SIGTERM"),
  precious: key("precious"),
  unwritable: key("unwritable"),
  damaged: key("damaged")
}

const transcript = new Transcript()
let sim: Simulator.Simulator.Service
let close: () => Promise<void>
let dir: string

beforeAll(async () => {
  // Every answer is late: an export of the heavy contract's logs takes seconds, long enough to
  // interrupt it or to start a second one beside it.
  const started = await startSimulator({ keys: keyPlans, faults: { latency: { fixedMs: 250 } } })
  sim = started.sim
  close = started.close
  dir = await makeTempDir("cli-safety-")
})

afterAll(async () => {
  await close?.()
  if (dir !== undefined) await removeDir(dir)
})

const text = (path: string) => Effect.promise(() => readFile(path, "utf8"))

const logsArgs = (out: string, apiKey: string) => heavyLogsArgs(sim, out, apiKey)

/** Rows a state file counts (0 when absent or unreadable). */
const stateRows = (out: string): number => {
  try {
    return (JSON.parse(readFileSync(`${out}.state.json`, "utf8")) as { rows: number }).rows
  } catch {
    return 0
  }
}

/** The file a lone, uninterrupted export writes. */
let lone: Promise<string> | undefined
const loneExport = () =>
  Effect.promise(() => {
    lone ??= (async () => {
      const out = join(dir, "lone.csv")
      const result = await Effect.runPromise(transcript.cli(logsArgs(out, keys.lone)))
      succeeded(result)
      return readFile(out, "utf8")
    })()
    return lone
  })

describe.concurrent("safety", () => {
  it.live("two exports to one --out: the second fails at once with OutputLockedError; the file equals a lone export", () =>
    Effect.gen(function*() {
      const out = join(dir, "locked.csv")
      // One page after another (every answer 250 ms late): still writing when the second process is up.
      const first = spawnCli([...logsArgs(out, keys.lockA), "--concurrency", "1"])
      yield* until(() => existsSync(`${out}.lock`))
      const secondKey = keys.lockB
      const second = yield* transcript.cli(logsArgs(out, secondKey))
      const message = failureOf(second, "OutputLockedError")
      expect(message).toBe(`another export (pid ${first.child.pid}) is writing ${out} (lock file ${out}.lock)`)
      expect(yield* requestsWith(sim, secondKey)).toBe(0)
      const ended = yield* exited(first.child)
      transcript.record({ args: ["first"], code: ended.code, signal: ended.signal, ...first.output })
      expect(ended.code).toBe(0)
      expect(existsSync(`${out}.lock`)).toBe(false)
      expect(yield* text(out)).toBe(yield* loneExport())
    }), TIMEOUT)

  for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
    it.live(`${signal} → exit ${code}, one 'interrupted: … --resume' line; --resume ends byte-identical`, () =>
      Effect.gen(function*() {
        const out = join(dir, `${signal}.csv`)
        const apiKey = keys[signal]
        const run = spawnCli(logsArgs(out, apiKey))
        yield* until(() => stateRows(out) > 0)
        run.child.kill(signal)
        const ended = yield* exited(run.child)
        transcript.record({ args: [signal], code: ended.code, signal: ended.signal, ...run.output })
        expect(ended.code).toBe(code)
        const lines = run.output.stderr.split(/\r|\n/).filter((l) => l.startsWith("interrupted:"))
        expect(lines).toHaveLength(1)
        expect(lines[0]).toMatch(/^interrupted: [\d,]+ rows kept; run the same command to continue$/)
        const kept = Number(/interrupted: ([\d,]+)/.exec(lines[0] ?? "")?.[1]?.replace(/,/g, ""))
        expect(kept).toBe(stateRows(out))
        expect(existsSync(out)).toBe(false)
        expect(existsSync(`${out}.lock`)).toBe(false)
        const resumed = succeeded(yield* transcript.cli([...logsArgs(out, apiKey), "--resume"]))
        expect(resumed.stderr).toMatch(/appended [\d,]+ rows? to/)
        expect(yield* text(out)).toBe(yield* loneExport())
      }), TIMEOUT)
  }

  it.live("an existing file explorer-etl did not write is kept unless --force; one it wrote is replaced", () =>
    Effect.gen(function*() {
      const out = join(dir, "precious.csv")
      yield* Effect.promise(() => writeFile(out, "my own data\n"))
      const apiKey = keys.precious
      const refused = yield* transcript.cli(logsArgs(out, apiKey))
      expect(failureOf(refused, "OutputExistsError")).toContain("--force")
      expect(yield* text(out)).toBe("my own data\n")
      expect(yield* requestsWith(sim, apiKey)).toBe(0)
      succeeded(yield* transcript.cli([...logsArgs(out, apiKey), "--force"]))
      expect(yield* text(out)).toBe(yield* loneExport())
      // Written by explorer-etl (its manifest describes it): replaced without --force.
      succeeded(yield* transcript.cli(logsArgs(out, apiKey)))
    }), TIMEOUT)

  it.live("an --out that cannot be written fails before any request", () =>
    Effect.gen(function*() {
      const file = join(dir, "a-file")
      yield* Effect.promise(() => writeFile(file, "x"))
      const apiKey = keys.unwritable
      const result = yield* transcript.cli(logsArgs(join(file, "out.csv"), apiKey))
      expect(failureOf(result, "SinkError")).toContain(file)
      expect(yield* requestsWith(sim, apiKey)).toBe(0)
    }), TIMEOUT)

  it.live("a damaged state file with --resume is one `error SinkError: …` line", () =>
    Effect.gen(function*() {
      const out = join(dir, "damaged.csv")
      yield* Effect.promise(() => writeFile(`${out}.state.json`, "{\"version\": 1, \"phase\": 42}\n"))
      const result = yield* transcript.cli([...logsArgs(out, keys.damaged), "--resume"])
      expect(failureOf(result, "SinkError")).toContain("state file cannot be read")
    }), TIMEOUT)
})

describe("safety: secrets", () => {
  it("no API key appears in any output", () => {
    expect(transcript.leaks(Object.keys(keyPlans))).toEqual([])
  })
})
