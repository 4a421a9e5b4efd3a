/**
 * The layers: `Client.layer(options)`, `Client.layerConfig()` from the environment, and the
 * "layer provided twice" trap — two layers for one key still share one limiter.
 */
import { describe, expect, it } from "@effect/vitest"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Config, ConfigProvider, Effect, Exit, Layer, Redacted } from "effect"
import * as ExplorerConfig from "../../src/Config.js"
import * as Client from "../../src/ExplorerClient.js"
import * as F from "./fixtures.js"
import { driven, fakeHttp, freshKey, maxInWindow, ok } from "./helpers.js"

describe("layers", () => {
  it.effect("layerConfig reads the key (ETHERSCAN_API_KEY fallback), base URL, plan and chain from the environment", () =>
    Effect.gen(function*() {
      const fake = fakeHttp(() => ok("7"))
      const key = Redacted.value(freshKey("ENVKEY"))
      const provider = ConfigProvider.fromMap(
        new Map([
          ["ETHERSCAN_API_KEY", key],
          ["EXPLORER_BASE_URL", "https://env.explorer.test/"],
          ["EXPLORER_PLAN", "standard"],
          ["EXPLORER_CHAIN", "137"]
        ])
      )
      const balance = yield* Effect.gen(function*() {
        const client = yield* Client.ExplorerClient
        expect(client.plan).toBe("standard")
        expect(client.defaultChainId).toBe(137)
        expect(client.apiUrl).toBe("https://env.explorer.test/v2/api")
        return yield* client.balance({ address: F.ADDRESS })
      }).pipe(
        Effect.provide(Client.layerConfig().pipe(Layer.provide(fake.layer))),
        Effect.withConfigProvider(provider)
      )
      expect(balance).toBe(7n)
      expect(fake.seen[0]?.params).toMatchObject({ apikey: key, chainid: "137" })
      expect(fake.seen[0]?.url.startsWith("https://env.explorer.test/v2/api?")).toBe(true)
    }))

  it.effect("layerConfig takes a transformClient added to the environment's options", () =>
    Effect.gen(function*() {
      const fake = fakeHttp(() => ok("7"))
      const transformClient = HttpClient.mapRequest(HttpClientRequest.setHeader("x-team", "etl"))
      const config = Config.map(ExplorerConfig.options, (options) => ({ ...options, transformClient }))
      yield* Client.ExplorerClient.pipe(
        Effect.flatMap((client) => client.balance({ address: F.ADDRESS })),
        Effect.provide(Client.layerConfig(config).pipe(Layer.provide(fake.layer))),
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["EXPLORER_API_KEY", Redacted.value(freshKey("ENVKEY"))]])))
      )
      expect(fake.seen[0]?.headers["x-team"]).toBe("etl")
    }))

  it.effect("layerConfig fails with a ConfigError on a bad value", () =>
    Effect.gen(function*() {
      const fake = fakeHttp(() => ok("1"))
      const exit = yield* Effect.exit(
        Client.ExplorerClient.pipe(
          Effect.provide(Client.layerConfig().pipe(Layer.provide(fake.layer))),
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["EXPLORER_PLAN", "gold"]])))
        )
      )
      expect(Exit.isFailure(exit)).toBe(true)
    }))

  it.effect("layer with invalid options is a defect (a programming error)", () =>
    Effect.gen(function*() {
      const fake = fakeHttp(() => ok("1"))
      const exit = yield* Effect.exit(
        Client.ExplorerClient.pipe(Effect.provide(Client.layer({ baseUrl: "ftp://nope" }).pipe(Layer.provide(fake.layer))))
      )
      expect(Exit.isFailure(exit) && Exit.causeOption(exit)._tag).toBe("Some")
      expect(Exit.isFailure(exit) && String(exit.cause)).toContain("baseUrl")
    }))

  it.effect("two layers provided separately for the same key share one limiter (no doubled rate)", () =>
    Effect.gen(function*() {
      const fake = fakeHttp(() => ok("1"))
      const options = { apiKey: freshKey("TWOLAYERS"), baseUrl: "https://explorer.test", plan: "lite" } as const
      const job = Effect.gen(function*() {
        const client = yield* Client.ExplorerClient
        yield* Effect.all(Array.from({ length: 20 }, () => client.balance({ address: F.ADDRESS })), { concurrency: "unbounded" })
      })
      const layerA = Client.layer(options).pipe(Layer.provide(fake.layer))
      const layerB = Client.layer(options).pipe(Layer.provide(fake.layer))
      yield* driven(Effect.all([job.pipe(Effect.provide(layerA)), job.pipe(Effect.provide(layerB))], { concurrency: "unbounded" }))
      const times = fake.seen.map((s) => s.at)
      expect(times).toHaveLength(40)
      expect(maxInWindow(times, 1000)).toBeLessThanOrEqual(5)
    }))
})

describe("public surface (src/index.ts)", () => {
  it("exports every module as a namespace", async () => {
    const lib = await import("../../src/index.js")
    expect(typeof lib.ExplorerClient.layer).toBe("function")
    expect(typeof lib.ExplorerClient.layerConfig).toBe("function")
    expect(lib.ExplorerClient.ExplorerClient).toBe(Client.ExplorerClient)
    expect(typeof lib.Config.resolve).toBe("function")
    expect(typeof lib.Throttle.make).toBe("function")
    expect(typeof lib.ExplorerError.isTransient).toBe("function")
    expect(lib.Plan.limits.free.callsPerSecond).toBe(3)
    expect(lib.Chain.byId(137)?.name).toBe("Polygon Mainnet")
    expect(typeof lib.Schemas.NormalTransaction).toBe("function")
    expect(typeof lib.Exports.toFile).toBe("function")
    expect(new lib.ExplorerError.RateLimitError({ chainId: 1, module: "m", action: "a", detail: "d", scope: "second" })._tag)
      .toBe("RateLimitError")
  })
})
