import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Plan from "../../src/Plan.js"
import * as Texts from "../../src/simulator/texts.js"
import * as Simulator from "../../src/simulator/index.js"
import { DailyCounter, InvalidKeyTracker, SlidingWindow } from "../../src/simulator/limits.js"
import { call, sleepReal } from "./helpers.js"

const notok = (text: string) => ({ status: "0", message: "NOTOK", result: text })

describe("limit structures (explicit timestamps)", () => {
  it("a sliding window lets `limit` calls through per window and does not count refused calls", () => {
    const w = new SlidingWindow(3, 1000)
    for (const t of [0, 10, 20]) {
      expect(w.allows(t)).toBe(true)
      w.record(t)
    }
    // Refused attempts at 30..990 are not recorded…
    for (let t = 30; t < 1000; t += 30) expect(w.allows(t)).toBe(false)
    // …so the window frees up exactly one second after each recorded call.
    expect(w.allows(1000)).toBe(true)
    w.record(1000)
    expect(w.allows(1005)).toBe(false)
    expect(w.allows(1010)).toBe(true)
  })

  it("a client at exactly the plan rate is never refused", () => {
    const w = new SlidingWindow(5, 1000)
    for (let k = 0; k < 100; k++) {
      const t = k * 200
      expect(w.allows(t)).toBe(true)
      w.record(t)
    }
  })

  it("daily counts start again on the next UTC day", () => {
    const d = new DailyCounter()
    const day = Date.UTC(2025, 0, 1, 23, 59)
    d.add("k", day)
    d.add("k", day)
    expect(d.get("k", day)).toBe(2)
    expect(d.get("other", day)).toBe(0)
    expect(d.get("k", Date.UTC(2025, 0, 2, 0, 1))).toBe(0)
  })

  it("more than 5 invalid attempts within 30 s block the IP until the oldest leaves the window", () => {
    const t = new InvalidKeyTracker()
    for (let k = 0; k < 5; k++) {
      expect(t.blocked("ip", k * 1000)).toBe(false)
      t.record("ip", k * 1000)
    }
    expect(t.blocked("ip", 5000)).toBe(true)
    expect(t.blocked("other", 5000)).toBe(false)
    expect(t.blocked("ip", 30_000)).toBe(false)
  })
})

layer(Simulator.layer({ seed: 3 }), { excludeTestServices: true })("rate limits over HTTP", (it) => {
  it.effect("N+1 immediate calls with a free key: exactly the last is limited; after a second, allowed again", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const key = sim.demoKeys.free
      const q = { chainid: 1, module: "stats", action: "ethsupply", apikey: key }
      const n = Plan.limits.free.callsPerSecond
      yield* sim.resetStats
      const answers = []
      for (let k = 0; k <= n; k++) answers.push(yield* call(sim, q))
      expect(answers.slice(0, n).map((a) => a.status)).toEqual(Array(n).fill("1"))
      expect(answers[n]).toEqual(notok(Texts.maxCallsPerSec(n)))
      // Another key has its own window.
      expect((yield* call(sim, { ...q, apikey: sim.demoKeys.lite })).status).toBe("1")
      const stats = yield* sim.stats
      expect(stats.rateLimited).toBe(1)
      expect(stats.rateLimitedByKey[Simulator.keyFingerprint(key)]).toBe(1)
      yield* sleepReal(1_100)
      expect((yield* call(sim, q)).status).toBe("1")
    }))

  it.effect("the 2/s operations share their own window of 2, on top of the plan's", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const key = sim.demoKeys.standard
      const c = sim.dataset.chain(1)
      const info = { chainid: 1, module: "token", action: "tokeninfo", contractaddress: c.erc20[0]?.address, apikey: key }
      const history = { chainid: 1, module: "account", action: "balancehistory", address: c.wallets[0]?.address, blockno: 1, apikey: key }
      expect((yield* call(sim, info)).status).toBe("1")
      expect((yield* call(sim, history)).status).toBe("1")
      expect(yield* call(sim, info)).toEqual(notok(Texts.maxCallsPerSec(Plan.THROTTLED_CALLS_PER_SECOND)))
      // Not throttled: still within the plan's 10/s.
      expect((yield* call(sim, { chainid: 1, module: "stats", action: "ethsupply", apikey: key })).status).toBe("1")
    }))

  it.effect("more than 5 invalid-key attempts from one IP: 'Too many…' for invalid keys, valid keys still served", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const q = { chainid: 1, module: "stats", action: "ethsupply" }
      for (let k = 0; k < 5; k++) {
        expect(yield* call(sim, { ...q, apikey: `BADKEY${k}` })).toEqual(notok(Texts.INVALID_API_KEY))
      }
      expect(yield* call(sim, { ...q, apikey: "BADKEY9" })).toEqual(notok(Texts.TOO_MANY_INVALID_KEY_ATTEMPTS))
      expect((yield* call(sim, { ...q, apikey: sim.demoKeys.professional })).status).toBe("1")
    }))
})

layer(
  Simulator.layer({ seed: 3, enforceRateLimits: false, dailyCaps: { free: 5 }, keys: { MYPROPLUSKEY00000000000000000000000: "proplus" } }),
  { excludeTestServices: true }
)("daily caps over HTTP", (it) => {
  it.effect("the plan's daily cap answers 'Max daily rate limit reached'", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const q = { chainid: 1, module: "stats", action: "ethsupply", apikey: sim.demoKeys.free }
      for (let k = 0; k < 5; k++) expect((yield* call(sim, q)).status).toBe("1")
      expect(yield* call(sim, q)).toEqual(notok(Texts.MAX_DAILY_RATE_LIMIT_REACHED))
      expect((yield* call(sim, { ...q, apikey: sim.demoKeys.lite })).status).toBe("1")
      expect((yield* sim.stats).dailyLimited).toBe(1)
    }))

  it.effect("exportaddresstags: 100 calls a day per key, other operations unaffected", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const key = "MYPROPLUSKEY00000000000000000000000"
      const q = { chainid: 1, module: "nametag", action: "exportaddresstags", label: "all", apikey: key }
      for (let k = 0; k < Plan.EXPORT_ADDRESS_TAGS_PER_DAY; k++) expect((yield* call(sim, q)).status).toBe("1")
      expect(yield* call(sim, q)).toEqual(notok(Texts.MAX_DAILY_RATE_LIMIT_REACHED))
      expect((yield* call(sim, { ...q, action: "getlabelmasterlist" })).status).toBe("1")
    }))
})
