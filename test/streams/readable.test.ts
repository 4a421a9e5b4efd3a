/**
 * Readable amounts through the library against the simulator: `Sources.withDecimals` on ERC-20
 * transfers of tokens of 0, 6, 18 and 24 decimals (scaled amounts checked against the test's own
 * string arithmetic, ISO times against the unix seconds), on holder lists (decimals from tokeninfo,
 * unknown for a token tokeninfo does not know: empty, never guessed) and on token balances.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer, Redacted, Stream } from "effect"
import * as Client from "../../src/ExplorerClient.js"
import * as Simulator from "../../src/simulator/index.js"
import * as Readable from "../../src/streams/Readable.js"
import * as Sources from "../../src/streams/Sources.js"
import * as Streams from "../../src/streams/Streams.js"

const CHAIN = 1
/** A token with holders planted by a scenario: tokeninfo has no record of it. */
const UNKNOWN_TOKEN = "0x00000000000000000000000000000000deadd1c1"

const SimulatorLive = Simulator.layer({
  seed: 13,
  enforceRateLimits: false,
  dailyCaps: false,
  dataset: {
    chains: [CHAIN],
    busyWalletTransactions: 0,
    heavyContractLogs: 0,
    scenarios: [{ chainId: CHAIN, kind: "tokenholderlist", address: UNKNOWN_TOKEN, rowsPerBlock: [[0, 30]] }]
  }
})

const ClientLive = Layer.unwrapEffect(
  Effect.map(Simulator.Simulator, (sim) =>
    Client.layer({
      baseUrl: sim.baseUrl,
      apiKey: Redacted.make(sim.demoKeys.professional),
      plan: "professional",
      defaultChainId: CHAIN,
      rate: { callsPerSecond: 1_000, throttledPerSecond: 1_000 }
    }))
).pipe(Layer.provide(NodeHttpClient.layerUndici))

/** The test's own scaling: the digits, a point `decimals` from the right, zeros trimmed. */
const byHand = (raw: string, decimals: number): string => {
  const digits = raw.padStart(decimals + 1, "0")
  const whole = digits.slice(0, digits.length - decimals)
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "")
  return fraction === "" ? whole : `${whole}.${fraction}`
}

describe("Readable.scale", () => {
  it("is exact for 0, 6, 18 and 24 decimals; trailing zeros dropped, no point for whole amounts", () => {
    expect(Readable.scale(1_234_567_800n, 6)).toBe("1234.5678")
    expect(Readable.scale(7n, 0)).toBe("7")
    expect(Readable.scale(0n, 18)).toBe("0")
    expect(Readable.scale(10n ** 18n, 18)).toBe("1")
    expect(Readable.scale(1_500_000_000_000_000_001n, 18)).toBe("1.500000000000000001")
    expect(Readable.scale(5n, 24)).toBe("0.000000000000000000000005")
    expect(Readable.scale((1n << 256n) - 1n, 24)).toBe(byHand(((1n << 256n) - 1n).toString(), 24))
    expect(Readable.scale(-25n, 1)).toBe("-2.5")
    expect(Readable.isoTime(1_709_294_400)).toBe("2024-03-01T12:00:00Z")
  })
})

layer(Layer.provideMerge(ClientLive, SimulatorLive), { timeout: "120 seconds", excludeTestServices: true })("withDecimals", (it) => {
  it.effect("ERC-20 transfers of tokens of 0, 6, 18 and 24 decimals: valueScaled exact, timeStampIso UTC", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const chain = sim.dataset.chain(CHAIN)
      const tokens = [chain.wholeToken, chain.erc20[0], chain.erc20[1], chain.proxyToken]
      expect(tokens.map((t) => t?.decimals)).toEqual([0, 6, 18, 24])
      for (const token of tokens) {
        const address = token?.address as string
        const source = yield* Sources.withDecimals(yield* Sources.erc20Transfers({ contractAddress: address }))
        expect(source.query).toMatchObject({ decimals: { from: "tokenDecimal" } })
        const rows = [...yield* Stream.runCollect(Streams.fromSource(source))]
        expect(rows.length).toBeGreaterThan(3)
        for (const row of rows) {
          expect(row.tokenDecimal).toBe(token?.decimals)
          expect(row.valueScaled).toBe(byHand(row.value.toString(), token?.decimals as number))
          expect(row.timeStampIso).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
          expect(Date.parse(row.timeStampIso as string) / 1000).toBe(row.timeStamp)
        }
        if (token?.decimals === 24) expect(rows.some((r) => (r.valueScaled as string).split(".")[1]?.length === 24)).toBe(true)
      }
    }))

  it.effect("holders take the token's decimals from tokeninfo (empty amounts for a token it does not know); top holders come scaled by the server", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const chain = sim.dataset.chain(CHAIN)
      const yocto = yield* Sources.withDecimals(yield* Sources.tokenHolders({ contractAddress: chain.proxyToken.address }))
      expect(yocto.query).toMatchObject({ decimals: { from: "tokeninfo", value: 24 } })
      const holders = [...yield* Stream.runCollect(Streams.fromSource(yocto))]
      expect(holders.length).toBeGreaterThan(2)
      for (const h of holders) expect(h.TokenHolderQuantityScaled).toBe(byHand(h.TokenHolderQuantity.toString(), 24))

      // topholders divides by the decimals itself: the column is its value, written by the same policy.
      const topSource = yield* Sources.withDecimals(yield* Sources.topHolders({ contractAddress: chain.proxyToken.address }))
      expect(topSource.query).toMatchObject({ decimals: { from: "server" } })
      const top = [...yield* Stream.runCollect(Streams.fromSource(topSource))]
      expect(top.map((h) => [h.TokenHolderAddress, h.TokenHolderQuantityScaled])).toEqual(
        holders.map((h) => [h.TokenHolderAddress, h.TokenHolderQuantityScaled])
      )

      const unknown = yield* Sources.withDecimals(yield* Sources.tokenHolders({ contractAddress: UNKNOWN_TOKEN }))
      expect(unknown.query).toMatchObject({ decimals: { from: "tokeninfo", value: null } })
      const rows = [...yield* Stream.runCollect(Streams.fromSource(unknown))]
      expect(rows).toHaveLength(30)
      expect(rows.every((r) => r.TokenHolderQuantityScaled === null)).toBe(true)
    }))

  it.effect("token balances scale each token by its own TokenDivisor", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const chain = sim.dataset.chain(CHAIN)
      const source = yield* Sources.withDecimals(yield* Sources.tokenBalances({ address: chain.wallets[0]?.address as string }))
      const rows = [...yield* Stream.runCollect(Streams.fromSource(source))]
      const divisors = new Set(rows.map((r) => r.TokenDivisor))
      expect(divisors).toEqual(new Set([0, 6, 18, 24]))
      for (const r of rows) expect(r.TokenQuantityScaled).toBe(byHand(r.TokenQuantity.toString(), r.TokenDivisor))
    }))

  it.effect("a data set without token amounts is refused", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const error = yield* Effect.flip(Effect.flatMap(Sources.transactions({ address: sim.dataset.chain(CHAIN).wallets[0]?.address as string }), Sources.withDecimals))
      expect(error.message).toContain("erc20Transfers, tokenBalances, tokenHolders, topHolders")
    }))
})
