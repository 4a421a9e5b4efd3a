/**
 * ENS as ethers 6 reads it through `EtherscanProvider` pointed at the simulator: the registry and the
 * resolver answer eth_call, so `resolveName` gives a name's address and `lookupAddress` the address's
 * name (checked forward, as ethers does); unknown names and addresses are `null`, not errors.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { EtherscanProvider, getAddress, Network } from "ethers"
import * as Simulator from "../../src/simulator/index.js"
import { call } from "../simulator/helpers.js"

/** EtherscanProvider with the simulator's `/v2/api` in place of api.etherscan.io. */
class SimulatorEtherscanProvider extends EtherscanProvider {
  constructor(readonly baseUrl: string, apiKey: string, network: string) {
    super(Network.from(network), apiKey)
  }
  override getUrl(module: string, params: Record<string, string>): string {
    return super.getUrl(module, params).replace("https://api.etherscan.io", this.baseUrl)
  }
  override getPostUrl(): string {
    return super.getPostUrl().replace("https://api.etherscan.io", this.baseUrl)
  }
}

layer(
  Simulator.layer({ seed: 63, enforceRateLimits: false, dataset: { chains: [1, 11155111, 137], busyWalletTransactions: 10, heavyContractLogs: 0 } }),
  { excludeTestServices: true, timeout: 60_000 }
)("ENS names through ethers 6", (it) => {
  for (const [network, chainId] of [["mainnet", 1], ["sepolia", 11155111]] as const) {
    it.effect(`${network}: resolveName and lookupAddress of the data set's names; unknown ones are null`, () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const names = sim.dataset.chain(chainId).ensNames
        expect(names.map((n) => n.name)).toEqual(["alice.eth", "bob.eth", "busy.sim.eth", "router.sim.eth"])
        const provider = new SimulatorEtherscanProvider(sim.baseUrl, sim.demoKeys.proplus, network)
        const got = yield* Effect.acquireUseRelease(
          Effect.succeed(provider),
          (p) =>
            Effect.promise(async () => ({
              resolved: await Promise.all(names.map((n) => p.resolveName(n.name))),
              looked: await Promise.all(names.map((n) => p.lookupAddress(n.address))),
              unknownName: await p.resolveName("nobody.eth"),
              unknownAddress: await p.lookupAddress("0x00000000000000000000000000000000000e0e01"),
              resolver: await p.getResolver("alice.eth"),
              wildcard: await (await p.getResolver("alice.eth"))?.supportsWildcard()
            })),
          (p) => Effect.sync(() => p.destroy())
        )
        expect(got.resolved).toEqual(names.map((n) => getAddress(n.address)))
        expect(got.looked).toEqual(names.map((n) => n.name))
        expect(got.unknownName).toBeNull()
        expect(got.unknownAddress).toBeNull()
        expect(got.wildcard).toBe(false)
        // the registry and the resolver are contracts, as eth_getCode says
        const q = { chainid: chainId, apikey: sim.demoKeys.proplus, module: "proxy", action: "eth_getCode", tag: "latest" }
        for (const address of ["0x00000000000C2E074eC69A0dFb2997BA6C7d2e1e", got.resolver?.address ?? ""]) {
          expect((yield* call(sim, { ...q, address })).result).not.toBe("0x")
        }
      }))
  }

  it.effect("no ENS on a chain it does not live on", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      expect(sim.dataset.chain(137).ensNames).toEqual([])
      const resolver = yield* call(sim, {
        chainid: 137, apikey: sim.demoKeys.proplus, module: "proxy", action: "eth_getCode", tag: "latest",
        address: "0x00000000000C2E074eC69A0dFb2997BA6C7d2e1e"
      })
      expect(resolver.result).toBe("0x")
    }))
})
