/**
 * Conformance with a second client nobody here wrote: etherscan-api 12.1 (its V2 line), given a
 * transport that sends its requests to the simulator instead of api.etherscan.io, with its own
 * defaults (`endblock=latest` on the account lists, `tag=latest`). Every call it supports that the
 * simulator serves so far; the answers equal the simulator's own.
 *
 * Not yet covered (not served yet): getminedblocks, chainsize, nodecount, getblockreward,
 * getcontractcreation, checkverifystatus, getapilimit, the proxy calls other than eth_blockNumber.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { init } from "etherscan-api"
import * as Simulator from "../../src/simulator/index.js"
import { call } from "../simulator/helpers.js"

const clientFor = (sim: Simulator.Simulator.Service) =>
  init(sim.demoKeys.proplus, 1, 10_000, async (url: string, options?: { method?: string; body?: string }) => {
    const r = await fetch(url.replace("https://api.etherscan.io", sim.baseUrl), {
      method: options?.method ?? "GET",
      ...(options?.body === undefined ? {} : { body: options.body, headers: { "content-type": "application/x-www-form-urlencoded" } })
    })
    return JSON.parse(await r.text())
  })

layer(
  Simulator.layer({ seed: 62, enforceRateLimits: false, dataset: { chains: [1], busyWalletTransactions: 30, heavyContractLogs: 0 } }),
  { excludeTestServices: true }
)("etherscan-api 12.1 against the simulator", (it) => {
  it.effect("account lists with endblock=latest, balances, stats, gas tracker, transaction and block calls", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const c = sim.dataset.chain(1)
      const wallet = c.wallets[0]?.address ?? ""
      const other = c.wallets[1]?.address ?? ""
      const erc20 = c.erc20[0]?.address ?? ""
      const q = { chainid: 1, apikey: sim.demoKeys.proplus }
      const own = (params: Record<string, string | number>) => Effect.map(call(sim, { ...q, ...params }), (e) => e.result)
      const api = clientFor(sim)
      const got = yield* Effect.promise(async () => ({
        txlist: await api.account.txlist(wallet),
        internal: await api.account.txlistinternal(undefined, c.factory.address),
        tokentx: await api.account.tokentx(wallet),
        balance: await api.account.balance(wallet),
        multi: await api.account.balance([wallet, other]),
        tokenbalance: await api.account.tokenbalance(wallet, undefined, erc20),
        tokensupply: await api.stats.tokensupply(undefined, erc20),
        ethsupply: await api.stats.ethsupply(),
        ethprice: await api.stats.ethprice(),
        gasoracle: await api.gastracker.gasoracle(),
        gasestimate: await api.gastracker.gasestimate(2_000_000_000),
        countdown: await api.block.getblockcountdown(c.latestBlock + 5),
        bytime: await api.block.getblocknobytime(c.timestampOf(c.latestBlock - 10), "before"),
        abi: await api.contract.getabi(c.verifiedContract.address),
        source: await api.contract.getsourcecode(c.verifiedContract.address),
        blockNumber: await api.proxy.eth_blockNumber()
      }))
      expect(got.txlist.result).toEqual(yield* own({ module: "account", action: "txlist", address: wallet, page: 1, offset: 100 }))
      expect(got.internal.result).toEqual(yield* own({ module: "account", action: "txlistinternal", address: c.factory.address }))
      expect(got.tokentx.result).toEqual(yield* own({ module: "account", action: "tokentx", address: wallet, page: 1, offset: 100 }))
      expect(got.balance.result).toEqual(yield* own({ module: "account", action: "balance", address: wallet }))
      expect(got.multi.result).toEqual(yield* own({ module: "account", action: "balancemulti", address: `${wallet},${other}` }))
      expect(got.tokenbalance.result).toEqual(yield* own({ module: "account", action: "tokenbalance", address: wallet, contractaddress: erc20 }))
      expect(got.tokensupply.result).toEqual(yield* own({ module: "stats", action: "tokensupply", contractaddress: erc20 }))
      expect(got.ethsupply.result).toEqual(yield* own({ module: "stats", action: "ethsupply" }))
      expect(got.ethprice.result).toEqual(yield* own({ module: "stats", action: "ethprice" }))
      expect(got.gasoracle.result).toEqual(yield* own({ module: "gastracker", action: "gasoracle" }))
      expect(got.gasestimate.result).toEqual(yield* own({ module: "gastracker", action: "gasestimate", gasprice: 2_000_000_000 }))
      expect(got.countdown.result).toMatchObject({ RemainingBlock: "5" })
      expect(got.bytime.result).toBe(String(c.latestBlock - 10))
      expect(typeof got.abi.result).toBe("string")
      expect(Array.isArray(got.source.result)).toBe(true)
      expect(got.blockNumber.result).toBe("0x" + c.latestBlock.toString(16))
    }))

  it.effect("getstatus and gettxreceiptstatus", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const api = clientFor(sim)
      const hash = "0x" + "cd".repeat(32)
      const got = yield* Effect.promise(async () => ({
        status: await api.transaction.getstatus(hash),
        receipt: await api.transaction.gettxreceiptstatus(hash)
      }))
      expect(got.status.result).toEqual({ isError: "0", errDescription: "" })
      expect(got.receipt.result).toEqual({ status: "" })
    }))
})
