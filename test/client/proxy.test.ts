/**
 * The proxy module through the client, against the simulator: every eth_* method decodes with its
 * Schema and agrees with the explorer's own modules (txlist, getLogs, tokenbalance, balance); `null`
 * answers decode as `null`; a JSON-RPC `error` becomes a JsonRpcError keeping the node's code, message
 * and revert data; the parameter checks refuse bad input before sending. Also: every recorded real
 * proxy answer decodes with the Schema of its operation.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { Transaction, Wallet } from "ethers"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Client from "../../src/ExplorerClient.js"
import * as Errors from "../../src/ExplorerError.js"
import * as Simulator from "../../src/simulator/index.js"
import { proplusOnSimulator } from "./helpers.js"

const TestLayer = proplusOnSimulator(
  Simulator.layer({ seed: 23, dataset: { chains: [1], busyWalletTransactions: 20, heavyContractLogs: 0 } })
)

const hex = (n: number): string => "0x" + n.toString(16)

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("the proxy module through the client", (it) => {
  it.effect("blocks, transactions and receipts agree with txlist and getLogs", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const client = yield* Client.ExplorerClient
      const c = sim.dataset.chain(1)
      const wallet = c.wallets[1]?.address ?? ""
      const erc20 = c.erc20[0]?.address ?? ""
      const txs = yield* client.txlist({ address: wallet, page: 1, offset: 10_000 })
      const tx = txs.find((t) => t.to?.toLowerCase() === erc20.toLowerCase() && !t.isError)
      if (tx === undefined) throw new Error("no token transfer of the wallet")

      expect(yield* client.eth_blockNumber()).toBe(c.latestBlock)
      const block = yield* client.eth_getBlockByNumber({ tag: hex(tx.blockNumber), boolean: true })
      expect(block?.number).toBe(tx.blockNumber)
      expect(block?.hash).toBe(tx.blockHash)
      expect(block?.timestamp).toBe(tx.timeStamp)
      const inBlock = block?.transactions?.find((t) => typeof t !== "string" && t.hash === tx.hash)
      expect(inBlock).toMatchObject({ from: tx.from, nonce: tx.nonce, value: tx.value, gas: tx.gas, gasPrice: tx.gasPrice, input: tx.input })
      expect(yield* client.eth_getBlockTransactionCountByNumber({ tag: hex(tx.blockNumber) })).toBe(block?.transactions?.length)
      const hashes = yield* client.eth_getBlockByNumber({ tag: hex(tx.blockNumber) })
      expect(hashes?.transactions).toContain(tx.hash)
      expect(yield* client.eth_getBlockByNumber({ tag: hex(c.latestBlock + 1) })).toBeNull()
      expect((yield* client.eth_getBlockByNumber({ tag: "latest" }))?.number).toBe(c.latestBlock)

      const byHash = yield* client.eth_getTransactionByHash({ txHash: tx.hash })
      expect(byHash).toMatchObject({ hash: tx.hash, blockNumber: tx.blockNumber, transactionIndex: tx.transactionIndex, type: 2, chainId: 1n })
      const byIndex = yield* client.eth_getTransactionByBlockNumberAndIndex({ tag: hex(tx.blockNumber), index: hex(tx.transactionIndex) })
      expect(byIndex?.hash).toBe(tx.hash)
      expect(yield* client.eth_getTransactionByHash({ txHash: "0x" + "cd".repeat(32) })).toBeNull()
      expect(yield* client.eth_getTransactionReceipt({ txHash: "0x" + "cd".repeat(32) })).toBeNull()

      const receipt = yield* client.eth_getTransactionReceipt({ txHash: tx.hash })
      expect(receipt).toMatchObject({ status: 1, gasUsed: tx.gasUsed, cumulativeGasUsed: tx.cumulativeGasUsed, effectiveGasPrice: tx.gasPrice })
      const logs = yield* client.getLogs({ address: erc20, fromBlock: tx.blockNumber, toBlock: tx.blockNumber })
      expect(receipt?.logs.map((l) => [l.logIndex, l.topics, l.data])).toEqual(
        logs.filter((l) => l.transactionHash === tx.hash).map((l) => [l.logIndex, l.topics, l.data])
      )
      // the bloom holds the token's address (a bit set for each of its three Keccak-256 slices)
      expect(receipt?.logsBloom).toMatch(/^0x[0-9a-f]{512}$/)
      expect(receipt?.logsBloom).not.toBe("0x" + "0".repeat(512))
      expect(yield* client.eth_getUncleByBlockNumberAndIndex({ tag: hex(tx.blockNumber), index: "0x0" })).toBeNull()

      const sent = txs.filter((t) => t.from.toLowerCase() === wallet.toLowerCase()).length
      expect(yield* client.eth_getTransactionCount({ address: wallet })).toBe(sent)
      expect(yield* client.eth_getTransactionCount({ address: wallet, tag: hex(tx.blockNumber - 1) })).toBe(
        txs.filter((t) => t.from.toLowerCase() === wallet.toLowerCase() && t.blockNumber < tx.blockNumber).length
      )
    }))

  it.effect("every block holds its transactions at indexes 0..n-1: count, by-index lookups, receipts and gas agree", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const client = yield* Client.ExplorerClient
      const c = sim.dataset.chain(1)
      // the blocks of three wallets' transactions, and the block after each (usually empty)
      const blocks = new Set<number>()
      for (const w of c.wallets.slice(0, 3)) {
        for (const t of yield* client.txlist({ address: w.address, page: 1, offset: 10_000 })) {
          blocks.add(t.blockNumber)
          blocks.add(t.blockNumber + 1)
        }
      }
      const walk = [...blocks].sort((a, b) => a - b).slice(0, 40)
      let filled = 0
      let several = 0
      for (const b of walk) {
        const n = yield* client.eth_getBlockTransactionCountByNumber({ tag: hex(b) })
        const block = yield* client.eth_getBlockByNumber({ tag: hex(b), boolean: true })
        expect(block?.transactions?.length).toBe(n)
        let cumulative = 0n
        for (let i = 0; i < (n ?? 0); i++) {
          const tx = yield* client.eth_getTransactionByBlockNumberAndIndex({ tag: hex(b), index: hex(i) })
          expect(tx).toMatchObject({ blockNumber: b, transactionIndex: i })
          const inBlock = block?.transactions?.[i]
          expect(typeof inBlock === "string" ? inBlock : inBlock?.hash).toBe(tx?.hash)
          const receipt = yield* client.eth_getTransactionReceipt({ txHash: tx?.hash ?? "" })
          expect(receipt?.transactionIndex).toBe(i)
          // the first transaction's cumulative gas is its own; each next one adds its gas
          expect(receipt?.cumulativeGasUsed).toBe(cumulative + (receipt?.gasUsed ?? 0n))
          cumulative = receipt?.cumulativeGasUsed ?? 0n
        }
        expect(yield* client.eth_getTransactionByBlockNumberAndIndex({ tag: hex(b), index: hex(n ?? 0) })).toBeNull()
        expect(block?.gasUsed).toBe(cumulative)
        if ((n ?? 0) > 0) filled++
        if ((n ?? 0) > 1) several++
      }
      // the walk saw filled blocks, some with more than one transaction
      expect(filled).toBeGreaterThan(10)
      expect(several).toBeGreaterThan(0)
    }))

  it.effect("code, storage, calls (revert: JsonRpcError with code 3 and the reason's data), estimates, raw transactions", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const client = yield* Client.ExplorerClient
      const c = sim.dataset.chain(1)
      const wallet = c.wallets[0]?.address ?? ""
      const erc20 = c.erc20[1]?.address ?? ""
      expect(yield* client.eth_getCode({ address: wallet })).toBe("0x")
      expect(yield* client.eth_getCode({ address: erc20 })).toMatch(/^0x6080604052[0-9a-f]+$/)
      // an ERC-20's total supply sits in slot 2 (OpenZeppelin's layout) and equals stats/tokensupply
      const supply = yield* client.tokensupply({ contractAddress: erc20 })
      expect(BigInt(yield* client.eth_getStorageAt({ address: erc20, position: "0x2" }))).toBe(supply)
      const balanceOf = "0x70a08231" + "0".repeat(24) + wallet.slice(2).toLowerCase()
      expect(BigInt(yield* client.eth_call({ to: erc20, data: balanceOf }))).toBe(
        yield* client.tokenbalance({ contractAddress: erc20, address: wallet })
      )

      const withdraw = "0x2e1a7d4d" + "0".repeat(63) + "1"
      const revert = yield* Effect.flip(client.eth_call({ to: c.unverifiedContract.address, data: withdraw }))
      expect(revert).toMatchObject({ _tag: "JsonRpcError", code: 3, detail: "execution reverted: Vault: withdrawals are paused" })
      expect(revert._tag === "JsonRpcError" && revert.data?.slice(0, 10)).toBe("0x08c379a0")
      expect(Errors.isRevert(revert)).toBe(true)
      expect(Errors.isTransient(revert)).toBe(false)
      const bare = yield* Effect.flip(client.eth_estimateGas({ to: erc20, data: "0xdeadbeef" }))
      expect(bare).toMatchObject({ _tag: "JsonRpcError", code: -32000, detail: "execution reverted" })
      expect(yield* client.eth_estimateGas({ to: wallet, value: "0x1" })).toBe(21_000n)

      // the simulator's development account holds ether: its transactions are accepted, once
      const dev = new Wallet(Simulator.DEV_ACCOUNT.privateKey)
      const signed = yield* Effect.promise(() =>
        dev.signTransaction({ type: 2, chainId: 1, nonce: 0, to: wallet, value: 1n, gasLimit: 21_000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n })
      )
      expect(yield* client.eth_sendRawTransaction({ hex: signed })).toBe(Transaction.from(signed).hash)
      const pending = yield* client.eth_getTransactionByHash({ txHash: Transaction.from(signed).hash ?? "" })
      expect(pending).toMatchObject({ hash: Transaction.from(signed).hash, blockNumber: null, transactionIndex: null, nonce: 0 })
      expect(pending?.from.toLowerCase()).toBe(dev.address.toLowerCase())
      expect(yield* client.eth_getTransactionReceipt({ txHash: Transaction.from(signed).hash ?? "" })).toBeNull()
      expect(yield* Effect.flip(client.eth_sendRawTransaction({ hex: signed }))).toMatchObject({ _tag: "JsonRpcError", detail: "already known" })
      // a sender without ether is refused, as a node refuses it
      const unfunded = yield* Effect.promise(() =>
        Wallet.createRandom().signTransaction({ type: 2, chainId: 1, nonce: 0, to: wallet, value: 1n, gasLimit: 21_000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n })
      )
      expect(yield* Effect.flip(client.eth_sendRawTransaction({ hex: unfunded }))).toMatchObject({
        _tag: "JsonRpcError",
        code: -32000,
        detail: "insufficient funds for gas * price + value"
      })
      const broken = yield* Effect.flip(client.eth_sendRawTransaction({ hex: signed.slice(0, -4) }))
      expect(broken).toMatchObject({ _tag: "JsonRpcError", code: -32000, detail: "rlp: value size exceeds available input length" })

      // signed for another chain (typed, and legacy with EIP-155's v): the node refuses it; a legacy one for this chain passes
      const signer = Wallet.createRandom()
      const elsewhere = yield* Effect.promise(() =>
        Promise.all([
          signer.signTransaction({ type: 2, chainId: 5, nonce: 0, to: wallet, value: 1n, gasLimit: 21_000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n }),
          signer.signTransaction({ type: 0, chainId: 137, nonce: 0, to: wallet, value: 1n, gasLimit: 21_000n, gasPrice: 2n })
        ])
      )
      for (const hex of elsewhere) {
        expect(yield* Effect.flip(client.eth_sendRawTransaction({ hex }))).toMatchObject({ _tag: "JsonRpcError", code: -32000, detail: "invalid chain id" })
      }
      const legacy = yield* Effect.promise(() =>
        dev.signTransaction({ type: 0, chainId: 1, nonce: 1, to: wallet, value: 1n, gasLimit: 21_000n, gasPrice: 2n })
      )
      expect(Transaction.from(legacy).chainId).toBe(1n)
      expect(yield* client.eth_sendRawTransaction({ hex: legacy })).toBe(Transaction.from(legacy).hash)
    }))

  it.effect("bad input is refused before sending", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const client = yield* Client.ExplorerClient
      const before = (yield* sim.stats).requests
      const cases: ReadonlyArray<Effect.Effect<unknown, Errors.ExplorerError>> = [
        client.eth_getStorageAt({ address: "0x" + "11".repeat(20), position: "2" }),
        client.eth_call({ to: "0x" + "11".repeat(20), data: "0x123" }),
        client.eth_getBlockByNumber({ tag: "newest" }),
        client.eth_getTransactionReceipt({ txHash: "0x12" })
      ]
      for (const call of cases) expect((yield* Effect.flip(call))._tag).toBe("InvalidInputError")
      expect((yield* sim.stats).requests).toBe(before)
    }))
})

const fixturesDir = path.resolve(fileURLToPath(new URL("../../", import.meta.url)), "test/fixtures/real-responses")

describe("recorded real proxy answers decode with their operation's Schema", () => {
  const files = fs.readdirSync(fixturesDir).filter((f) => f.startsWith("proxy.") && f.endsWith(".json")).sort()
  it("finds them", () => expect(files.length).toBeGreaterThanOrEqual(20))
  for (const file of files) {
    it(file, () => {
      const action = file.split(".")[1] as keyof typeof Client.Results
      const raw = JSON.parse(fs.readFileSync(path.join(fixturesDir, file), "utf8")) as Record<string, unknown>
      if ("status" in raw) return // a gateway refusal in the explorer's envelope: classified, never decoded
      if ("error" in raw) return // a JSON-RPC error: a JsonRpcError (classifier tests)
      const result = "res" in raw ? raw.res : raw.result
      const schema = Client.Results[action] as unknown as Schema.Schema<unknown, unknown>
      const decoded = Schema.decodeUnknownEither(schema, { onExcessProperty: "preserve" })(result)
      expect(Either.isRight(decoded), Either.isLeft(decoded) ? String(decoded.left) : "").toBe(true)
      if (result === null) expect(Either.getOrThrow(decoded)).toBeNull()
    })
  }
})
