/**
 * Retries, counted on the fake explorer: every transient kind is retried (with backoff, each
 * attempt throttled), nothing else is; retries are bounded; a rate-limit answer pauses the key.
 * Runs on the TestClock (`driven`), so backoffs and pauses take no real time.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Metric } from "effect"
import * as Client from "../../src/ExplorerClient.js"
import * as T from "../../src/simulator/texts.js"
import * as F from "./fixtures.js"
import { clientOn, driven, fakeHttp, freshKey, maxInWindow, notOk, ok, type Reply } from "./helpers.js"

const transient: ReadonlyArray<readonly [string, Reply]> = [
  ["connection reset", { reset: true }],
  ["no answer (timeout)", { hang: true }],
  ["HTTP 429", { text: "Too Many Requests", status: 429 }],
  ["HTTP 500", { text: "oops", status: 500 }],
  ["HTTP 502", { text: "<html><title>502 Bad Gateway</title></html>", status: 502, contentType: "text/html" }],
  ["HTTP 503", { text: "busy", status: 503 }],
  ["HTTP 504", { text: "", status: 504 }],
  ["HTML page with HTTP 200", { text: "<html><head><title>Just a moment...</title></head></html>", contentType: "text/html" }],
  ["truncated JSON", { text: "{\"status\":\"1\",\"message\":\"OK\",\"result\":\"17" }],
  ["empty body", { text: "" }],
  ["per-second rate limit", notOk(T.maxCallsPerSec(3))],
  ["generic rate limit", notOk(T.MAX_RATE_LIMIT_REACHED_WITH_HINT)],
  ["free tier temporarily unavailable", notOk(T.FREE_TEMPORARILY_UNAVAILABLE)],
  ["server too busy", notOk(T.SERVER_TOO_BUSY)],
  ["query timeout", notOk(T.QUERY_TIMEOUT)]
]

const permanent: ReadonlyArray<readonly [string, Reply, string]> = [
  ["invalid key", notOk(T.INVALID_API_KEY), "InvalidApiKeyError"],
  ["invalid key (#err2)", notOk(T.INVALID_API_KEY_ERR2), "InvalidApiKeyError"],
  ["too many invalid key attempts", notOk(T.TOO_MANY_INVALID_KEY_ATTEMPTS), "InvalidApiKeyError"],
  ["daily limit", notOk(T.MAX_DAILY_RATE_LIMIT_REACHED), "RateLimitError"],
  ["API Pro endpoint", notOk(T.API_PRO_ENDPOINT), "PlanTierError"],
  ["free tier chain", notOk(T.FREE_NOT_SUPPORTED_FOR_CHAIN), "ChainNotOnPlanError"],
  ["unsupported chain", notOk(T.UNSUPPORTED_CHAIN), "UnsupportedChainError"],
  ["result window", notOk(T.resultWindowTooLarge(10_000)), "ResultWindowError"],
  ["invalid address", notOk(T.INVALID_ADDRESS), "InvalidInputError"],
  ["unknown NOTOK text", notOk("Error! Something else"), "NotOkError"],
  ["HTTP 404", { text: "not found", status: 404 }, "TransportError"],
  ["HTTP 403", { text: "<html><title>Sorry, you have been blocked</title></html>", status: 403 }, "TransportError"],
  ["JSON of an unexpected shape", { json: { hello: "world" } }, "DecodeError"],
  ["records that do not fit the schema", ok([{ nope: 1 }]), "DecodeError"]
]

const fast = { rate: { callsPerSecond: 1000 }, retry: { baseDelay: "100 millis" } } as const

describe("transient failures are retried", () => {
  for (const [name, reply] of transient) {
    it.scoped(`${name}: retried until it passes`, () =>
      driven(Effect.gen(function*() {
        const fake = fakeHttp((_, i) => (i < 2 ? reply : ok([F.normalTransaction])))
        const client = yield* clientOn(fake, { ...fast, requestTimeout: "5 seconds" })
        const rows = yield* client.txlist({ address: F.ADDRESS })
        expect(rows).toHaveLength(1)
        expect(fake.seen).toHaveLength(3)
        const stats = yield* client.stats
        expect(stats.requests).toBe(3)
        expect(stats.retries).toBe(2)
      })))
  }

  it.scoped("retries are bounded: times + 1 attempts, then the last error", () =>
    driven(Effect.gen(function*() {
      const fake = fakeHttp(() => ({ text: "busy", status: 503 }))
      const client = yield* clientOn(fake, { ...fast, retry: { times: 3, baseDelay: "10 millis" } })
      const error = yield* Effect.flip(client.txlist({ address: F.ADDRESS }))
      expect(error._tag).toBe("TransportError")
      expect(error._tag === "TransportError" && error.status).toBe(503)
      expect(fake.seen).toHaveLength(4)
    })))

  it.scoped("backoff grows exponentially (with jitter) and each retry goes through the limiter", () =>
    driven(Effect.gen(function*() {
      const fake = fakeHttp(() => ({ reset: true }))
      const client = yield* clientOn(fake, { rate: { callsPerSecond: 1000 }, retry: { times: 4, baseDelay: "1 second", maxDelay: "1 minute" } })
      yield* Effect.flip(client.txlist({ address: F.ADDRESS }))
      const gaps = fake.seen.slice(1).map((s, i) => s.at - (fake.seen[i]?.at ?? 0))
      expect(gaps).toHaveLength(4)
      // nominal 1 s, 2 s, 4 s, 8 s; jitter keeps each within [0.8, 1.2] of it
      gaps.forEach((gap, i) => {
        expect(gap).toBeGreaterThanOrEqual(0.8 * 1000 * 2 ** i)
        expect(gap).toBeLessThanOrEqual(1.2 * 1000 * 2 ** i + 2)
      })
    })))

  it.scoped("per call: retries: 0 makes one attempt; retryQueryTimeout: false leaves the split to the caller", () =>
    driven(Effect.gen(function*() {
      const fake = fakeHttp(() => notOk(T.QUERY_TIMEOUT))
      const client = yield* clientOn(fake, fast)
      const e1 = yield* Effect.flip(client.getLogs({ address: F.ADDRESS }, { retryQueryTimeout: false }))
      expect(e1._tag).toBe("QueryTimeoutError")
      expect(fake.seen).toHaveLength(1)
      const e2 = yield* Effect.flip(client.txlist({ address: F.ADDRESS }, { retries: 0 }))
      expect(e2._tag).toBe("QueryTimeoutError")
      expect(fake.seen).toHaveLength(2)
    })))

  it.scoped("client-wide: retry.queryTimeout false", () =>
    driven(Effect.gen(function*() {
      const fake = fakeHttp(() => notOk(T.QUERY_TIMEOUT))
      const client = yield* clientOn(fake, { ...fast, retry: { queryTimeout: false } })
      expect((yield* Effect.flip(client.getLogs({ address: F.ADDRESS })))._tag).toBe("QueryTimeoutError")
      expect(fake.seen).toHaveLength(1)
    })))
})

describe("non-transient failures are never retried", () => {
  for (const [name, reply, tag] of permanent) {
    it.scoped(`${name} → ${tag}, one request`, () =>
      driven(Effect.gen(function*() {
        const fake = fakeHttp(() => reply)
        const client = yield* clientOn(fake, { ...fast, plan: "proplus" })
        const error = yield* Effect.flip(client.txlist({ address: F.ADDRESS }))
        expect(error._tag).toBe(tag)
        expect(fake.seen).toHaveLength(1)
        expect((yield* client.stats).retries).toBe(0)
      })))
  }
})

describe("rate-limit answers", () => {
  it.scoped("pause every call of the key for the configured time, then calls resume at the plan's pace", () =>
    driven(Effect.gen(function*() {
      const fake = fakeHttp((_, i) => (i === 0 ? notOk(T.maxCallsPerSec(3)) : ok("1")))
      const client = yield* clientOn(fake, { plan: "free", rate: { rateLimitPause: "2 seconds" }, retry: { baseDelay: "1 millis" } })
      yield* Effect.all(Array.from({ length: 8 }, () => client.balance({ address: F.ADDRESS })), { concurrency: "unbounded" })
      const first = fake.seen[0]?.at ?? 0
      const later = fake.seen.slice(1).map((s) => s.at)
      expect(Math.min(...later)).toBeGreaterThanOrEqual(first + 2000)
      expect(maxInWindow(fake.seen.map((s) => s.at), 1000)).toBeLessThanOrEqual(3)
      expect((yield* client.stats).rateLimited).toBe(1)
    })))

  it.scoped("are counted by the global metric too", () =>
    driven(Effect.gen(function*() {
      const before = yield* Metric.value(Client.metrics.rateLimited)
      const beforeRetries = yield* Metric.value(Client.metrics.retries)
      const fake = fakeHttp((_, i) => (i === 0 ? notOk(T.MAX_RATE_LIMIT_REACHED) : ok("1")))
      const client = yield* clientOn(fake, fast)
      yield* client.balance({ address: F.ADDRESS })
      expect((yield* Metric.value(Client.metrics.rateLimited)).count).toBeGreaterThanOrEqual(before.count + 1)
      expect((yield* Metric.value(Client.metrics.retries)).count).toBeGreaterThanOrEqual(beforeRetries.count + 1)
    })))
})

describe("the key's rate is held across fibers and client instances", () => {
  it.scoped("60 concurrent calls from two clients built for the same key: ≤ 3 per second at the server", () =>
    driven(Effect.gen(function*() {
      const fake = fakeHttp(() => ok("1"))
      const apiKey = freshKey("TWICE")
      const a = yield* clientOn(fake, { apiKey })
      const b = yield* clientOn(fake, { apiKey })
      yield* Effect.all(
        Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? a : b).balance({ chainId: i % 3 === 0 ? 137 : 1, address: F.ADDRESS })),
        { concurrency: "unbounded" }
      )
      const times = fake.seen.map((s) => s.at)
      expect(times).toHaveLength(60)
      expect(maxInWindow(times, 1000)).toBeLessThanOrEqual(3)
      const span = Math.max(...times) - Math.min(...times)
      expect((59 * 1000) / span).toBeGreaterThanOrEqual(0.95 * 3)
    })))

  it.scoped("throttled operations stay at 2 per second on top of the plan rate", () =>
    driven(Effect.gen(function*() {
      const fake = fakeHttp((r) => (r.params.action === "balancehistory" ? ok("5") : ok("1")))
      const client = yield* clientOn(fake, { plan: "standard" })
      yield* Effect.all(
        Array.from({ length: 40 }, (_, i) =>
          i % 2 === 0 ? client.balancehistory({ address: F.ADDRESS, blockNo: i }) : client.balance({ address: F.ADDRESS })),
        { concurrency: "unbounded" }
      )
      const throttled = fake.seen.filter((s) => s.params.action === "balancehistory").map((s) => s.at)
      expect(throttled).toHaveLength(20)
      expect(maxInWindow(throttled, 1000)).toBeLessThanOrEqual(2)
      expect(maxInWindow(fake.seen.map((s) => s.at), 1000)).toBeLessThanOrEqual(10)
    })))
})
