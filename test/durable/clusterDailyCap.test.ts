/**
 * The key's daily cap on a cluster (issue 18), as a user runs it: a real PostgreSQL
 * (test/durable/postgres.ts), the simulator in this process with a daily cap of CAP calls for the key's
 * plan, two `explorer-etl runner` processes on one key told the same cap (`--calls-per-day`), and the
 * submitting `run --cluster`. The runners count the key's calls of the day together in the database
 * (`KeyBudget`): the simulator gets exactly CAP calls of the key and answers "Max daily rate limit
 * reached" to none; every export still running waits for the next 00:00 UTC (a runner prints a line
 * saying so) and `status --cluster` shows the run and those exports waiting until then.
 *
 * Then midnight, which a test cannot wait for: what it changes is changed by hand, each where the
 * cluster reads it — the key's count in the database becomes yesterday's (what the database's clock
 * passing 00:00 UTC makes of it), the engine's stored wake-ups (written for 00:01 UTC) fall due, and
 * the simulator's day moves on (its `now`). The runners' clocks stay real: nothing in them waits for
 * midnight but the stored wake-ups. The run wakes on the runners, ends, and its files are
 * byte-identical to an uncapped run's.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import * as PipelineRun from "../../src/durable/PipelineRun.js"
import { cliSuite, exited, requestsWith, spawnCli, succeeded, until } from "../cli/helpers.js"
import { dataFiles, onDatabase, postgresForFile, startRunner } from "./helpers.js"

/** Calls per UTC day of the key: less than the run needs (24 calls). */
const CAP = 16

/** How far the simulator's clock is ahead of the real one (moved past midnight by the test). */
const ahead = { millis: 0 }
const suite = cliSuite("clustercap", { dailyCaps: { professional: CAP }, now: () => Date.now() + ahead.millis })
const key = suite.key("shared", "professional")
const plainKey = suite.key("plain", "proplus")

const database = postgresForFile()

const apiArgs = () => ["--base-url", suite.sim.baseUrl, "--api-key", key, "--plan", "professional", "--calls-per-day", String(CAP)]

/** A runner process of wallet-history, ready when this succeeds; SIGTERM at the end of the scope. */
const runner = () => startRunner(suite.transcript, "pipelines/wallet-history.ts", database(), apiArgs())

/** `explorer-etl status --cluster`: its lines, from the last run's line on. */
const status = Effect.gen(function*() {
  const lines = succeeded(yield* suite.transcript.cli(["status", "--cluster", database()])).stdout.trimEnd().split("\n")
  const at = lines.reduce((last, line, i) => (line.startsWith("wallet-history\t") ? i : last), -1)
  return lines.slice(at)
})

describe("explorer-etl run --cluster: the daily cap", () => {
  it.live("two runners on one key stop at the cap, unsent past it; the exports wait for 00:01 UTC, status says until when; past it the run wakes and ends byte-identical to an uncapped run", () =>
    Effect.gen(function*() {
      const config = path.join(suite.dir, "wallet-history.config.json")
      writeFileSync(config, JSON.stringify({
        chainId: 1,
        fromBlock: 0,
        wallets: suite.sim.dataset.chain(1).wallets.slice(0, 2).map((w) => ({ name: w.name, address: w.address }))
      }))
      const [a, b] = [yield* runner(), yield* runner()]
      const out = path.join(suite.dir, "capped")
      const submitted = yield* Effect.acquireRelease(
        Effect.sync(() =>
          spawnCli(["run", "pipelines/wallet-history.ts", ...apiArgs(), "--config", config, "--out-dir", out, "--quiet", "--cluster", database()])
        ),
        (s) => Effect.zipRight(Effect.sync(() => s.child.kill("SIGINT")), exited(s.child))
      )

      // Each runner prints a line per export it sends to sleep.
      const noticesNow = () =>
        [a, b].flatMap((r) =>
          r.output.stdout.split("\n").filter((line) => line.startsWith(`127.0.0.1:${r.port} `) && line.includes(": waiting for the daily cap until "))
        )
      // The run comes to rest: every export that has not ended waits for the daily cap, and every
      // export its runner sent to sleep is in the status (an export started just before the others
      // slept meets the cap a moment later).
      const waitingLine = /^wallet-history\trun \S+\twaiting\t/
      const waitingCount = (ls: ReadonlyArray<string>) => ls.filter((line) => line.includes("\twaiting for the daily cap until ")).length
      let lines: ReadonlyArray<string> = []
      for (let i = 0; i < 20 && !(waitingLine.test(lines[0] ?? "") && waitingCount(lines) === noticesNow().length); i++) {
        yield* Effect.sleep("1 second")
        lines = yield* status
      }
      expect(lines[0], [...lines, a.output.stdout, a.output.stderr.slice(-3000), b.output.stdout, b.output.stderr.slice(-3000)].join("\n")).toMatch(waitingLine)
      const metAt = Date.now()
      const wakeUp = new Date(PipelineRun.nextDailyReset(metAt)).toISOString().slice(0, 19).replace("T", " ") + " UTC"
      const waiting = lines.filter((line) => line.includes("\twaiting for the daily cap until "))
      expect(waiting.length).toBeGreaterThan(0)
      for (const line of waiting) {
        expect(line).toMatch(new RegExp(
          // An export's plan (its first page) or its file; its parts, had they been cut.
          `^  (export|plan|part) \\S+( \\d+\\.\\.\\d+)?\\twaiting for the daily cap until ${wakeUp}\\tRateLimitError: .*rate limit \\(day\\): Max daily rate limit reached ` +
            `\\(${CAP} calls today, UTC, counted by the cluster for this key; not sent\\)$`
        ))
      }

      // Exactly the day's calls, none refused by the server, and none after (the exports are asleep).
      expect(yield* requestsWith(suite.sim, key)).toBe(CAP)
      expect((yield* suite.sim.stats).dailyLimited).toBe(0)
      yield* Effect.sleep("1 second")
      expect(yield* requestsWith(suite.sim, key)).toBe(CAP)
      expect(submitted.child.exitCode).toBe(null)

      const notices = noticesNow()
      expect(notices.length, [...lines, ...notices].join("\n")).toBe(waiting.length)
      for (const line of notices) {
        expect(line).toMatch(new RegExp(`^127\\.0\\.0\\.1:\\d+ ${path.resolve(out, "wallet-history")}/\\S+: waiting for the daily cap until ${wakeUp} \\(RateLimitError: .*\\), then continuing$`))
      }

      // The reference: the same run without a cap (another key, a plan the simulator does not cap).
      const plainOut = path.join(suite.dir, "plain")
      succeeded(yield* suite.transcript.cli([
        "run", "pipelines/wallet-history.ts", "--base-url", suite.sim.baseUrl, "--api-key", plainKey, "--plan", "proplus",
        "--config", config, "--out-dir", plainOut, "--quiet", "--no-durable"
      ]))
      const plainCalls = yield* requestsWith(suite.sim, plainKey)

      // Midnight (see the top of the file): the key's count is yesterday's, the wake-ups are due, the
      // simulator's day has moved on.
      const calledBefore = yield* requestsWith(suite.sim, key)
      ahead.millis = PipelineRun.nextDailyReset(metAt) + 1_000 - Date.now()
      yield* onDatabase(database(), (sql) => Effect.gen(function*() {
        yield* sql`UPDATE explorer_etl_key_budget SET day = day - 1`
        const now = Date.now()
        const due = yield* sql`UPDATE cluster_messages SET deliver_at = ${now} WHERE deliver_at > ${now} RETURNING id`
        expect(due.length).toBe(waiting.length)
      }))

      // The runners wake the run: the submitting process prints its result and ends.
      yield* until(() => submitted.child.exitCode !== null, 90_000).pipe(
        Effect.catchAllDefect(() =>
          Effect.dieMessage(`the run did not wake:\n${[a, b].map((r) => r.output.stdout + r.output.stderr.slice(-3000)).join("\n")}`)
        )
      )
      expect(submitted.child.exitCode, submitted.output.stderr).toBe(0)
      const published = dataFiles(path.join(plainOut, "wallet-history"))
      expect(published.length).toBe(14)
      expect(dataFiles(path.join(out, "wallet-history"))).toEqual(published)
      for (const f of published) {
        expect(readFileSync(path.join(out, "wallet-history", f)).equals(readFileSync(path.join(plainOut, "wallet-history", f))), f).toBe(true)
      }
      // Continued from checkpoints: no more calls than the uncapped run, but for the pages the waiting
      // exports fetch again (one each at most); and none refused by the server on the new day either.
      const calledAfter = (yield* requestsWith(suite.sim, key)) - calledBefore
      expect(calledAfter).toBeGreaterThan(0)
      expect(CAP + calledAfter).toBeLessThanOrEqual(plainCalls + waiting.length)
      expect((yield* suite.sim.stats).dailyLimited).toBe(0)
      const done = yield* status
      expect(done[0]).toMatch(/^wallet-history\trun \S+\tdone\t14\/14 exports done, /)
    }).pipe(Effect.scoped), 240_000)
})
