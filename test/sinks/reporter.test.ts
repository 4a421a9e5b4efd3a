/**
 * The progress line's content and the TTY redraw rules, on TestClock.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, TestClock } from "effect"
import * as Reporter from "../../src/sinks/Reporter.js"

const snapshot: Reporter.Snapshot = {
  label: "logs chain 1",
  rows: 12_345,
  calls: 17,
  elapsedMs: 10_000,
  fraction: 0.25,
  block: 1_234_567
}

describe("progress line", () => {
  it("shows rows, rows/s, calls, calls/s, block, percentage and ETA", () => {
    expect(Reporter.line(snapshot)).toBe(
      "logs chain 1 · 12,345 rows · 1,235 rows/s · 17 calls · 1.7 calls/s · block 1,234,567 · 25.0% · ETA 30.0 s"
    )
  })

  it("shows calls/s against the plan's rate, and the current rates when given", () => {
    expect(Reporter.line({ ...snapshot, callsPerSecondLimit: 5, callsPerSecond: 4.8, rowsPerSecond: 48_000 })).toBe(
      "logs chain 1 · 12,345 rows · 48,000 rows/s · 17 calls · 4.8/5 calls/s · block 1,234,567 · 25.0% · ETA 30.0 s"
    )
  })

  it("hides percent and ETA when the fraction done is unknown", () => {
    const { fraction: _, ...unknown } = snapshot
    expect(Reporter.line(unknown)).toBe("logs chain 1 · 12,345 rows · 1,235 rows/s · 17 calls · 1.7 calls/s · block 1,234,567")
  })

  it("words a retry: which, of how many, after what wait, why", () => {
    expect(
      Reporter.retryLine({
        chainId: 1,
        module: "account",
        action: "txlist",
        retry: 2,
        of: 6,
        delay: Duration.millis(1000),
        error: { _tag: "TransportError", detail: "connection refused" }
      })
    ).toBe("retry 2/6 in 1.0 s: connection refused (account/txlist, TransportError)")
  })

  it("a notice on a TTY erases the progress line first; piped it is a plain line", () => {
    const writes: Array<string> = []
    Reporter.notice({ isTTY: true, write: (t) => void writes.push(t) }, "retry 1/6 in 250 ms: x")
    Reporter.notice({ isTTY: false, write: (t) => void writes.push(t) }, "retry 1/6 in 250 ms: x")
    expect(writes).toEqual(["\r\x1b[Kretry 1/6 in 250 ms: x\n", "retry 1/6 in 250 ms: x\n"])
  })

  it.scoped("piped: a plain line every interval, no carriage return, no escape codes", () =>
    Effect.gen(function*() {
      const writes: Array<string> = []
      const reporter = yield* Reporter.start({
        output: { isTTY: false, write: (t) => void writes.push(t) },
        snapshot: Effect.succeed(snapshot),
        every: "5 seconds"
      })
      yield* TestClock.adjust("4 seconds")
      expect(writes).toEqual([])
      yield* TestClock.adjust("11 seconds")
      expect(writes.length).toBe(3)
      yield* reporter.finish("done")
      expect(writes.join("")).not.toMatch(/\r|\x1b/)
      expect(writes.at(-1)).toBe("done\n")
    }))

  it.scoped("quiet: nothing at all, not even the summary", () =>
    Effect.gen(function*() {
      const writes: Array<string> = []
      const reporter = yield* Reporter.start({
        output: { isTTY: true, write: (t) => void writes.push(t) },
        quiet: true,
        snapshot: Effect.succeed(snapshot)
      })
      yield* TestClock.adjust("10 seconds")
      yield* reporter.finish("done")
      expect(writes).toEqual([])
    }))

  it("leaves out what it cannot know", () => {
    expect(Reporter.line({ label: "holders chain 1", rows: 0, calls: 0, elapsedMs: 0 })).toBe(
      "holders chain 1 · 0 rows · 0 calls"
    )
    expect(Reporter.line({ ...snapshot, fraction: 1 })).not.toContain("ETA")
    expect(Reporter.line({ ...snapshot, block: -1 })).not.toContain("block")
  })

  it("shows the retries among the calls apart", () => {
    expect(Reporter.line({ ...snapshot, retries: 3 })).toContain(" · 17 calls (3 retries) · ")
    expect(Reporter.line({ ...snapshot, retries: 1 })).toContain(" · 17 calls (1 retry) · ")
    expect(Reporter.line({ ...snapshot, retries: 0 })).toContain(" · 17 calls · ")
  })

  it("shows no rate before a few seconds of data: 2 calls in 0.26 s are not 7.6/3 calls/s", () => {
    const start = { label: "txs chain 1", rows: 40, calls: 2, elapsedMs: 263, callsPerSecondLimit: 3 }
    expect(Reporter.line(start)).toBe("txs chain 1 · 40 rows · 2 calls")
    expect(Reporter.line({ ...start, elapsedMs: Reporter.ratesAfterMs })).toBe("txs chain 1 · 40 rows · 13 rows/s · 2 calls · 0.7/3 calls/s")
  })

  it.scoped("a TTY line's rates: none in the first seconds, then over the last 10 seconds, not the run's average", () =>
    Effect.gen(function*() {
      const writes: Array<{ readonly at: number; readonly text: string }> = []
      const started = yield* Clock.currentTimeMillis
      // 100 calls in the first second, then one a second: the average at 20 s is 6/s, the pace now 1/s.
      const callsAt = (ms: number) => ms < 1000 ? 100 : 100 + Math.floor((ms - 1000) / 1000)
      const snapshot = Effect.map(Clock.currentTimeMillis, (now): Reporter.Snapshot => {
        const elapsedMs = now - started
        return { label: "logs chain 1", rows: callsAt(elapsedMs) * 10, calls: callsAt(elapsedMs), elapsedMs, callsPerSecondLimit: 5 }
      })
      const at = () => Clock.currentTimeMillis.pipe(Effect.map((now) => now - started))
      let clock = 0
      yield* Reporter.start({ output: { isTTY: true, write: (t) => void writes.push({ at: clock, text: t }) }, snapshot })
      for (let step = 0; step < 80; step++) {
        yield* TestClock.adjust("250 millis")
        clock = yield* at()
      }
      const early = writes.filter((w) => w.at < Reporter.ratesAfterMs - 250)
      expect(early.length).toBeGreaterThan(5)
      for (const w of early) expect(w.text).not.toContain("/s")
      expect(writes.at(-1)?.text).toContain("· 119 calls · 1.0/5 calls/s")
      expect(writes.at(-1)?.text).toContain("· 10 rows/s")
    }))

  it("formats durations for people", () => {
    expect([850, 4_200, 185_000, 7_620_000].map(Reporter.duration)).toEqual(["850 ms", "4.2 s", "3 min 05 s", "2 h 07 min"])
  })

  it.scoped("cuts a TTY line to the terminal width and erases it before the summary", () =>
    Effect.gen(function*() {
      const writes: Array<string> = []
      const reporter = yield* Reporter.start({
        output: { isTTY: true, columns: 20, write: (t) => void writes.push(t) },
        snapshot: Effect.succeed(snapshot)
      })
      yield* TestClock.adjust("1 second")
      expect(writes.length).toBeGreaterThan(1)
      for (const w of writes) expect(w).toBe("\rlogs chain 1 · 12,3\x1b[K")
      yield* reporter.finish("done")
      expect(writes.slice(-2)).toEqual(["\r\x1b[K", "done\n"])
    }))

  it.scoped("erases the TTY line when the export fails (scope closes without finish)", () =>
    Effect.gen(function*() {
      const writes: Array<string> = []
      yield* Effect.scoped(
        Reporter.start({ output: { isTTY: true, write: (t) => void writes.push(t) }, snapshot: Effect.succeed(snapshot) })
          .pipe(Effect.zipRight(TestClock.adjust("1 second")))
      )
      expect(writes.length).toBeGreaterThan(1)
      expect(writes.at(-1)).toBe("\r\x1b[K")
      expect(writes.join("")).not.toContain("\n")
    }))
})
