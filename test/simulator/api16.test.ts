/**
 * What the simulator answers as the real service does (issue 16): the account lists take
 * `endblock=latest` (the official full-history guide and etherscan-api's default send it).
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Simulator from "../../src/simulator/index.js"
import { call } from "./helpers.js"

layer(
  Simulator.layer({ seed: 16, enforceRateLimits: false, dataset: { chains: [1], busyWalletTransactions: 40, heavyContractLogs: 0 } }),
  { excludeTestServices: true }
)("simulator: issue 16", (it) => {
  it.effect("endblock=latest on the account lists answers as no endblock does", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const c = sim.dataset.chain(1)
      const apikey = sim.demoKeys.proplus
      const wallet = c.wallets[0]?.address ?? ""
      const cases = [
        { module: "account", action: "txlist", address: wallet },
        { module: "account", action: "txlistinternal", address: c.factory.address },
        { module: "account", action: "tokentx", address: wallet },
        { module: "account", action: "tokennfttx", address: wallet },
        { module: "account", action: "token1155tx", address: wallet }
      ]
      for (const q of cases) {
        const base = { chainid: 1, apikey, ...q, startblock: 0, page: 1, offset: 100, sort: "asc" }
        const plain = yield* call(sim, base)
        const latest = yield* call(sim, { ...base, endblock: "latest" })
        expect(latest, q.action).toEqual(plain)
      }
      const txs = yield* call(sim, { chainid: 1, apikey, module: "account", action: "txlist", address: wallet, endblock: "latest" })
      expect(txs.status).toBe("1")
      const bad = yield* call(sim, { chainid: 1, apikey, module: "account", action: "txlist", address: wallet, endblock: "newest" })
      expect(bad.result).toBe("Error! Missing or invalid parameter")
    }))
})
