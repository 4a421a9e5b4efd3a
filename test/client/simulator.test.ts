/**
 * The client against the simulator (real HTTP on 127.0.0.1, real clock, the simulator's own rate
 * windows): every operation answers and decodes, list answers equal the oracle, the server's
 * refusals become typed errors, and a client running flat out gets no rate-limit answer.
 */
import { HttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Redacted, Schema } from "effect"
import * as Client from "../../src/ExplorerClient.js"
import * as Schemas from "../../src/schemas/index.js"
import * as Simulator from "../../src/simulator/index.js"
import { proplusOnSimulator, simulatorProcess } from "./helpers.js"

const RATE_KEY = "CLIENTRATEKEY00000000000000000000"
const MISMATCH_KEY = "CLIENTMISMATCHKEY0000000000000000"

const OPTIONS: Simulator.SimulatorOptions = {
  seed: 11,
  keys: { [RATE_KEY]: "professional", [MISMATCH_KEY]: "free" },
  dataset: { chains: [1, 137, 999], busyWalletTransactions: 300, heavyContractLogs: 600 }
}
const SimulatorLive = Simulator.layer(OPTIONS)

/** The simulator, an undici HttpClient, and a Pro Plus client pointed at the simulator. */
const TestLayer = proplusOnSimulator(SimulatorLive)

const decode = <A, I>(schema: Schema.Schema<A, I>, value: unknown) =>
  Schema.decodeUnknown(schema, { onExcessProperty: "preserve" })(value).pipe(Effect.orDie)

// Real clock: the simulator counts its windows on it, so the client's limiter must wait on it too.
layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("client against the simulator", (it) => {
  // The tests that count rate-limit answers send to the same data set served by a process of its own
  // (`simulatorProcess`); the in-process simulator gives the data set's entities and the oracle.
  it.scoped("every operation answers and decodes", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const judge = yield* simulatorProcess(OPTIONS)
      const client = yield* Client.make({
        apiKey: Redacted.make(sim.demoKeys.proplus),
        baseUrl: judge.baseUrl,
        plan: "proplus",
        retry: { baseDelay: "20 millis" }
      })
      const c = sim.dataset.chain(1)
      const wallet = c.wallets[0]?.address ?? ""
      const erc20 = c.erc20[0]?.address ?? ""
      const block = c.activity.toBlock
      const before = (yield* judge.stats).requests
      const retriedBefore = (yield* client.stats).retries
      // Throttled (2/s) operations run alongside the others; the client spaces them itself.
      const results = yield* Effect.all(
        {
          eth_gasPrice: client.eth_gasPrice(),
          tokeninfo: client.tokeninfo({ contractAddress: erc20 }),
          tokenbalancehistory: client.tokenbalancehistory({ contractAddress: erc20, address: wallet, blockNo: block }),
          addresstokennftbalance: client.addresstokennftbalance({ address: wallet }),
          topholders: client.topholders({ contractAddress: c.airdropToken.address, limit: 10 }),
          getsourcecode: client.getsourcecode({ address: c.verifiedContract.address }),
          dailygasused: client.dailygasused({ startDate: "2025-09-01", endDate: "2025-09-03" }),
          balance: client.balance({ address: wallet }),
          balancehistory: client.balancehistory({ address: wallet, blockNo: block }),
          addresstokenbalance: client.addresstokenbalance({ address: wallet }),
          txlist: client.txlist({ address: wallet }),
          txlistinternal: client.txlistinternal({ address: c.factory.address }),
          tokentx: client.tokentx({ address: wallet }),
          tokennfttx: client.tokennfttx({ address: wallet }),
          token1155tx: client.token1155tx({ address: wallet }),
          fundedby: client.fundedby({ address: wallet }),
          getblocknobytime: client.getblocknobytime({ timestamp: c.timestampOf(block), closest: "before" }),
          getabi: client.getabi({ address: c.verifiedContract.address }),
          tokenholderlist: client.tokenholderlist({ contractAddress: c.airdropToken.address, page: 1, offset: 100 }),
          getLogs: client.getLogs({ address: c.heavyContract.address, topic0: c.heavyContract.topic0, page: 1, offset: 100 }),
          dailytx: client.dailytx({ startDate: "2025-09-01", endDate: "2025-09-03", sort: "desc" }),
          ethsupply: client.ethsupply(),
          getaddresstag: client.getaddresstag({ address: c.funder.address }),
          exportaddresstags: client.exportaddresstags({ label: c.labels[0]?.labelsSlug[0] ?? "exchange" }),
          getlabelmasterlist: client.getlabelmasterlist()
        },
        { concurrency: "unbounded" }
      )
      const stats = yield* judge.stats
      expect(results.eth_gasPrice).toBeGreaterThan(0n)
      expect(results.tokeninfo[0]?.contractAddress.toLowerCase()).toBe(erc20.toLowerCase())
      expect(typeof results.tokenbalancehistory).toBe("bigint")
      expect(results.topholders).toHaveLength(10)
      expect(results.getsourcecode[0]?.ABI.startsWith("[")).toBe(true)
      expect(JSON.parse(results.getabi)).toBeInstanceOf(Array)
      const oracle = (module: string, action: string, params: Readonly<Record<string, string>>) =>
        sim.oracle({ chainId: 1, module, action, params })
      const days = { startdate: "2025-09-01", enddate: "2025-09-03" }
      expect(results.dailygasused).toEqual(
        yield* decode(Schema.Array(Schemas.DailyGasUsed), yield* oracle("stats", "dailygasused", days))
      )
      expect(results.dailytx).toEqual(
        yield* decode(Schema.Array(Schemas.DailyTxCount), yield* oracle("stats", "dailytx", { ...days, sort: "desc" }))
      )
      expect(typeof results.balance).toBe("bigint")
      expect(results.txlist).toEqual(
        yield* decode(Schema.Array(Schemas.NormalTransaction), yield* oracle("account", "txlist", { address: wallet }))
      )
      expect(results.tokentx).toEqual(
        yield* decode(Schema.Array(Schemas.Erc20Transfer), yield* oracle("account", "tokentx", { address: wallet }))
      )
      expect(results.fundedby.fundingAddress.toLowerCase()).toBe(c.funder.address.toLowerCase())
      expect(results.getblocknobytime).toBeLessThanOrEqual(block)
      expect(results.tokenholderlist).toHaveLength(100)
      expect(results.getLogs).toHaveLength(100)
      expect(results.ethsupply).toBeGreaterThan(0n)
      expect(results.getaddresstag[0]?.nametag).toBe(c.labels[0]?.nametag)
      const label = c.labels[0]?.labelsSlug[0] ?? "exchange"
      expect(results.exportaddresstags).toEqual(
        yield* decode(Schema.Array(Schemas.AddressTag), yield* oracle("nametag", "exportaddresstags", { label }))
      )
      expect(results.getlabelmasterlist).toEqual(
        yield* decode(Schema.Array(Schemas.LabelMaster), yield* oracle("nametag", "getlabelmasterlist", {}))
      )
      // One request each, and one more for each retry the client made (a loaded machine times one out now and then).
      expect(stats.requests - before).toBe(25 + (yield* client.stats).retries - retriedBefore)
      expect(stats.rateLimitedByKey[Simulator.keyFingerprint(sim.demoKeys.proplus)] ?? 0).toBe(0)
    }))

  it.effect("list answers are the oracle's records, decoded", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const client = yield* Client.ExplorerClient
      const c = sim.dataset.chain(137)
      const wallet = c.wallets[1]?.address ?? ""
      const txs = yield* client.txlist({ chainId: 137, address: wallet, sort: "asc" })
      const oracleTxs = yield* sim.oracle({ chainId: 137, module: "account", action: "txlist", params: { address: wallet } })
      expect(txs).toEqual(yield* decode(Schema.Array(Schemas.NormalTransaction), oracleTxs))
      const logs = yield* client.getLogs({ chainId: 137, address: c.heavyContract.address, page: 1, offset: 1000 })
      const oracleLogs = yield* sim.oracle({ chainId: 137, module: "logs", action: "getLogs", params: { address: c.heavyContract.address } })
      expect(logs).toEqual(yield* decode(Schema.Array(Schemas.Log), oracleLogs.slice(0, 1000)))
    }))

  it.scoped("the server's refusals become typed errors", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const c = sim.dataset.chain(1)
      // A client that believes its free key is Pro Plus: the server answers, the client classifies.
      const mismatched = yield* Client.make({ apiKey: Redacted.make(MISMATCH_KEY), baseUrl: sim.baseUrl, plan: "proplus" })
      const tier = yield* Effect.flip(mismatched.tokeninfo({ contractAddress: c.erc20[0]?.address ?? "" }))
      expect(tier._tag).toBe("PlanTierError")
      const chain = yield* Effect.flip(mismatched.txlist({ chainId: 8453, address: c.funder.address }))
      expect(chain._tag).toBe("ChainNotOnPlanError")
      const unverified = yield* Effect.flip(mismatched.getabi({ address: c.unverifiedContract.address }))
      expect(unverified._tag).toBe("NotOkError")
      expect(unverified.detail).toBe("Contract source code not verified")
      const wrongKey = yield* Client.make({ apiKey: Redacted.make("NOSUCHKEY123"), baseUrl: sim.baseUrl })
      expect((yield* Effect.flip(wrongKey.balance({ address: c.funder.address })))._tag).toBe("InvalidApiKeyError")
      const noKey = yield* Client.make({ baseUrl: sim.baseUrl })
      const before = (yield* sim.stats).requests
      expect((yield* Effect.flip(noKey.balance({ address: c.funder.address })))._tag).toBe("InvalidApiKeyError")
      expect((yield* sim.stats).requests).toBe(before)
    }), { timeout: 30_000 })

  it.scoped("flat out from many fibers: the simulator's windows never refuse the client", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const judge = yield* simulatorProcess(OPTIONS)
      const c = sim.dataset.chain(1)
      const client = yield* Client.make({ apiKey: Redacted.make(RATE_KEY), baseUrl: judge.baseUrl, plan: "professional" })
      const wallet = c.wallets[2]?.address ?? ""
      yield* Effect.all(
        [
          ...Array.from({ length: 45 }, (_, i) => client.balance({ chainId: i % 3 === 0 ? 137 : 1, address: wallet })),
          ...Array.from({ length: 4 }, () => client.balancehistory({ address: wallet, blockNo: c.activity.toBlock }))
        ],
        { concurrency: "unbounded" }
      )
      const stats = yield* judge.stats
      expect(stats.rateLimitedByKey[Simulator.keyFingerprint(RATE_KEY)] ?? 0).toBe(0)
      expect(stats.byKey[Simulator.keyFingerprint(RATE_KEY)]).toBe(49)
      expect((yield* client.stats).retries).toBe(0)
    }), { timeout: 30_000 })
})

describe("simulator module", () => {
  layer(SimulatorLive)((it) => {
    it.effect("exports a layer with baseUrl and demo keys", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        expect(sim.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
        expect(Object.keys(sim.demoKeys)).toHaveLength(6)
      }))
  })
})

// A request that leaves its slot late (a connection set up, a busy event loop, a transform that waits)
// narrows the server's window to the calls after it: the key's lanes count it from when undici wrote it.
const LATE_KEY = "CLIENTLATEKEY0000000000000000000"
const LATE_OPTIONS: Simulator.SimulatorOptions = { seed: 12, keys: { [LATE_KEY]: "standard" }, dataset: { chains: [1] }, rateLimitToleranceMs: 150 }
layer(
  Simulator.layer(LATE_OPTIONS).pipe(Layer.provideMerge(NodeHttpClient.layerUndici)),
  { timeout: 30_000, excludeTestServices: true }
)("a request that leaves late", (it) => {
  it.scoped("the throttled call two after it waits a second from when it left: no rate-limit answer", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const judge = yield* simulatorProcess(LATE_OPTIONS)
      const c = sim.dataset.chain(1)
      const wallet = c.wallets[0]?.address ?? ""
      const erc20 = c.erc20[0]?.address ?? ""
      // The first request is held 400 ms between its slot and the wire; the next ones are not.
      let held = 0
      const client = yield* Client.make({
        apiKey: Redacted.make(LATE_KEY),
        baseUrl: judge.baseUrl,
        plan: "standard",
        transformClient: HttpClient.mapRequestEffect((request) =>
          held++ === 0 ? Effect.as(Effect.sleep("400 millis"), request) : Effect.succeed(request)
        )
      })
      yield* Effect.all(
        [
          client.tokeninfo({ contractAddress: erc20 }),
          client.tokenbalancehistory({ contractAddress: erc20, address: wallet, blockNo: c.activity.toBlock }),
          client.balancehistory({ address: wallet, blockNo: c.activity.toBlock })
        ],
        { concurrency: "unbounded" }
      )
      const stats = yield* judge.stats
      // Counted from their slots, the third would reach the server 642 ms after the first.
      expect(stats.rateLimitedByKey[Simulator.keyFingerprint(LATE_KEY)] ?? 0).toBe(0)
      expect(stats.byKey[Simulator.keyFingerprint(LATE_KEY)]).toBe(3)
      expect((yield* client.stats).retries).toBe(0)
    }))
})
