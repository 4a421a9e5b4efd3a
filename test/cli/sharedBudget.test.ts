/**
 * One key, several processes: CLI exports started together on one key share its budget through the
 * machine's ledger (a SQLite file per key in the state directory), so the simulator — which enforces
 * the plan's rate per key — answers none of them with a rate limit, and every file is exact. The same
 * exports each with a ledger of its own (a state directory apiece, as without the shared budget) are
 * refused; a library program with the option on shares it with them; the daily cap is counted across
 * processes; a process killed mid-run stalls no one.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Simulator from "../../src/simulator/index.js"
import {
  bin,
  cliEnv,
  cliSuite,
  exited,
  failureOf,
  readCsv,
  repoRoot,
  stateHome,
  succeeded,
  until
} from "./helpers.js"

const TIMEOUT = 240_000
const LOGS = 30_000
const PLAN = "lite" as const
// The simulator runs in this test process and builds each 1,000-log page on its event loop: on a busy
// 2-core machine an arrival during a page is stamped up to ~100 ms late, bunching it with the next
// process's call in its windows. 100 ms of tolerance (the default is 50) keeps that jitter of the
// instrument apart; the test of three exports keeping budgets apart shows it still sees an overrun.
const suite = cliSuite("budget", { dataset: { heavyContractLogs: LOGS }, rateLimitToleranceMs: 100 })

const rateLimitedWith = (key: string) =>
  Effect.map(suite.sim.stats, (s) => s.rateLimitedByKey[Simulator.keyFingerprint(key)] ?? 0)
const requestsWith = (key: string) => Effect.map(suite.sim.stats, (s) => s.byKey[Simulator.keyFingerprint(key)] ?? 0)

/** `export logs` of the heavy contract (about 35 calls) into `out`, the key in the environment. */
const exportArgs = (out: string) => [
  "export", "logs", "--address", suite.sim.dataset.chain(1).heavyContract.address, "--out", out,
  "--base-url", suite.sim.baseUrl, "--plan", PLAN, "--quiet"
]
const run = (key: string, out: string, env: Readonly<Record<string, string>> = {}, extra: ReadonlyArray<string> = []) =>
  suite.transcript.cli([...exportArgs(out), ...extra], { env: { EXPLORER_API_KEY: key, ...env } })

/** The heavy contract's logs as the simulator holds them: the rows every export must write. */
const expectedRows = Effect.suspend(() => Effect.map(
  Effect.orDie(suite.sim.oracle({ chainId: 1, module: "logs", action: "getLogs", params: { address: suite.sim.dataset.chain(1).heavyContract.address } })),
  (records) => records.length
))

describe.sequential("a key's budget shared by the machine's processes", () => {
  const sharedKey = suite.key("shared", PLAN)
  it.live("three exports at once on one key: 0 rate-limit answers, three exact files", () =>
    Effect.gen(function*() {
      const outs = [1, 2, 3].map((i) => join(suite.dir, `shared-${i}.csv`))
      const results = yield* Effect.all(outs.map((out) => run(sharedKey, out)), { concurrency: "unbounded" })
      results.forEach(succeeded)
      expect(yield* rateLimitedWith(sharedKey)).toBe(0)
      const texts = outs.map((out) => readFileSync(out, "utf8"))
      expect(readCsv(texts[0] ?? "").rows.length).toBe(yield* expectedRows)
      expect(texts[1]).toBe(texts[0])
      expect(texts[2]).toBe(texts[0])
      // Each export ran at the key's rate on its own; together they made three times its calls.
      expect(yield* requestsWith(sharedKey)).toBeGreaterThanOrEqual(3 * 30)
      // The ledger is named by a hash of the key and holds nothing of it.
      const ledgers = readdirSync(join(stateHome, "explorer-etl"))
      expect(ledgers).toContainEqual(expect.stringMatching(/^key-budget-[0-9a-f]{16}\.sqlite$/))
      for (const name of ledgers) {
        expect(name).not.toContain(sharedKey)
        expect(readFileSync(join(stateHome, "explorer-etl", name)).includes(sharedKey)).toBe(false)
      }
    }), TIMEOUT)

  const apartKey = suite.key("apart", PLAN)
  it.live("the same three exports each keeping its own budget (a state directory apiece) are refused, as before", () =>
    Effect.gen(function*() {
      const outs = [1, 2, 3].map((i) => join(suite.dir, `apart-${i}.csv`))
      const results = yield* Effect.all(
        outs.map((out) => run(apartKey, out, { XDG_STATE_HOME: mkdtempSync(join(tmpdir(), "explorer-etl-apart-")) })),
        { concurrency: "unbounded" }
      )
      results.forEach(succeeded)
      expect(yield* rateLimitedWith(apartKey)).toBeGreaterThan(0)
      expect(readFileSync(outs[1] ?? "", "utf8")).toBe(readFileSync(outs[0] ?? "", "utf8"))
    }), TIMEOUT)

  const capKey = suite.key("cap", PLAN)
  it.live("the daily cap is counted across processes: a second export stops at the calls the first left", () =>
    Effect.gen(function*() {
      succeeded(yield* run(capKey, join(suite.dir, "cap-1.csv")))
      const first = yield* requestsWith(capKey)
      const result = yield* run(capKey, join(suite.dir, "cap-2.csv"), {}, ["--calls-per-day", String(first + 2)])
      expect(failureOf(result, "RateLimitError")).toMatch(
        new RegExp(`\\(${first + 2} calls today, UTC, counted by this machine's processes for this key; not sent\\)`)
      )
      expect((yield* requestsWith(capKey)) - first).toBe(2)
    }), TIMEOUT)

  const libraryKey = suite.key("library", PLAN)
  it.live("a library program with machineBudget and a CLI export on one key share it: 0 rate-limit answers", () =>
    Effect.gen(function*() {
      const out = join(suite.dir, "library.csv")
      const cli = Effect.runFork(run(libraryKey, out))
      // A user's program in a process of its own (`import { ExplorerClient } from "explorer-etl"`), its
      // calls flat out meanwhile.
      const library = spawn(process.execPath, [
        fileURLToPath(new URL("fixtures/budget-library.mjs", import.meta.url)),
        suite.sim.baseUrl, PLAN, suite.sim.dataset.chain(1).wallets[0]?.address ?? "", "12"
      ], { cwd: repoRoot, env: cliEnv({ EXPLORER_API_KEY: libraryKey }), stdio: ["ignore", "pipe", "inherit"] })
      let printed = ""
      library.stdout?.setEncoding("utf8").on("data", (d: string) => void (printed += d))
      expect((yield* exited(library)).code).toBe(0)
      succeeded(yield* Fiber.join(cli))
      expect(Number(printed.trim())).toBeGreaterThan(10)
      expect(yield* rateLimitedWith(libraryKey)).toBe(0)
      expect(readCsv(readFileSync(out, "utf8")).rows.length).toBe(yield* expectedRows)
    }), TIMEOUT)

  const lateKey = suite.key("late", "standard")
  it.live("a request that leaves its slot late holds back the other process's call a second after it: 0 rate-limit answers", () =>
    Effect.gen(function*() {
      const c = suite.sim.dataset.chain(1)
      const args = [suite.sim.baseUrl, "standard", c.erc20[0]?.address ?? "", c.wallets[0]?.address ?? "", String(c.activity.toBlock), "400"]
      const start = (mode: string) => {
        const child = spawn(process.execPath, [fileURLToPath(new URL("fixtures/budget-late.mjs", import.meta.url)), mode, ...args], {
          cwd: repoRoot,
          env: cliEnv({ EXPLORER_API_KEY: lateKey }),
          stdio: ["pipe", "pipe", "inherit"]
        })
        let printed = ""
        child.stdout?.setEncoding("utf8").on("data", (d: string) => void (printed += d))
        return { child, printed: () => printed }
      }
      // The second program waits, its ledger open; the first one's throttled call takes its slot and is
      // held 400 ms before the wire; then the second makes two throttled calls at once. By slots they
      // would reach the server 521 and 1,042 ms after the first one's slot, the first one at 400 ms:
      // three throttled calls within 642 ms. The ledger learns the late send and holds the third back
      // to a second after it.
      const waiting = start("wait")
      yield* until(() => waiting.printed().includes("ready"))
      const late = start("late")
      yield* until(() => late.printed().includes("holding"))
      waiting.child.stdin?.end("go\n")
      expect((yield* exited(late.child)).code).toBe(0)
      expect((yield* exited(waiting.child)).code).toBe(0)
      expect(late.printed() + waiting.printed()).toMatch(/done[\s\S]*done/)
      expect(yield* rateLimitedWith(lateKey)).toBe(0)
      expect(yield* requestsWith(lateKey)).toBe(3)
    }), TIMEOUT)

  const killKey = suite.key("kill", PLAN)
  it.live("an export killed mid-run stalls no one: the other finishes, exact, with 0 rate-limit answers", () =>
    Effect.gen(function*() {
      const victimOut = join(suite.dir, "kill-victim.csv")
      const victim = spawn(process.execPath, [bin, ...exportArgs(victimOut)], {
        cwd: repoRoot,
        env: cliEnv({ EXPLORER_API_KEY: killKey }),
        stdio: "ignore"
      })
      const survivor = Effect.runFork(run(killKey, join(suite.dir, "kill-survivor.csv")))
      let requests = 0
      yield* until(() => {
        Effect.runPromise(requestsWith(killKey)).then((n) => void (requests = n))
        return requests >= 20
      })
      victim.kill("SIGKILL")
      expect((yield* exited(victim)).signal).toBe("SIGKILL")
      const result = succeeded(yield* Fiber.join(survivor))
      expect(result.code).toBe(0)
      expect(yield* rateLimitedWith(killKey)).toBe(0)
      expect(readCsv(readFileSync(join(suite.dir, "kill-survivor.csv"), "utf8")).rows.length).toBe(yield* expectedRows)
    }), TIMEOUT)
})
