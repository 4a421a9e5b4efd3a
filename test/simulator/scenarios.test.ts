import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Simulator from "../../src/simulator/index.js"
import { allPages, type Row, rows } from "./helpers.js"

const CONTRACT = "0x1111111111111111111111111111111111111111"
const WALLET = "0x2222222222222222222222222222222222222222"
const TOKEN = "0x3333333333333333333333333333333333333333"

const scenarios: ReadonlyArray<Simulator.Scenario> = [
  { chainId: 137, kind: "logs", address: CONTRACT, rowsPerBlock: [[1_000, 1_000], [1_001, 0], [2_000, 2_500], [90_000, 1], [2_000_000, 999]] },
  { chainId: 137, kind: "txlist", address: WALLET, rowsPerBlock: [[500, 3], [501, 1_000], [7_000, 1]] },
  { chainId: 137, kind: "txlistinternal", address: WALLET, rowsPerBlock: [[600, 2], [601, 5]] },
  { chainId: 137, kind: "tokentx", address: WALLET, rowsPerBlock: [[700, 7], [800, 1]] },
  { chainId: 137, kind: "tokennfttx", address: WALLET, rowsPerBlock: [[700, 4]] },
  { chainId: 137, kind: "token1155tx", address: WALLET, rowsPerBlock: [[700, 2]] },
  { chainId: 137, kind: "tokenholderlist", address: TOKEN, rowsPerBlock: [[0, 2_345]] },
  { chainId: 137, kind: "addresstokenbalance", address: WALLET, rowsPerBlock: [[0, 30]] },
  { chainId: 137, kind: "addresstokennftbalance", address: WALLET, rowsPerBlock: [[0, 12]] }
]

const perBlock = (list: ReadonlyArray<Row>, hex: boolean): Record<number, number> => {
  const out: Record<number, number> = {}
  for (const r of list) {
    const b = hex ? parseInt(r.blockNumber as string, 16) : Number(r.blockNumber)
    out[b] = (out[b] ?? 0) + 1
  }
  return out
}

layer(
  Simulator.layer({ seed: 9, enforceRateLimits: false, dataset: { busyWalletTransactions: 0, heavyContractLogs: 0, scenarios } }),
  { excludeTestServices: true }
)("scenarios", (it) => {
  it.effect("add exactly the requested rows per block, served and paged like any other", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const key = sim.demoKeys.standard
      const logs = yield* sim.oracle({ chainId: 137, module: "logs", action: "getLogs", params: { address: CONTRACT } })
      expect(perBlock(logs, true)).toEqual({ 1_000: 1_000, 2_000: 2_500, 90_000: 1, 2_000_000: 999 })
      // A block of exactly one page, and one of 2.5 pages.
      const exact = yield* allPages(sim, { chainid: 137, module: "logs", action: "getLogs", address: CONTRACT, fromBlock: 1_000, toBlock: 1_000, apikey: key }, 1_000)
      expect(exact).toHaveLength(1_000)
      const dense = yield* allPages(sim, { chainid: 137, module: "logs", action: "getLogs", address: CONTRACT, fromBlock: 1_001, toBlock: 89_999, apikey: key }, 1_000)
      expect(dense).toEqual(logs.filter((l) => parseInt(l.blockNumber as string, 16) === 2_000))
      expect(new Set(dense.map((l) => l.logIndex)).size).toBe(2_500)
      const topics = dense.map((l) => (l.topics as ReadonlyArray<string>)[0])
      expect(new Set(topics)).toEqual(new Set([Simulator.TRANSFER_TOPIC]))

      const txs = yield* rows(sim, { chainid: 137, module: "account", action: "txlist", address: WALLET, apikey: key })
      expect(perBlock(txs, false)).toEqual({ 500: 3, 501: 1_000, 7_000: 1 })
      const internals = yield* rows(sim, { chainid: 137, module: "account", action: "txlistinternal", address: WALLET, apikey: key })
      expect(perBlock(internals, false)).toEqual({ 600: 2, 601: 5 })
      for (const [action, expected] of [["tokentx", { 700: 7, 800: 1 }], ["tokennfttx", { 700: 4 }], ["token1155tx", { 700: 2 }]] as const) {
        const t = yield* rows(sim, { chainid: 137, module: "account", action, address: WALLET, apikey: key })
        expect(perBlock(t, false), action).toEqual(expected)
      }
      const c = sim.dataset.chain(137)
      const byToken = yield* rows(sim, { chainid: 137, module: "account", action: "tokentx", contractaddress: c.scenarioTokens.erc20, apikey: key })
      expect(byToken).toHaveLength(8)

      expect(yield* sim.oracleCount({ chainId: 137, module: "token", action: "tokenholderlist", params: { contractaddress: TOKEN } })).toBe(2_345)
      const holders = yield* allPages(sim, { chainid: 137, module: "token", action: "tokenholderlist", contractaddress: TOKEN, apikey: key }, 1_000)
      expect(holders).toHaveLength(2_345)
      expect(yield* rows(sim, { chainid: 137, module: "account", action: "addresstokenbalance", address: WALLET, apikey: key })).toHaveLength(30)
      expect(yield* rows(sim, { chainid: 137, module: "account", action: "addresstokennftbalance", address: WALLET, apikey: key })).toHaveLength(12)

      // The knobs at 0: no busy wallet rows, no heavy contract logs.
      expect(c.heavyContract.logs).toBe(0)
      expect(yield* sim.oracleCount({ chainId: 137, module: "logs", action: "getLogs", params: { address: c.heavyContract.address } })).toBe(0)
    }))

  it.effect("the oracle refuses what the server refuses", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const bad = yield* Effect.flip(sim.oracle({ chainId: 137, module: "account", action: "txlist", params: { address: "0x12" } }))
      expect(bad._tag).toBe("SimulatorOracleError")
      expect(bad.reason).toBe("Error! Invalid address format")
      const scalar = yield* Effect.flip(sim.oracle({ chainId: 137, module: "stats", action: "ethsupply" }))
      expect(scalar.reason).toContain("single value")
      const chain = yield* Effect.flip(sim.oracle({ chainId: 17000, module: "account", action: "txlist", params: { address: WALLET } }))
      expect(chain.reason).toContain("unsupported chainid")
    }))
})
