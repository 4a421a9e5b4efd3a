/**
 * Crash and resume through the CLI, as a user runs it: `explorer-etl export logs …` against the
 * simulator (rate limits on, some latency, a few injected faults) is killed with SIGKILL at points drawn
 * from a seeded RNG, then run again with `--resume`: the file must be byte-identical to what an
 * uninterrupted export writes (the oracle's rows written by the sinks). Every captured stdout and stderr
 * — of the killed runs, the resumed runs and of runs that fail on purpose — and every file written is
 * searched for the API key.
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Schemas from "../../src/schemas/index.js"
import * as Simulator from "../../src/simulator/index.js"
import * as Sources from "../../src/streams/Sources.js"
import { allKeys, clientLayer, expectedFile, keys, plantedBlocks, rng, rowsOf, simulatorKeys } from "./helpers.js"

const bin = fileURLToPath(new URL("../../bin/explorer-etl.js", import.meta.url))
const repoRoot = fileURLToPath(new URL("../../", import.meta.url))

const CHAIN = 42161
const FROM = 9_000_000
const TO = FROM + 5_000
const CONTRACT = "0x00000000000000000000000000000000fa17c111"
/** About 10,000 logs in blocks of at most 600: eleven pages at the free plan's 3 calls/s, ~4 s. */
const rowsPerBlock = plantedBlocks(21, FROM, 40, 500)

const SimulatorLive = Simulator.layer({
  seed: 3,
  keys: simulatorKeys,
  dailyCaps: false,
  faults: { seed: 9, latency: { fixedMs: 15, jitterMs: 10 }, rates: { http503: 0.03, reset: 0.02 } },
  dataset: { chains: [], scenarios: [{ chainId: CHAIN, kind: "logs", address: CONTRACT, rowsPerBlock }] }
})

/** One CLI run and what it printed. */
interface Run {
  readonly args: ReadonlyArray<string>
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}
const runs: Array<Run> = []

/** The CLI's environment: this process's, without any key. */
const env = (): NodeJS.ProcessEnv => {
  const e: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" }
  for (const name of Object.keys(e)) if (name.startsWith("EXPLORER_") || name === "ETHERSCAN_API_KEY") delete e[name]
  return e
}

/** Starts `explorer-etl <args>`; `done` resolves when it exits, with everything it printed. */
const start = (args: ReadonlyArray<string>) => {
  const child: ChildProcess = spawn(process.execPath, [bin, ...args], { cwd: repoRoot, env: env(), stdio: ["ignore", "pipe", "pipe"] })
  let stdout = ""
  let stderr = ""
  child.stdout?.on("data", (d: Buffer) => void (stdout += d.toString()))
  child.stderr?.on("data", (d: Buffer) => void (stderr += d.toString()))
  const done = Effect.async<Run>((resume) => {
    const finish = () => {
      const run: Run = { args, code: child.exitCode, signal: child.signalCode, stdout, stderr }
      runs.push(run)
      resume(Effect.succeed(run))
    }
    if (child.exitCode !== null || child.signalCode !== null) finish()
    else child.once("close", finish)
    return Effect.sync(() => void child.kill("SIGKILL"))
  })
  return { child, done }
}

const dir = mkdtempSync(path.join(tmpdir(), "explorer-etl-kill-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const exportArgs = (sim: Simulator.Simulator.Service, out: string, key: string = keys.free) => [
  "export", "logs",
  "--address", CONTRACT,
  "--chain", String(CHAIN),
  "--from-block", String(FROM),
  "--to-block", String(TO),
  "--out", out,
  "--base-url", sim.baseUrl,
  "--api-key", key,
  "--plan", "free"
]

describe("SIGKILL at random points, then --resume, through the CLI", () => {
  layer(Layer.merge(SimulatorLive, NodeContext.layer), { timeout: "150 seconds", excludeTestServices: true })((it) => {
    it.effect("the resumed file is byte-identical to an uninterrupted export, wherever the kill lands", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const records = yield* sim.oracle({ chainId: CHAIN, module: "logs", action: "getLogs", params: { address: CONTRACT } })
        expect(records.length).toBe(rowsOf(rowsPerBlock))
        const source = yield* Sources.logs({ chainId: CHAIN, address: CONTRACT, fromBlock: FROM, toBlock: TO }).pipe(
          Effect.provide(clientLayer(sim, "free").pipe(Layer.provide(NodeHttpClient.layerUndici)))
        )
        const expected = yield* expectedFile(records, Schemas.Log, source.schema, "csv")

        const next = rng(20261122)
        let killedMidway = 0
        for (let k = 0; k < 3; k++) {
          const out = path.join(dir, `logs-${k}.csv`)
          const before = (yield* sim.stats).byOperation["logs/getLogs"] ?? 0
          const run = start(exportArgs(sim, out))
          // From its first page on, the export runs ~4 s: kill it somewhere in there.
          while (((yield* sim.stats).byOperation["logs/getLogs"] ?? 0) === before && run.child.exitCode === null) {
            yield* Effect.sleep("20 millis")
          }
          yield* Effect.sleep(Math.floor(next() * 3_500))
          const alive = run.child.exitCode === null
          run.child.kill("SIGKILL")
          const killed = yield* run.done
          if (alive && killed.signal === "SIGKILL") killedMidway++
          expect(existsSync(out) && killed.signal === "SIGKILL").toBe(false)

          const resumed = yield* start([...exportArgs(sim, out), "--resume"]).done
          expect(resumed.code, resumed.stderr).toBe(0)
          expect(readFileSync(out, "utf8")).toBe(expected)
          const manifest = JSON.parse(readFileSync(`${out}.manifest.json`, "utf8")) as { rows: number; completeness: { status: string } }
          expect(manifest).toMatchObject({ rows: records.length, completeness: { status: "complete" } })
        }
        expect(killedMidway).toBeGreaterThanOrEqual(2)
      }), 150_000) // three exports and their resumes, ~30 s on a quiet machine: over 60 s on a loaded one

    it.effect("failing runs print the reason, never the key", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        // A key the explorer does not know.
        const unknownKey = "FAULTUNKNOWN0Z9Y8X7W6V5U4T3S2R1Q0P"
        const refused = yield* start(exportArgs(sim, path.join(dir, "refused.csv"), unknownKey)).done
        expect(refused.code).not.toBe(0)
        expect(refused.stderr).toMatch(/invalid api key/i)
        expect(refused.stderr + refused.stdout).not.toContain(unknownKey)
        // Every answer an HTML page, and no retries: the export fails at once.
        yield* sim.setFaults({ seed: 1, rates: { html: 1 } })
        const failed = yield* start([...exportArgs(sim, path.join(dir, "failed.csv")), "--retries", "0"]).done
        yield* sim.setFaults({})
        expect(failed.code).not.toBe(0)
        expect(failed.stderr).toMatch(/html/i)
      }))

    it.effect("no key in any output of any run, nor in any file written", () =>
      Effect.sync(() => {
        expect(runs.length).toBeGreaterThanOrEqual(8)
        for (const run of runs) {
          for (const key of allKeys) {
            expect(run.stdout.includes(key), `stdout of ${run.args.join(" ")}`).toBe(false)
            expect(run.stderr.includes(key), `stderr of ${run.args.join(" ")}`).toBe(false)
          }
        }
        const files = readdirSync(dir)
        expect(files.some((f) => f.endsWith(".manifest.json"))).toBe(true)
        for (const file of files) {
          const text = readFileSync(path.join(dir, file), "utf8")
          for (const key of allKeys) expect(text.includes(key), `${key} in ${file}`).toBe(false)
        }
      }))
  })
})
