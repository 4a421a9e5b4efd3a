import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as Plan from "../../src/Plan.js"
import * as Texts from "../../src/simulator/texts.js"
import * as Simulator from "../../src/simulator/index.js"
import { apiUrl, call, get, tryGet } from "./helpers.js"

const notok = (text: string) => ({ status: "0", message: "NOTOK", result: text })

describe("parseFaultSpec", () => {
  it("reads the CLI's --fault spec", () => {
    expect(Simulator.parseFaultSpec("http503=0.1,reset=0.05,latency=20+10,seed=7")).toEqual(
      Either.right({ seed: 7, latency: { fixedMs: 20, jitterMs: 10 }, rates: { http503: 0.1, reset: 0.05 } })
    )
    expect(Simulator.parseFaultSpec("")).toEqual(Either.right({ rates: {} }))
    expect(Simulator.parseFaultSpec("queryTimeout=0.2, busy=0.1, ratelimit=0.1, html=0.1, truncated=0.1, http429=0.1, http502=0.1, latency=5")).toEqual(
      Either.right({
        latency: { fixedMs: 5, jitterMs: 0 },
        rates: { queryTimeout: 0.2, busy: 0.1, rateLimit: 0.1, html: 0.1, truncated: 0.1, http429: 0.1, http502: 0.1 }
      })
    )
  })

  it("refuses unknown kinds, bad fractions, bad latency and sums over 1", () => {
    for (const bad of ["nope=0.1", "http503=2", "http503=x", "reset", "latency=fast", "seed=-1", "http502=0.6,http503=0.6"]) {
      const r = Simulator.parseFaultSpec(bad)
      expect(Either.isLeft(r), bad).toBe(true)
      if (Either.isLeft(r)) {
        expect(r.left._tag).toBe("FaultSpecError")
        expect(r.left.message).toContain(`Invalid fault spec "${bad}"`)
      }
    }
  })
})

// Built under the default TestServices (TestClock): the server's latency must still run on real time.
layer(Simulator.layer({ seed: 5, enforceRateLimits: false }))("fault injection over HTTP", (it) => {
  const ethsupply = (sim: Simulator.Simulator.Service, key: string) =>
    apiUrl(sim, { chainid: 1, module: "stats", action: "ethsupply", apikey: key })

  it.effect("http502, http503 and http429 answer the edge's status and page", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const url = ethsupply(sim, sim.demoKeys.professional)
      yield* sim.setFaults({ rates: { http502: 1 } })
      const a = yield* get(url)
      expect(a.status).toBe(502)
      expect(a.contentType).toContain("text/html")
      expect(a.text).toContain("502 Bad Gateway")
      yield* sim.setFaults({ rates: { http503: 1 } })
      const b = yield* get(url)
      expect(b.status).toBe(503)
      expect(b.text).toContain("503 Service Temporarily Unavailable")
      yield* sim.setFaults({ rates: { http429: 1 } })
      const c = yield* get(url)
      expect(c.status).toBe(429)
      expect(c.text).toBe("error code: 1015")
      yield* sim.setFaults({})
    }))

  it.effect("reset destroys the connection without an answer", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      yield* sim.resetStats
      yield* sim.setFaults({ rates: { reset: 1 } })
      const r = yield* tryGet(ethsupply(sim, sim.demoKeys.professional))
      expect(Either.isLeft(r)).toBe(true)
      yield* sim.setFaults({})
      expect((yield* sim.stats).faults.reset).toBe(1)
      // The server keeps serving.
      expect((yield* call(sim, { chainid: 1, module: "stats", action: "ethsupply", apikey: sim.demoKeys.professional })).status).toBe("1")
    }))

  it.effect("truncated: HTTP 200 with the first half of the real answer", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const url = apiUrl(sim, { chainid: 1, module: "account", action: "txlist", address: sim.dataset.chain(1).wallets[0]?.address, offset: 20, apikey: sim.demoKeys.professional })
      yield* sim.setFaults({ rates: { truncated: 1 } })
      const cut = yield* get(url)
      yield* sim.setFaults({})
      const full = yield* get(url)
      expect(cut.status).toBe(200)
      expect(cut.text.length).toBe(Math.floor(full.text.length / 2))
      expect(full.text.startsWith(cut.text)).toBe(true)
      expect(() => JSON.parse(cut.text)).toThrow()
    }))

  it.effect("html: a Cloudflare page with HTTP 200", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      yield* sim.setFaults({ seed: 1, rates: { html: 1 } })
      const pages = []
      for (let k = 0; k < 8; k++) pages.push(yield* get(ethsupply(sim, sim.demoKeys.professional)))
      yield* sim.setFaults({})
      for (const p of pages) {
        expect(p.status).toBe(200)
        expect(p.contentType).toContain("text/html")
        expect(p.text.includes("Just a moment...") || p.text.includes("Sorry, you have been blocked")).toBe(true)
      }
    }))

  it.effect("queryTimeout, busy and rateLimit answer the service's texts", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const q = { chainid: 1, module: "stats", action: "ethsupply", apikey: sim.demoKeys.free }
      yield* sim.setFaults({ rates: { queryTimeout: 1 } })
      expect(yield* call(sim, q)).toEqual(notok(Texts.QUERY_TIMEOUT))
      yield* sim.setFaults({ rates: { busy: 1 } })
      expect(yield* call(sim, q)).toEqual(notok(Texts.SERVER_TOO_BUSY))
      yield* sim.setFaults({ rates: { rateLimit: 1 } })
      expect(yield* call(sim, q)).toEqual(notok(Texts.maxCallsPerSec(Plan.limits.free.callsPerSecond)))
      expect(yield* call(sim, { ...q, apikey: sim.demoKeys.advanced })).toEqual(notok(Texts.maxCallsPerSec(Plan.limits.advanced.callsPerSecond)))
      // the free tier paused under load (recorded: proxy.eth_getBlockByNumber.rotki.2.json), also on proxy calls
      const spec = Simulator.parseFaultSpec("freeUnavailable=1")
      expect(Either.isRight(spec) && spec.right.rates).toEqual({ freeUnavailable: 1 })
      yield* sim.setFaults({ rates: { freeUnavailable: 1 } })
      expect(yield* call(sim, q)).toEqual(notok(Texts.FREE_TEMPORARILY_UNAVAILABLE))
      expect(yield* call(sim, { ...q, module: "proxy", action: "eth_getBlockByNumber", tag: "latest" })).toEqual(notok(Texts.FREE_TEMPORARILY_UNAVAILABLE))
      expect((yield* sim.stats).faults.freeUnavailable).toBe(2)
      yield* sim.setFaults({})
    }))

  it.effect("latency (fixed + jitter) delays without changing the answer", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      yield* sim.setFaults({ latency: { fixedMs: 20, jitterMs: 10 } })
      expect((yield* call(sim, { chainid: 1, module: "stats", action: "ethsupply", apikey: sim.demoKeys.professional })).status).toBe("1")
      yield* sim.setFaults({})
    }))

  it.effect("faults are deterministic under a seed, per query, whatever the interleaving", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const key = sim.demoKeys.professional
      const c = sim.dataset.chain(1)
      const a = apiUrl(sim, { chainid: 1, module: "account", action: "balance", address: c.wallets[0]?.address, apikey: key })
      const b = apiUrl(sim, { chainid: 1, module: "account", action: "balance", address: c.wallets[1]?.address, apikey: key })
      const outcome = (url: string) =>
        Effect.map(tryGet(url), (r) => (Either.isLeft(r) ? "reset" : `${r.right.status}:${r.right.text.slice(0, 60)}`))
      const faults = { seed: 42, rates: { http502: 0.2, reset: 0.1, busy: 0.2, truncated: 0.1 } }
      yield* sim.setFaults(faults)
      const first = { a: [] as Array<string>, b: [] as Array<string> }
      for (let k = 0; k < 12; k++) first.a.push(yield* outcome(a))
      for (let k = 0; k < 12; k++) first.b.push(yield* outcome(b))
      yield* sim.setFaults(faults)
      const replay = { a: [] as Array<string>, b: [] as Array<string> }
      for (let k = 0; k < 12; k++) {
        replay.b.push(yield* outcome(b))
        replay.a.push(yield* outcome(a))
      }
      expect(replay).toEqual(first)
      expect(new Set(first.a).size).toBeGreaterThan(1)
      // The apikey is not part of the query's identity.
      yield* sim.setFaults(faults)
      const other = []
      for (let k = 0; k < 12; k++) other.push(yield* outcome(a.replace(key, sim.demoKeys.proplus)))
      expect(other).toEqual(first.a)
      yield* sim.setFaults({ ...faults, seed: 43 })
      const reseeded = []
      for (let k = 0; k < 12; k++) reseeded.push(yield* outcome(a))
      expect(reseeded).not.toEqual(first.a)
      yield* sim.setFaults({})
    }))
})

layer(Simulator.layer({ seed: 5 }), { excludeTestServices: true })("faults and the rate limit", (it) => {
  it.effect("faulted answers use no rate-limit budget, and are counted by kind", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const key = sim.demoKeys.lite
      const q = { chainid: 1, module: "stats", action: "ethsupply", apikey: key }
      yield* sim.resetStats
      yield* sim.setFaults({ rates: { http503: 0.5, busy: 0.5 } })
      for (let k = 0; k < 10; k++) yield* get(apiUrl(sim, q))
      yield* sim.setFaults({})
      const n = Plan.limits.lite.callsPerSecond
      for (let k = 0; k < n; k++) expect((yield* call(sim, q)).status).toBe("1")
      const stats = yield* sim.stats
      expect(stats.faults.http503 + stats.faults.busy).toBe(10)
      expect(stats.rateLimited).toBe(0)
      expect(stats.requests).toBe(10 + n)
    }))

})
