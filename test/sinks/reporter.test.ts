/**
 * The progress line's content and the TTY redraw rules, on TestClock.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
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
  it("shows rows, rows/s, calls, block, percentage and ETA", () => {
    expect(Reporter.line(snapshot)).toBe(
      "logs chain 1 · 12,345 rows · 1,235 rows/s · 17 calls · block 1,234,567 · 25.0% · ETA 30.0 s"
    )
  })

  it("leaves out what it cannot know", () => {
    expect(Reporter.line({ label: "holders chain 1", rows: 0, calls: 0, elapsedMs: 0 })).toBe(
      "holders chain 1 · 0 rows · 0 calls"
    )
    expect(Reporter.line({ ...snapshot, fraction: 1 })).not.toContain("ETA")
  })

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
