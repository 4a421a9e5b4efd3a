/**
 * The simulator's model of distance: `latency=<fixed>+<jitter>,perKRows=<ms>` adds latency that grows
 * with the answer's size, decided after the per-key windows have counted the arrival.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { Core } from "../../src/simulator/core.js"
import { resultRows, sizedLatency } from "../../src/simulator/faults.js"
import * as Simulator from "../../src/simulator/index.js"

describe("latency that grows with the answer", () => {
  it("parses perKRows beside latency, alone, and refuses a bad value", () => {
    expect(Simulator.parseFaultSpec("latency=300+300,perKRows=50")).toEqual(
      Either.right({ latency: { fixedMs: 300, jitterMs: 300, perKRowsMs: 50 }, rates: {} })
    )
    expect(Simulator.parseFaultSpec("perkrows=20")).toEqual(
      Either.right({ latency: { fixedMs: 0, jitterMs: 0, perKRowsMs: 20 }, rates: {} })
    )
    expect(Simulator.parseFaultSpec("latency=5")).toEqual(Either.right({ latency: { fixedMs: 5, jitterMs: 0 }, rates: {} }))
    for (const bad of ["perKRows=x", "perKRows=-1", "perKRows="]) expect(Either.isLeft(Simulator.parseFaultSpec(bad)), bad).toBe(true)
  })

  it("counts the rows of a result array, 0 otherwise", () => {
    expect(resultRows(JSON.stringify({ status: "1", message: "OK", result: [1, 2, 3] }))).toBe(3)
    expect(resultRows(JSON.stringify({ status: "0", message: "NOTOK", result: "Max rate limit reached" }))).toBe(0)
    expect(resultRows("<html></html>")).toBe(0)
    expect(sizedLatency({ latency: { fixedMs: 300, perKRowsMs: 50 } }, 310, JSON.stringify({ result: new Array(2000).fill(0) }))).toBe(410)
    expect(sizedLatency({ latency: { fixedMs: 300 } }, 310, JSON.stringify({ result: new Array(2000).fill(0) }))).toBe(310)
  })

  it("a full page of logs waits longer than an empty one; the answer itself is unchanged", () => {
    const faults = { latency: { fixedMs: 300, jitterMs: 0, perKRowsMs: 50 } }
    const plain = new Core({ seed: 3, enforceRateLimits: false })
    const slow = new Core({ seed: 3, enforceRateLimits: false, faults })
    const c = plain.dataset.describe().chain(1)
    const dense = c.denseBlock ?? 0
    const key = Simulator.demoKeys.professional
    const logs = (fromBlock: number, toBlock: number) => ({
      chainid: "1", module: "logs", action: "getLogs", address: c.heavyContract.address,
      fromBlock: String(fromBlock), toBlock: String(toBlock), page: "1", offset: "1000", apikey: key
    })
    const now = Date.UTC(2026, 0, 1)
    const full = slow.handle(logs(dense, dense), "ip", now)
    const base = plain.handle(logs(dense, dense), "ip", now)
    expect(full.answer).toEqual(base.answer)
    const rows = full.answer._tag === "body" ? resultRows(full.answer.body) : -1
    expect(rows).toBe(1000)
    expect(full.latencyMs).toBeCloseTo(300 + 50, 6)
    const empty = slow.handle(logs(1, 2), "ip", now)
    expect(empty.latencyMs).toBe(300)
  })

  it("the per-key window counts the arrival, not the delayed answer", () => {
    // Latency is returned to the server, which sleeps after handle(): a call that arrives at t counts at t.
    const core = new Core({ seed: 3, faults: { latency: { fixedMs: 500, perKRowsMs: 1000 } } })
    const key = Simulator.demoKeys.free
    const supply = { chainid: "1", module: "stats", action: "ethsupply", apikey: key }
    const t = Date.UTC(2026, 0, 1)
    for (let k = 0; k < 3; k++) expect(JSON.parse((core.handle(supply, "ip", t + k) as { answer: { body: string } }).answer.body).status).toBe("1")
    const fourth = core.handle(supply, "ip", t + 3)
    expect(fourth.answer._tag === "body" && JSON.parse(fourth.answer.body).status).toBe("0")
    expect(core.handle(supply, "ip", t + 1000).answer._tag === "body").toBe(true)
  })
})
