/**
 * Conformance with a client nobody here wrote: ethers 6's `EtherscanProvider`, subclassed only to send
 * its requests to the simulator's URL, calls the simulator for every call it supports that the
 * simulator serves so far, and its answers equal the simulator's own data.
 *
 * Not yet covered (the simulator's proxy module serves only eth_blockNumber and eth_gasPrice so far):
 * getCode, getStorage, getTransactionCount, getBlock, getTransaction, getTransactionReceipt,
 * getFeeData, call, estimateGas, broadcastTransaction.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { EtherscanProvider, Network } from "ethers"
import * as Simulator from "../../src/simulator/index.js"
import { call } from "../simulator/helpers.js"

/** EtherscanProvider with the simulator's `/v2/api` in place of api.etherscan.io. */
class SimulatorEtherscanProvider extends EtherscanProvider {
  constructor(readonly baseUrl: string, apiKey: string) {
    super(Network.from("mainnet"), apiKey)
  }
  override getUrl(module: string, params: Record<string, string>): string {
    return super.getUrl(module, params).replace("https://api.etherscan.io", this.baseUrl)
  }
  override getPostUrl(): string {
    return super.getPostUrl().replace("https://api.etherscan.io", this.baseUrl)
  }
}

const withProvider = <A>(f: (p: SimulatorEtherscanProvider, sim: Simulator.Simulator.Service) => Promise<A>) =>
  Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    const provider = new SimulatorEtherscanProvider(sim.baseUrl, sim.demoKeys.proplus)
    return yield* Effect.acquireUseRelease(
      Effect.succeed(provider),
      (p) => Effect.promise(() => f(p, sim)),
      (p) => Effect.sync(() => p.destroy())
    )
  })

layer(
  Simulator.layer({ seed: 61, enforceRateLimits: false, dataset: { chains: [1], busyWalletTransactions: 30, heavyContractLogs: 0 } }),
  { excludeTestServices: true }
)("ethers 6 EtherscanProvider against the simulator", (it) => {
  it.effect("block number, balance, gas price, ether price", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const c = sim.dataset.chain(1)
      const wallet = c.wallets[0]?.address ?? ""
      const q = { chainid: 1, apikey: sim.demoKeys.proplus }
      const balance = BigInt((yield* call(sim, { ...q, module: "account", action: "balance", address: wallet })).result as string)
      const price = (yield* call(sim, { ...q, module: "stats", action: "ethprice" })).result as { ethusd: string }
      const got = yield* withProvider(async (p) => ({
        block: await p.getBlockNumber(),
        balance: await p.getBalance(wallet),
        gasPrice: (await p._perform({ method: "getGasPrice" })) as string,
        etherPrice: await p.getEtherPrice()
      }))
      expect(got.block).toBe(c.latestBlock)
      expect(got.balance).toBe(balance)
      expect(BigInt(got.gasPrice)).toBeGreaterThan(0n)
      expect(got.etherPrice).toBe(parseFloat(price.ethusd))
    }))

  it.effect("getContract (getabi) and fetch of txlist, tokentx, balancemulti, getblockcountdown", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const c = sim.dataset.chain(1)
      const wallet = c.wallets[0]?.address ?? ""
      const q = { chainid: 1, apikey: sim.demoKeys.proplus }
      const txs = (yield* call(sim, { ...q, module: "account", action: "txlist", address: wallet })).result
      const got = yield* withProvider(async (p) => ({
        contract: await p.getContract(c.verifiedContract.address),
        unverified: await p.getContract(c.unverifiedContract.address),
        txs: await p.fetch("account", { action: "txlist", address: wallet, startblock: 0, endblock: "latest" }),
        transfers: await p.fetch("account", { action: "tokentx", address: wallet, endblock: "latest" }),
        multi: await p.fetch("account", { action: "balancemulti", address: wallet }),
        countdown: await p.fetch("block", { action: "getblockcountdown", blockno: c.latestBlock + 10 }),
        posted: await p.fetch("stats", { action: "ethsupply" }, true)
      }))
      expect(got.contract).not.toBeNull()
      expect(got.contract?.interface.fragments.length).toBeGreaterThan(0)
      expect(got.unverified).toBeNull()
      expect(got.txs).toEqual(txs)
      expect(Array.isArray(got.transfers)).toBe(true)
      expect(got.multi).toHaveLength(1)
      expect(got.countdown.RemainingBlock).toBe("10")
      expect(BigInt(got.posted)).toBeGreaterThan(0n)
    }))
})
