import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Partitions from "../../src/streams/engine/Partitions.js"

describe("Partitions.split", () => {
  it("covers the range exactly with disjoint ascending parts of near-equal width", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 1, max: 64 }), (from, w, n) => {
        const parts = Partitions.split({ fromBlock: from, toBlock: from + w - 1 }, n)
        if (w === 0) {
          expect(parts).toEqual([])
          return
        }
        expect(parts.length).toBe(Math.min(n, w))
        expect(parts[0]?.fromBlock).toBe(from)
        expect(parts[parts.length - 1]?.toBlock).toBe(from + w - 1)
        const widths = parts.map((p) => p.toBlock - p.fromBlock + 1)
        expect(Math.max(...widths) - Math.min(...widths)).toBeLessThanOrEqual(1)
        for (let i = 1; i < parts.length; i++) expect(parts[i]?.fromBlock).toBe((parts[i - 1]?.toBlock ?? 0) + 1)
      })
    )
  })

  it("an empty range has no parts", () => {
    expect(Partitions.split({ fromBlock: 10, toBlock: 9 }, 4)).toEqual([])
  })

  it("the documented example", () => {
    expect(Partitions.split({ fromBlock: 0, toBlock: 99 }, 4)).toEqual([
      { fromBlock: 0, toBlock: 24 }, { fromBlock: 25, toBlock: 49 }, { fromBlock: 50, toBlock: 74 }, { fromBlock: 75, toBlock: 99 }
    ])
    expect(Partitions.split({ fromBlock: 5, toBlock: 5 }, 8)).toEqual([{ fromBlock: 5, toBlock: 5 }])
  })
})

describe("Partitions.concurrencyFor", () => {
  it("Little's law with headroom, at least 1, at most the cap", () => {
    expect(Partitions.concurrencyFor({ callsPerSecond: 10, latencyMs: 450 })).toBe(7)
    expect(Partitions.concurrencyFor({ callsPerSecond: 30, latencyMs: 600 })).toBe(27)
    expect(Partitions.concurrencyFor({ callsPerSecond: 3, latencyMs: 300, headroom: 1 })).toBe(1)
    expect(Partitions.concurrencyFor({ callsPerSecond: 30, latencyMs: 600, cap: 4 })).toBe(4)
    expect(Partitions.concurrencyFor({ callsPerSecond: 10, latencyMs: 0 })).toBe(1)
  })

  it("shrinks when calls queue at the limiter", () => {
    const free = Partitions.concurrencyFor({ callsPerSecond: 10, latencyMs: 450 })
    const queued = Partitions.concurrencyFor({ callsPerSecond: 10, latencyMs: 450, queuedMs: 300 })
    expect(queued).toBeLessThan(free)
    expect(Partitions.concurrencyFor({ callsPerSecond: 10, latencyMs: 450, queuedMs: 10_000 })).toBe(1)
  })

  it("ewma follows the samples", () => {
    expect(Partitions.ewma(undefined, 400)).toBe(400)
    expect(Partitions.ewma(400, 500, 0.5)).toBe(450)
  })
})

describe("Partitions.nextCpuCap and busyFloor", () => {
  it("saturated: a fifth fewer, never below the floor that keeps the process busy", () => {
    expect(Partitions.nextCpuCap(Number.POSITIVE_INFINITY, 30, 0.99)).toBe(24)
    expect(Partitions.nextCpuCap(7, 7, 0.99)).toBe(5)
    expect(Partitions.nextCpuCap(7, 7, 0.99, Partitions.busyFloor(450, 1_000, 5))).toBe(5)
    expect(Partitions.nextCpuCap(7, 7, 0.99, Partitions.busyFloor(900, 1_000, 5))).toBe(6)
    // Roomy: half as many again; in between, as it is.
    expect(Partitions.nextCpuCap(24, 20, 0.5)).toBe(36)
    // Grown past twice the running partitions (+ 8): unbounded again.
    expect(Partitions.nextCpuCap(24, 12, 0.5)).toBe(Number.POSITIVE_INFINITY)
    expect(Partitions.nextCpuCap(24, 12, 0.9)).toBe(24)
  })

  it("the floor: a latency's worth of pages at the time a page takes, plus the one being processed", () => {
    // 200 ms of event loop a page, 450 ms latency: 3 on the wire, 1 processed.
    expect(Partitions.busyFloor(450, 1_000, 5)).toBe(4)
    // 14 ms a page (1,000 log rows): 33 + 1.
    expect(Partitions.busyFloor(450, 140, 10)).toBe(34)
    // Nothing measured yet: no floor.
    expect(Partitions.busyFloor(undefined, 1_000, 5)).toBe(1)
    expect(Partitions.busyFloor(450, 1_000, 0)).toBe(1)
  })
})

describe("Partitions.readAheadPays", () => {
  it("reads ahead only when the fastest answer takes longer than a page's processing", () => {
    const pool = Partitions.pool()
    expect(Partitions.readAheadPays(pool)).toBe(false)
    expect(Partitions.readAheadPays({ ...pool, fastest: 300, msPerPage: 200 })).toBe(true)
    expect(Partitions.readAheadPays({ ...pool, fastest: 300, msPerPage: 14 })).toBe(true)
    expect(Partitions.readAheadPays({ ...pool, fastest: 3, msPerPage: 14 })).toBe(false)
    expect(Partitions.readAheadPays({ ...pool, fastest: 300, msPerPage: undefined })).toBe(false)
  })
})
