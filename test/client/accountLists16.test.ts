/**
 * getminedblocks and txsBeaconWithdrawal (issue 16) through the client and as streams against the
 * simulator: the rows agree with the proxy module's blocks (miner, timestamp), with the balance of the
 * withdrawal address, and with the oracle; the streams page them (page numbers for the mined blocks,
 * the block cursor for the withdrawals) on the free plan's 1,000-row window, every row once.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { Chunk, Effect, Layer, Redacted, Stream } from "effect"
import * as Client from "../../src/ExplorerClient.js"
import * as Simulator from "../../src/simulator/index.js"
import * as Streams from "../../src/streams/Streams.js"

const SimulatorLive = Simulator.layer({ seed: 31, enforceRateLimits: false, dataset: { chains: [1], busyWalletTransactions: 0, heavyContractLogs: 0 } })

/** The simulator and a client of `plan` on it (its demo key). */
const on = (plan: "free" | "proplus") =>
  Layer.unwrapEffect(
    Effect.map(Simulator.Simulator, (sim) =>
      Client.layer({ apiKey: Redacted.make(sim.demoKeys[plan]), plan, baseUrl: sim.baseUrl, retry: { times: 0 } }))
  ).pipe(Layer.provideMerge(SimulatorLive), Layer.provide(NodeHttpClient.layerUndici))

layer(on("free"), { timeout: 120_000, excludeTestServices: true })("mined blocks and beacon withdrawals (free plan)", (it) => {
  it.effect("getminedblocks: the solo validator's blocks, newest first, each the miner of its block with its reward", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const client = yield* Client.ExplorerClient
      const c = sim.dataset.chain(1)
      const mined = yield* client.getminedblocks({ address: c.soloValidator.address })
      expect(mined.length).toBeGreaterThan(50)
      expect(mined.length).toBeLessThan(1_000)
      expect([...mined].sort((a, b) => b.blockNumber - a.blockNumber)).toEqual(mined)
      for (const m of mined.slice(0, 3)) {
        const block = yield* client.eth_getBlockByNumber({ tag: "0x" + m.blockNumber.toString(16) })
        expect(block?.miner).toBe(c.soloValidator.address)
        expect(block?.timestamp).toBe(m.timeStamp)
        expect(m.blockReward).toBeGreaterThan(0n)
      }
      const other = yield* client.eth_getBlockByNumber({ tag: "0x" + (mined[0]!.blockNumber + 1).toString(16) })
      expect(c.builders.map((b) => b.address)).toContain(other?.miner)
      expect(yield* client.getminedblocks({ address: c.soloValidator.address, blocktype: "uncles" })).toEqual([])
      expect(yield* client.getminedblocks({ address: c.wallets[0]!.address })).toEqual([])
      // the free window: 1,000 rows
      const refused = yield* Effect.flip(client.getminedblocks({ address: c.builders[0]!.address, page: 2, offset: 1_000 }))
      expect(refused._tag).toBe("InvalidInputError")

      const oracle = yield* Effect.orDie(sim.oracle({ chainId: 1, module: "account", action: "getminedblocks", params: { address: c.soloValidator.address } }))
      const streamed = Chunk.toReadonlyArray(yield* Stream.runCollect(Streams.minedBlocks({ address: c.soloValidator.address })))
      expect(streamed).toEqual(mined)
      expect(streamed.map((m) => String(m.blockNumber))).toEqual(oracle.map((r) => r.blockNumber))
    }))

  it.effect("a builder's list is longer than the free window: the stream stops with ResultWindowError", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const c = sim.dataset.chain(1)
      const error = yield* Effect.flip(Stream.runDrain(Streams.minedBlocks({ address: c.builders[1]!.address })))
      expect(error._tag).toBe("ResultWindowError")
    }))

  it.effect("txsBeaconWithdrawal: the staker's withdrawals in block order, its balance is their sum, the stream pages them once", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const client = yield* Client.ExplorerClient
      const c = sim.dataset.chain(1)
      const staker = c.staker.address
      const all = yield* client.txsBeaconWithdrawal({ address: staker })
      expect(all.length).toBeGreaterThan(500)
      expect(all.length).toBeLessThanOrEqual(1_000)
      expect(new Set(all.map((w) => w.validatorIndex))).toEqual(new Set(c.staker.validators))
      expect([...all].sort((a, b) => a.blockNumber - b.blockNumber)).toEqual(all)
      expect(all.every((w) => w.address === staker && w.timestamp === c.timestampOf(w.blockNumber))).toBe(true)
      const gwei = all.reduce((sum, w) => sum + w.amount, 0n)
      expect(yield* client.balance({ address: staker })).toBe(gwei * 1_000_000_000n)
      const middle = all[Math.floor(all.length / 2)]!
      // the withdrawal is in its block, as eth_getBlockByNumber lists withdrawals (post-Shanghai, post-Cancun fields)
      const block = yield* client.eth_getBlockByNumber({ tag: "0x" + middle.blockNumber.toString(16) })
      expect(block?.withdrawals).toContainEqual({
        index: middle.withdrawalIndex,
        validatorIndex: middle.validatorIndex,
        address: staker,
        amount: middle.amount
      })
      expect(block?.blobGasUsed).toBe(0n)
      expect(block?.parentBeaconBlockRoot).toMatch(/^0x[0-9a-f]{64}$/)
      const desc = yield* client.txsBeaconWithdrawal({ address: staker, sort: "desc", page: 1, offset: 5 })
      expect(desc).toEqual([...all].reverse().slice(0, 5))
      expect(yield* client.txsBeaconWithdrawal({ address: c.wallets[0]!.address })).toEqual([])

      const range = { fromBlock: all[10]!.blockNumber, toBlock: middle.blockNumber }
      const streamed = Chunk.toReadonlyArray(yield* Stream.runCollect(Streams.beaconWithdrawals({ address: staker, ...range })))
      expect(streamed).toEqual(all.filter((w) => w.blockNumber >= range.fromBlock && w.blockNumber <= range.toBlock))
    }))
})
