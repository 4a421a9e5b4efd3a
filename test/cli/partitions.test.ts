/**
 * Partitioned exports through the CLI against a simulator that answers late (issue 14): the file is
 * byte-identical to the one-cursor export (`--concurrency 1`), the simulator never refuses a call for
 * its rate, and a SIGKILL at random moments followed by `--resume` ends with the same bytes without
 * reading again the rows the checkpoint's spools hold.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { cliSuite, exited, requestsWith, spawnCli, succeeded, until } from "./helpers.js"

const TIMEOUT = 240_000

// 100–250 ms an answer: one cursor makes a handful of calls a second, partitions fill the 10/s.
const suite = cliSuite("p", { dataset: { heavyContractLogs: 20_000 }, faults: { latency: { fixedMs: 100, jitterMs: 150 } } })
const { transcript } = suite
const keys = {
  one: suite.key("one"),
  many: suite.key("many"),
  kill0: suite.key("kill0"),
  kill1: suite.key("kill1"),
  kill2: suite.key("kill2")
}

const logsArgs = (out: string, apiKey: string) => {
  const c = suite.sim.dataset.chain(1)
  return [
    "export", "logs", "--address", c.heavyContract.address, "--from-block", String(c.activity.fromBlock),
    "--to-block", String(c.latestBlock), "--out", out, "--base-url", suite.sim.baseUrl, "--api-key", apiKey, "--plan", "standard"
  ]
}

let reference: string | undefined
const oneCursor = Effect.gen(function*() {
  if (reference !== undefined) return reference
  const out = join(suite.dir, "one.csv")
  succeeded(yield* transcript.cli([...logsArgs(out, keys.one), "--concurrency", "1"]))
  reference = readFileSync(out, "utf8")
  return reference
})

interface State {
  readonly rows: number
  readonly partitions?: ReadonlyArray<{ readonly rows: number; readonly spoolBytes: number; readonly spoolFile: string }>
}
const stateOf = (out: string): State | undefined => {
  try {
    return JSON.parse(readFileSync(`${out}.state.json`, "utf8")) as State
  } catch {
    return undefined
  }
}

describe("partitioned exports through the CLI", () => {
  it.live("equal the one-cursor file, with no rate-limit answer and about as many calls", () =>
    Effect.gen(function*() {
      const expected = yield* oneCursor
      const out = join(suite.dir, "many.csv")
      const result = succeeded(yield* transcript.cli(logsArgs(out, keys.many)))
      expect(readFileSync(out, "utf8")).toBe(expected)
      expect(result.stderr).toMatch(/wrote 20,000 rows/)
      const one = yield* requestsWith(suite.sim, keys.one)
      const many = yield* requestsWith(suite.sim, keys.many)
      expect(many).toBeLessThanOrEqual(Math.ceil(one * 1.3) + 4)
      expect((yield* suite.sim.stats).rateLimited).toBe(0)
      // Nothing but the file and its manifest is left.
      expect(readdirSync(suite.dir).filter((n) => n.startsWith(".many"))).toEqual([])
    }), TIMEOUT)

  for (const [i, kill] of [keys.kill0, keys.kill1, keys.kill2].entries()) {
    it.live(`SIGKILL at a random moment (${i + 1}), then --resume: byte-identical, spooled rows not read again`, () =>
      Effect.gen(function*() {
        const expected = yield* oneCursor
        const out = join(suite.dir, `kill${i}.csv`)
        const run = spawnCli(logsArgs(out, kill))
        // Once partitions are under way, wait a random while longer and kill.
        yield* until(() => (stateOf(out)?.partitions?.length ?? 0) > 0)
        yield* Effect.sleep(Math.floor(Math.random() * 1_500))
        run.child.kill("SIGKILL")
        const ended = yield* exited(run.child)
        transcript.record({ args: [`kill${i}`], code: ended.code, signal: ended.signal, ...run.output })
        if (ended.signal !== "SIGKILL") return expect(readFileSync(out, "utf8")).toBe(expected)
        const state = stateOf(out)
        expect(state).toBeDefined()
        const kept = (state?.rows ?? 0) + (state?.partitions ?? []).reduce((n, p) => n + p.rows, 0)
        for (const p of state?.partitions ?? []) expect(existsSync(join(suite.dir, p.spoolFile))).toBe(true)
        const resumed = succeeded(yield* transcript.cli([...logsArgs(out, kill), "--resume"]))
        expect(readFileSync(out, "utf8")).toBe(expected)
        // The run after the kill wrote only what the checkpoint did not hold.
        const appended = Number(/appended ([\d,]+) rows?/.exec(resumed.stderr)?.[1]?.replace(/,/g, ""))
        expect(appended).toBe(20_000 - kept)
        expect(readdirSync(suite.dir).filter((n) => n.startsWith(`.kill${i}`))).toEqual([])
        expect((yield* suite.sim.stats).rateLimited).toBe(0)
      }), TIMEOUT)
  }

})
