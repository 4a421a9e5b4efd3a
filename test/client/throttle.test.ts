import { describe, expect, it } from "@effect/vitest"
import { Chunk, Clock, Effect, Exit, Fiber, Option, Schedule, Scope, TestClock } from "effect"
import { DEFAULT_SAFETY_MARGIN } from "../../src/Config.js"
import * as Plan from "../../src/Plan.js"
import * as Throttle from "../../src/Throttle.js"
import { drive, freshKey, maxInWindow } from "./helpers.js"

const options = (callsPerSecond: number, throttledPerSecond = 2, key = freshKey("THROTTLE")): Throttle.Options => ({
  apiUrl: "https://explorer.test/v2/api",
  apiKey: Option.some(key),
  callsPerSecond,
  throttledPerSecond,
  safetyMargin: DEFAULT_SAFETY_MARGIN
})

/** Starts `n` fibers at once, each acquiring one slot; returns the TestClock time of every slot. */
const burst = (throttle: Throttle.Throttle, kinds: ReadonlyArray<boolean>) =>
  Effect.forEach(
    kinds,
    (throttled) => Effect.zipRight(throttle.acquire(throttled), Effect.map(Clock.currentTimeMillis, (at) => ({ at, throttled }))),
    { concurrency: "unbounded" }
  )

/** Calls per second over the whole run: (n − 1) gaps over the time from first to last. */
const achievedRate = (times: ReadonlyArray<number>) => {
  const sorted = [...times].sort((a, b) => a - b)
  return ((sorted.length - 1) * 1000) / ((sorted.at(-1) ?? 0) - (sorted[0] ?? 0))
}

describe("Throttle", () => {
  for (const plan of Plan.plans) {
    const rate = Plan.limits[plan].callsPerSecond
    it.scoped(`${plan}: ${rate} calls/s flat out from 50 fibers: never more than ${rate} in any second, ≥ 95 % used`, () =>
      Effect.gen(function*() {
        const throttle = yield* Throttle.make(options(rate))
        const exit = yield* drive(burst(throttle, Array.from({ length: 50 }, () => false)))
        const times = Exit.getOrElse(exit, () => []).map((s) => s.at)
        expect(times).toHaveLength(50)
        expect(maxInWindow(times, 1000)).toBeLessThanOrEqual(rate)
        expect(achievedRate(times)).toBeGreaterThanOrEqual(0.95 * rate)
        expect(achievedRate(times)).toBeLessThan(rate)
      }))
  }

  it.scoped("throttled operations flat out: ≤ 2 per second, ≥ 95 % of 2/s used", () =>
    Effect.gen(function*() {
      const throttle = yield* Throttle.make(options(10))
      const exit = yield* drive(burst(throttle, Array.from({ length: 30 }, () => true)))
      const times = Exit.getOrElse(exit, () => []).map((s) => s.at)
      expect(times).toHaveLength(30)
      expect(maxInWindow(times, 1000)).toBeLessThanOrEqual(2)
      expect(achievedRate(times)).toBeGreaterThanOrEqual(0.95 * 2)
    }))

  it.scoped("throttled operations mixed with plain calls: ≤ 2 per second among themselves, plan rate overall", () =>
    Effect.gen(function*() {
      const throttle = yield* Throttle.make(options(10))
      const kinds = Array.from({ length: 90 }, (_, i) => i % 3 === 0)
      const exit = yield* drive(burst(throttle, kinds))
      const slots = Exit.getOrElse(exit, () => [])
      expect(slots).toHaveLength(90)
      expect(maxInWindow(slots.filter((s) => s.throttled).map((s) => s.at), 1000)).toBeLessThanOrEqual(2)
      expect(maxInWindow(slots.map((s) => s.at), 1000)).toBeLessThanOrEqual(10)
    }))

  it.scoped("a pause holds every caller of the key until it is over, then resumes evenly", () =>
    Effect.gen(function*() {
      const throttle = yield* Throttle.make(options(10))
      yield* throttle.pause("1 second")
      const exit = yield* drive(burst(throttle, Array.from({ length: 12 }, () => false)))
      const times = Exit.getOrElse(exit, () => []).map((s) => s.at)
      expect(Math.min(...times)).toBeGreaterThanOrEqual(1000)
      expect(maxInWindow(times, 1000)).toBeLessThanOrEqual(10)
    }))

  it.effect("one limiter per (URL, key) in the process: built twice, shared; released with the last user", () =>
    Effect.gen(function*() {
      const key = freshKey("SHARED")
      const before = yield* Throttle.activeCount
      const scopeA = yield* Scope.make()
      const scopeB = yield* Scope.make()
      const a = yield* Scope.extend(Throttle.make(options(3, 2, key)), scopeA)
      const b = yield* Scope.extend(Throttle.make(options(3, 2, key)), scopeB)
      const other = yield* Scope.extend(Throttle.make(options(3, 2, freshKey("OTHER"))), scopeB)
      expect(a).toBe(b)
      expect(other).not.toBe(a)
      expect(yield* Throttle.activeCount).toBe(before + 2)
      // two "clients" of the same key, flat out together, stay under the key's rate
      const exit = yield* drive(
        Effect.all([burst(a, Array.from({ length: 20 }, () => false)), burst(b, Array.from({ length: 20 }, () => false))], {
          concurrency: "unbounded"
        })
      )
      const times = Exit.getOrElse(exit, () => [[], []]).flat().map((s) => s.at)
      expect(times).toHaveLength(40)
      expect(maxInWindow(times, 1000)).toBeLessThanOrEqual(3)
      yield* Scope.close(scopeA, Exit.void)
      expect(yield* Throttle.activeCount).toBe(before + 2)
      yield* Scope.close(scopeB, Exit.void)
      expect(yield* Throttle.activeCount).toBe(before)
    }))

  it("spacing includes the safety margin, in fractions of a millisecond", () => {
    expect(DEFAULT_SAFETY_MARGIN).toBe(0.04)
    expect(Throttle.intervalMillis(3, 0.04)).toBeCloseTo(347.222, 3)
    expect(Throttle.intervalMillis(2, 0.04)).toBeCloseTo(520.833, 3)
    expect(Throttle.intervalMillis(30, 0.04)).toBeCloseTo(34.722, 3)
    expect(Throttle.intervalMillis(2, 0)).toBe(500)
  })

  for (const [rate, throttled] of [[3, false], [30, false], [10, true]] as const) {
    const lane = throttled ? "the throttled lane (2/s)" : `${rate}/s`
    const allowed = throttled ? 2 : rate
    it.scoped(`${lane}, default margin: every ${allowed} + 1 starts span ≥ 1,038 ms, and 96 % of the rate is used`, () =>
      Effect.gen(function*() {
        const throttle = yield* Throttle.make(options(rate))
        const exit = yield* drive(burst(throttle, Array.from({ length: 40 }, () => throttled)))
        const times = Exit.getOrElse(exit, () => []).map((s) => s.at).sort((a, b) => a - b)
        expect(times).toHaveLength(40)
        const spans = times.slice(allowed).map((t, i) => t - (times[i] as number))
        expect(Math.min(...spans)).toBeGreaterThanOrEqual(1038)
        expect(achievedRate(times) / allowed).toBeGreaterThanOrEqual(0.959)
      }))
  }

  it.effect("the lanes' Schedule plans each next start from the planned one, in fractions of a millisecond", () =>
    Effect.gen(function*() {
      const spacing = Throttle.intervalMillis(3, DEFAULT_SAFETY_MARGIN)
      // Stepped at the starts it asks for (0, then each plan rounded up to the next whole millisecond).
      const plans = Chunk.toReadonlyArray(yield* Schedule.run(Throttle.starts(spacing, 3), 0, [1, 2, 3, 4]))
      expect(plans.map((p) => Math.round(p * 10) / 10)).toEqual([344.2, 691.4, 1038.7, 1385.9])
      // A late start (a caller after an idle spell) makes up at most the allowance, then plans evenly.
      const late = Chunk.toReadonlyArray(yield* Schedule.run(Throttle.starts(spacing, 3), 5_000, [1, 2]))
      expect(late.map((p) => Math.round(p * 10) / 10)).toEqual([5344.2, 5691.4])
    }))

  for (const lane of ["key", "throttled"] as const) {
    it.scoped(`${lane} lane: a request that left late holds back the start a second of calls after it, not the ones between`, () =>
      Effect.gen(function*() {
        const rate = lane === "key" ? 3 : 2
        const throttle = yield* Throttle.make(options(lane === "key" ? 3 : 10))
        const throttled = lane === "throttled"
        const exit = yield* drive(Effect.gen(function*() {
          // Every caller sends as soon as it is started, but the first one's request leaves 150 ms late.
          const first = yield* throttle.acquire(throttled)
          const rest = yield* Effect.fork(Effect.forEach(Array.from({ length: rate + 2 }), () =>
            Effect.flatMap(throttle.acquire(throttled), (ticket) => Effect.as(Throttle.sent(ticket), ticket.sentAt))))
          yield* Effect.sleep("150 millis")
          yield* Throttle.sent(first)
          return [first.sentAt, ...(yield* Fiber.join(rest))]
        }))
        const sends = Exit.getOrElse(exit, () => [])
        const spacing = Throttle.intervalMillis(rate, DEFAULT_SAFETY_MARGIN)
        // The calls between go on the plan; the one `rate` starts after the late one waits for it.
        for (let i = 1; i < rate; i++) expect(sends[i]).toBeLessThanOrEqual(Math.ceil(i * spacing))
        expect(sends[rate]).toBe(Math.ceil(150 + (rate * 1000) / (rate * (1 - DEFAULT_SAFETY_MARGIN / 2))))
        // As sent: never more than `rate` in a second and a little (the server's window is a second).
        expect(maxInWindow(sends, 1020)).toBeLessThanOrEqual(rate)
        // ...and the plan resumes from the late start, evenly.
        expect((sends[rate + 1] ?? 0) - (sends[rate] ?? 0)).toBeGreaterThanOrEqual(spacing - 3)
      }))
  }

  it.scoped("an idle key starts a caller at once; a busy one at the planned start", () =>
    Effect.gen(function*() {
      const throttle = yield* Throttle.make(options(3))
      const startOne = Effect.zipRight(throttle.acquire(false), Clock.currentTimeMillis)
      const exit = yield* drive(Effect.gen(function*() {
        const first = yield* startOne
        yield* Effect.sleep("5 seconds")
        const afterIdle = yield* startOne
        const busy = yield* Effect.all([startOne, startOne], { concurrency: "unbounded" })
        return [first, afterIdle, ...busy]
      }))
      expect(Exit.getOrElse(exit, () => [])).toEqual([0, 5_000, 5_345, 5_692])
    }))

  it.scoped("a caller that gives up while waiting leaves its turn to the next one", () =>
    Effect.gen(function*() {
      const throttle = yield* Throttle.make(options(3))
      yield* throttle.acquire(false)
      const givesUp = yield* Effect.fork(throttle.acquire(false))
      const next = yield* Effect.fork(Effect.zipRight(throttle.acquire(false), Clock.currentTimeMillis))
      yield* TestClock.adjust("100 millis")
      yield* Fiber.interrupt(givesUp)
      yield* TestClock.adjust("245 millis")
      expect(yield* Fiber.join(next)).toBe(345)
    }))

  it.scoped("a pause extended while callers wait holds them until its new end", () =>
    Effect.gen(function*() {
      const throttle = yield* Throttle.make(options(10))
      yield* throttle.pause("1 second")
      const exit = yield* drive(Effect.gen(function*() {
        const waiting = yield* Effect.fork(burst(throttle, [false, true, false]))
        yield* Effect.sleep("500 millis")
        yield* throttle.pause("1 second")
        return yield* Fiber.join(waiting)
      }))
      const times = Exit.getOrElse(exit, () => []).map((s) => s.at)
      expect(times).toHaveLength(3)
      expect(Math.min(...times)).toBe(1_500)
    }))

  it.effect("once released, a caller still waiting is interrupted, not left hanging", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const throttle = yield* Scope.extend(Throttle.make(options(3)), scope)
      yield* throttle.acquire(false)
      const waiting = yield* Effect.fork(throttle.acquire(false))
      yield* TestClock.adjust("1 millis")
      yield* Scope.close(scope, Exit.void)
      expect(Exit.isInterrupted(yield* Fiber.await(waiting))).toBe(true)
    }))

  it.effect("priorities: the lowest level waiting goes first, in order within a level; a level lowered while waiting counts", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const throttle = yield* Scope.extend(Throttle.make(options(10)), scope)
      // The first slot is taken: everyone after waits, in the order below.
      yield* throttle.acquire(false)
      const order: Array<string> = []
      const asks: Array<readonly [string, Throttle.Priority | undefined]> = [
        ["guess-a", { level: 2 }],
        ["ahead-a", { level: 1 }],
        ["guess-b", { level: 2 }],
        ["needed-a", undefined],
        ["ahead-b", { level: 1 }],
        ["needed-b", { level: 0 }]
      ]
      const fibers: Array<Fiber.RuntimeFiber<void>> = []
      for (const [name, priority] of asks) {
        fibers.push(yield* Effect.fork(Effect.zipRight(throttle.acquire(false, priority), Effect.sync(() => void order.push(name)))))
        yield* TestClock.adjust("0 millis")
      }
      // guess-b turns out needed while it waits: it goes with the needed ones, in the order it came.
      const promoted = asks[2]?.[1]
      if (promoted !== undefined) promoted.level = 0
      // A caller that gives up leaves its turn.
      yield* Fiber.interrupt(fibers[4] as Fiber.RuntimeFiber<void>)
      yield* TestClock.adjust("1 second")
      expect(order).toEqual(["guess-b", "needed-a", "needed-b", "ahead-a", "guess-a"])
      yield* Scope.close(scope, Exit.void)
    }))

  it("the registry never holds the key", () => {
    const fp = Throttle.fingerprint(Option.some(freshKey("FPKEY")))
    expect(fp).toMatch(/^[0-9a-f]{16}$/)
    expect(fp).not.toContain("FPKEY")
  })
})
