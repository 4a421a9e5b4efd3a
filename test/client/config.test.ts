import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Either, Option, Redacted } from "effect"
import * as ExplorerConfig from "../../src/Config.js"

describe("normalizeBaseUrl", () => {
  it("appends /v2/api once, with or without trailing slash or /v2/api", () => {
    for (const input of [
      "https://api.etherscan.io",
      "https://api.etherscan.io/",
      "https://api.etherscan.io/v2/api",
      "https://api.etherscan.io/v2/api/",
      " https://api.etherscan.io// "
    ]) {
      expect(ExplorerConfig.normalizeBaseUrl(input)).toEqual(
        Either.right({ baseUrl: "https://api.etherscan.io", apiUrl: "https://api.etherscan.io/v2/api" })
      )
    }
    expect(ExplorerConfig.normalizeBaseUrl("http://127.0.0.1:4000/prefix/")).toEqual(
      Either.right({ baseUrl: "http://127.0.0.1:4000/prefix", apiUrl: "http://127.0.0.1:4000/prefix/v2/api" })
    )
  })

  it("refuses what is not a plain http(s) base URL", () => {
    for (const input of ["not a url", "ftp://x.org", "https://x.org/?apikey=1", "https://user:pw@x.org"]) {
      expect(Either.isLeft(ExplorerConfig.normalizeBaseUrl(input))).toBe(true)
    }
  })
})

describe("resolve", () => {
  it("fills in the defaults", () => {
    const config = Either.getOrThrow(ExplorerConfig.resolve({}))
    expect(config.apiUrl).toBe("https://api.etherscan.io/v2/api")
    expect(config.plan).toBe("free")
    expect(config.defaultChainId).toBe(1)
    expect(Option.isNone(config.apiKey)).toBe(true)
    expect(config.rate.callsPerSecond).toBe(3)
    expect(config.rate.throttledPerSecond).toBe(2)
    expect(config.retry.times).toBe(6)
    expect(config.retry.queryTimeout).toBe(true)
    expect(Duration.toMillis(config.requestTimeout)).toBe(30_000)
  })

  it("takes the plan's rate unless overridden", () => {
    expect(Either.getOrThrow(ExplorerConfig.resolve({ plan: "advanced" })).rate.callsPerSecond).toBe(20)
    expect(Either.getOrThrow(ExplorerConfig.resolve({ plan: "advanced", rate: { callsPerSecond: 7 } })).rate.callsPerSecond).toBe(7)
  })

  it("treats an empty key as no key", () => {
    expect(Option.isNone(Either.getOrThrow(ExplorerConfig.resolve({ apiKey: Redacted.make("  ") })).apiKey)).toBe(true)
  })

  it("refuses bad values with a message that names them", () => {
    const bad: ReadonlyArray<readonly [ExplorerConfig.Options, string]> = [
      [{ defaultChainId: 17000 }, "defaultChainId"],
      [{ rate: { callsPerSecond: 0 } }, "rate.callsPerSecond"],
      [{ rate: { throttledPerSecond: -1 } }, "rate.throttledPerSecond"],
      [{ retry: { times: -1 } }, "retry.times"],
      [{ requestTimeout: 0 }, "requestTimeout"],
      [{ baseUrl: "nope" }, "baseUrl"]
    ]
    for (const [options, name] of bad) {
      const r = ExplorerConfig.resolve(options)
      expect(Either.isLeft(r) && r.left).toContain(name)
    }
  })
})

const fromEnv = (env: Record<string, string>) =>
  ExplorerConfig.explorerConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

describe("environment", () => {
  it.effect("reads EXPLORER_API_KEY first, then ETHERSCAN_API_KEY", () =>
    Effect.gen(function*() {
      const both = yield* fromEnv({ EXPLORER_API_KEY: "EXPLORERKEY1", ETHERSCAN_API_KEY: "ETHERSCANKEY1" })
      expect(Option.map(both.apiKey, Redacted.value)).toEqual(Option.some("EXPLORERKEY1"))
      const fallback = yield* fromEnv({ ETHERSCAN_API_KEY: "ETHERSCANKEY1" })
      expect(Option.map(fallback.apiKey, Redacted.value)).toEqual(Option.some("ETHERSCANKEY1"))
      const none = yield* fromEnv({})
      expect(Option.isNone(none.apiKey)).toBe(true)
    }))

  it.effect("reads base URL, plan, chain, timeout, retries and rates", () =>
    Effect.gen(function*() {
      const c = yield* fromEnv({
        EXPLORER_BASE_URL: "http://127.0.0.1:9999/v2/api/",
        EXPLORER_PLAN: "standard",
        EXPLORER_CHAIN: "137",
        EXPLORER_TIMEOUT: "5 seconds",
        EXPLORER_RETRIES: "2",
        EXPLORER_RETRY_BASE_DELAY: "10 millis",
        EXPLORER_CALLS_PER_SECOND: "4",
        EXPLORER_THROTTLED_PER_SECOND: "1"
      })
      expect(c.apiUrl).toBe("http://127.0.0.1:9999/v2/api")
      expect(c.plan).toBe("standard")
      expect(c.defaultChainId).toBe(137)
      expect(Duration.toMillis(c.requestTimeout)).toBe(5000)
      expect(c.retry.times).toBe(2)
      expect(Duration.toMillis(c.retry.baseDelay)).toBe(10)
      expect(c.rate.callsPerSecond).toBe(4)
      expect(c.rate.throttledPerSecond).toBe(1)
    }))

  it.effect("a bad value fails with a ConfigError", () =>
    Effect.gen(function*() {
      for (const env of [{ EXPLORER_PLAN: "gold" }, { EXPLORER_CHAIN: "17000" }, { EXPLORER_BASE_URL: "nope" }]) {
        const r = yield* Effect.either(fromEnv(env))
        expect(Either.isLeft(r)).toBe(true)
      }
    }))

  it.effect("the key stays redacted when printed", () =>
    Effect.gen(function*() {
      const c = yield* fromEnv({ EXPLORER_API_KEY: "SUPERSECRETKEY" })
      expect(JSON.stringify(c)).not.toContain("SUPERSECRETKEY")
      expect(String(Option.getOrThrow(c.apiKey))).not.toContain("SUPERSECRETKEY")
      const options = yield* ExplorerConfig.options.pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["EXPLORER_API_KEY", "SUPERSECRETKEY"]])))
      )
      expect(JSON.stringify(options)).not.toContain("SUPERSECRETKEY")
    }))
})
