/**
 * The key's daily cap in a durable run (issue 18): an export that meets "Max daily rate limit reached"
 * does not fail the run; it sleeps (`DurableClock`) until the next 00:00 UTC plus a minute, then
 * continues from its checkpoint.
 *
 * Waiting for a real midnight is impossible in a test. What is tested, and how:
 * - the wake-up time: `nextDailyReset`, the one function that decides it, on its own;
 * - the wait and the wake-up, end to end, in this process: `PipelineRun.run` (the embedded engine on
 *   SQLite, as `run` runs it) under a Clock of the test's — the real clock plus an offset the
 *   test moves (`shiftedClock`; Effect's `Clock` service, which the engine reads: `DurableClock`'s wake-up
 *   is `DateTime.now` plus the duration, and the message storage delivers a `DeliverAt` message once
 *   its clock passes it) — and the simulator on the same shifted time (its `now` option), so its daily
 *   count resets when the test moves past midnight. Timers stay real: moving the offset does not fire
 *   them, the engine's storage poll (every 10 s) finds the due wake-up as it would at midnight.
 *   TestClock was not used: the engine, the key's limiter and the HTTP calls all sleep, and every one
 *   of their sleeps would need driving by hand.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, Fiber, Layer, Redacted } from "effect"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import walletHistory from "../../pipelines/wallet-history.js"
import * as PipelineRun from "../../src/durable/PipelineRun.js"
import * as Status from "../../src/durable/Status.js"
import * as Pipeline from "../../src/Pipeline.js"
import * as Simulator from "../../src/simulator/index.js"
import { madeUpKey, makeTempDir, removeDir } from "../cli/helpers.js"
import { dataFiles } from "./helpers.js"

const DAY = 86_400_000
const at = (iso: string) => Date.parse(iso)

describe("nextDailyReset: when an export that met the daily cap starts again", () => {
  it("the next 00:00 UTC plus a minute", () => {
    expect(PipelineRun.nextDailyReset(at("2026-11-24T15:00:00Z"))).toBe(at("2026-11-25T00:01:00Z"))
    expect(PipelineRun.nextDailyReset(at("2026-11-24T00:01:00Z"))).toBe(at("2026-11-25T00:01:00Z"))
    expect(PipelineRun.nextDailyReset(at("2026-11-24T23:59:59.999Z"))).toBe(at("2026-11-25T00:01:00Z"))
    expect(PipelineRun.nextDailyReset(at("2026-12-31T12:00:00Z"))).toBe(at("2027-01-01T00:01:00Z"))
    expect(Duration.toMillis(PipelineRun.DAILY_RESET_MARGIN)).toBe(60_000)
  })
  it("met within the minute after midnight (this clock ahead of the server's): that same midnight's minute", () => {
    expect(PipelineRun.nextDailyReset(at("2026-11-25T00:00:00Z"))).toBe(at("2026-11-25T00:01:00Z"))
    expect(PipelineRun.nextDailyReset(at("2026-11-25T00:00:59.999Z"))).toBe(at("2026-11-25T00:01:00Z"))
  })
  it("always later than now, at most a day and the margin away", () => {
    for (let now = at("2026-11-24T00:00:00Z"); now < at("2026-11-26T00:00:00Z"); now += 7 * 60_000 + 13) {
      const next = PipelineRun.nextDailyReset(now)
      expect(next).toBeGreaterThan(now)
      expect(next - now).toBeLessThanOrEqual(DAY + 60_000)
      expect(next % DAY).toBe(60_000)
    }
  })
})

/** The real clock plus `offset.millis`: sleeps are real, the time read is moved. */
const shiftedClock = (offset: { millis: number }): Clock.Clock => {
  const live = Clock.make()
  const millis = () => live.unsafeCurrentTimeMillis() + offset.millis
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: millis,
    currentTimeMillis: Effect.sync(millis),
    unsafeCurrentTimeNanos: () => BigInt(millis()) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(millis()) * 1_000_000n),
    sleep: (duration) => live.sleep(duration)
  }
}

/** Calls per UTC day of the capped key's plan on the simulator: about two thirds of the run's calls. */
const CAP = 16

describe("PipelineRun: the daily cap", () => {
  it.live("the run sleeps until 00:01 UTC, survives a restart while asleep, wakes and ends byte-identical to an uncapped run", () =>
    Effect.gen(function*() {
      const offset = { millis: 0 }
      const clock = shiftedClock(offset)
      const dir = yield* Effect.acquireRelease(Effect.promise(() => makeTempDir("daily-cap-")), (d) => Effect.promise(() => removeDir(d)))
      // The capped key's plan (professional) has a daily cap of CAP; the reference run's (proplus) keeps its own.
      const cappedKey = madeUpKey("dailycapcapped")
      const plainKey = madeUpKey("dailycapplain")
      const sim = yield* Simulator.make({
        keys: { [cappedKey]: "professional", [plainKey]: "proplus" },
        dailyCaps: { professional: CAP },
        now: () => Date.now() + offset.millis
      })
      const client = (key: string, plan: "professional" | "proplus") =>
        Layer.merge(Pipeline.explorerLayer({ apiKey: Redacted.make(key), baseUrl: sim.baseUrl, plan }), NodeContext.layer)
      const requests = (key: string) => Effect.map(sim.stats, (s) => s.byKey[Simulator.keyFingerprint(key)] ?? 0)
      const config = walletHistory.demoConfig(sim.dataset)

      // The reference: today's plain run, no cap in its way.
      const plainOut = path.join(dir, "plain")
      yield* Pipeline.run(walletHistory, config, { outDir: plainOut, quiet: true }).pipe(Effect.provide(client(plainKey, "proplus")))
      const plainCalls = yield* requests(plainKey)
      // The cap is met once, not twice: the run needs more than a day's calls, less than two.
      expect(plainCalls).toBeGreaterThan(CAP)
      expect(plainCalls).toBeLessThan(CAP * 2 - 4)

      const out = path.join(dir, "durable")
      const pipelineDir = path.join(out, "wallet-history")
      const durableRun = PipelineRun.run(walletHistory, config, { outDir: out, quiet: true }).pipe(
        Effect.provide(client(cappedKey, "professional")),
        Effect.withClock(clock)
      )
      const journal = path.join(pipelineDir, ".durable", "journal.sqlite")
      const status = Status.readJournal(journal).pipe(
        Effect.orDie,
        Effect.map((runs) => runs.at(-1))
      )
      /** Polls `status` (every 100 ms) until `check` holds. */
      const until = (check: (run: Status.RunStatus | undefined) => boolean) =>
        Effect.gen(function*() {
          for (let i = 0; i < 600; i++) {
            const run = yield* Effect.catchAllCause(status, () => Effect.succeed(undefined))
            if (check(run)) return run
            yield* Effect.sleep("100 millis")
          }
          return yield* Effect.dieMessage("timed out waiting for the run's status")
        })

      const first = yield* Effect.fork(durableRun)
      const asleep = yield* until((run) => run?.state === "waiting")
      const metAt = Date.now() + offset.millis
      const dailyLimited = (yield* sim.stats).dailyLimited
      // The server's cap, met: the key's CAP calls let through, the call past it answered "Max daily…".
      expect(dailyLimited).toBeGreaterThan(0)
      expect((yield* requests(cappedKey)) - dailyLimited).toBe(CAP)
      const waiting = (asleep?.activities ?? []).filter((a) => a.state === "waiting")
      expect(waiting.length).toBeGreaterThan(0)
      const wakeUp = PipelineRun.nextDailyReset(metAt)
      for (const a of waiting) {
        expect(a.until).toBe(wakeUp)
        expect(a.error).toMatch(/^RateLimitError: \S+ on chain 1: rate limit \(day\): Max daily rate limit reached$/)
      }
      const lines = Status.describe(asleep as Status.RunStatus)
      expect(lines[0]).toMatch(/^wallet-history\trun \S+\twaiting\t/)
      expect(lines).toContainEqual(expect.stringMatching(
        new RegExp(`^  export \\S+\\twaiting for the daily cap until ${new Date(wakeUp).toISOString().slice(0, 19).replace("T", " ")} UTC\\t`)
      ))

      // Stopped while asleep (the engine and its timers gone, as with Ctrl-C or a kill) and started again
      // before the wake-up: it waits, sending nothing.
      yield* Fiber.interrupt(first)
      const callsBefore = yield* requests(cappedKey)
      const second = yield* Effect.fork(durableRun)
      yield* Effect.sleep("1 second")
      expect((yield* status)?.state).toBe("waiting")
      expect(yield* requests(cappedKey)).toBe(callsBefore)

      // Past the wake-up (the simulator's new day too): the process wakes the run by itself and it ends.
      offset.millis += wakeUp + 1_000 - (Date.now() + offset.millis)
      const summaries = yield* Fiber.join(second)
      expect(summaries.length).toBe(14)

      // Byte-identical to the uncapped run, and continued from checkpoints: no more calls let through
      // than the uncapped run made, but for the pages the waiting exports fetch again (one each at most).
      const published = dataFiles(path.join(plainOut, "wallet-history"))
      expect(published.length).toBe(14)
      expect(dataFiles(pipelineDir)).toEqual(published)
      for (const f of published) {
        expect(readFileSync(path.join(pipelineDir, f)).equals(readFileSync(path.join(plainOut, "wallet-history", f))), f).toBe(true)
      }
      const stats = yield* sim.stats
      const letThrough = (yield* requests(cappedKey)) - stats.dailyLimited
      expect(letThrough).toBeLessThanOrEqual(plainCalls + waiting.length)
      const after = yield* status
      expect(after?.state).toBe("done")
      for (const a of waiting) {
        expect(after?.activities.find((x) => x.name === a.name)).toMatchObject({ state: "done", attempts: 2 })
      }
    }).pipe(Effect.scoped), 120_000)
})
