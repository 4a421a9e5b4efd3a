/**
 * A broadcast mined, as ethers 6 sees it: a wallet connected to `EtherscanProvider` (pointed at the
 * simulator) sends ether; the transaction is pending until the simulator's clock produces the next
 * block (chain 1: 12 s, moved here by the test's clock), then `tx.wait()` returns its receipt; the block,
 * the nonce, both balances and the sender's txlist follow; a transaction signed again with a used nonce
 * is "nonce too low".
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { EtherscanProvider, isError, Network, Wallet } from "ethers"
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
  // ethers polls for new blocks every 4 s by default; the test moves the clock at once
  override get pollingInterval(): number {
    return 50
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** The simulator's clock: real time moved on by the test (blocks are produced on it). */
let shift = 0
const BLOCK_TIME_MS = 12_000

layer(
  Simulator.layer({
    seed: 62,
    enforceRateLimits: false,
    now: () => Date.now() + shift,
    dataset: { chains: [1], busyWalletTransactions: 0, heavyContractLogs: 0 }
  }),
  { excludeTestServices: true, timeout: 60_000 }
)("a raw transaction mined", (it) => {
  it.effect("tx.wait() returns once the next block is produced; block, nonce, balances and txlist follow; nonce too low", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const latest = sim.dataset.chain(1).latestBlock
      const recipient = "0x00000000000000000000000000000000000c0de1"
      const q = { chainid: 1, apikey: sim.demoKeys.proplus }
      const provider = new SimulatorEtherscanProvider(sim.baseUrl, sim.demoKeys.proplus)
      const got = yield* Effect.acquireUseRelease(
        Effect.succeed(provider),
        (p) =>
          Effect.promise(async () => {
            const wallet = new Wallet(Simulator.DEV_ACCOUNT.privateKey, p)
            const before = { sender: await p.getBalance(wallet.address), recipient: await p.getBalance(recipient) }
            const sent = await wallet.sendTransaction({ to: recipient, value: 10n ** 15n })
            const pending = await p.getTransaction(sent.hash)
            const receiptBefore = await p.getTransactionReceipt(sent.hash)
            const blockBefore = await p.getBlockNumber()
            // ethers waits for the next block, polling the block number; the clock then passes a block time
            const waited = sent.wait()
            await sleep(500)
            shift += BLOCK_TIME_MS + 1_000
            const receipt = await waited
            const mined = await p.getTransaction(sent.hash)
            const block = await p.getBlock(latest + 1)
            const after = { sender: await p.getBalance(wallet.address), recipient: await p.getBalance(recipient) }
            const nonce = await p.getTransactionCount(wallet.address)
            const replay = await wallet.signTransaction({
              type: 2, chainId: 1, nonce: 0, to: recipient, value: 1n, gasLimit: 21_000n,
              maxFeePerGas: 30_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n
            })
            const tooLow = await p.broadcastTransaction(replay).then(() => undefined, (e: unknown) => e)
            // a second one waits for the block after
            const second = await wallet.sendTransaction({ to: recipient, value: 2n })
            const secondPending = await p.getTransaction(second.hash)
            const waitedSecond = second.wait()
            await sleep(500)
            shift += BLOCK_TIME_MS + 1_000
            const secondReceipt = await waitedSecond
            return {
              before, after, sent, pending, replay, receiptBefore, blockBefore, receipt, mined, block, nonce, tooLow,
              secondPending, secondReceipt, head: await p.getBlockNumber()
            }
          }),
        (p) => Effect.sync(() => p.destroy())
      )
      expect(got.pending?.blockNumber).toBeNull()
      expect(got.receiptBefore).toBeNull()
      expect(got.blockBefore).toBe(latest)
      expect(got.receipt?.status).toBe(1)
      expect(got.receipt?.blockNumber).toBe(latest + 1)
      expect(got.receipt?.hash).toBe(got.sent.hash)
      expect(got.receipt?.logs).toEqual([])
      expect(got.receipt?.gasUsed).toBe(21_000n)
      expect(got.mined?.blockNumber).toBe(latest + 1)
      expect(got.block?.transactions).toEqual([got.sent.hash])
      expect(got.nonce).toBe(1)
      const fee = (got.receipt?.gasUsed ?? 0n) * (got.receipt?.gasPrice ?? 0n)
      expect(fee).toBeGreaterThan(0n)
      expect(got.after.sender).toBe(got.before.sender - 10n ** 15n - fee)
      expect(got.after.recipient).toBe(got.before.recipient + 10n ** 15n)
      // geth's "nonce too low" is ethers' NONCE_EXPIRED
      expect(isError(got.tooLow, "NONCE_EXPIRED")).toBe(true)
      const raw = yield* call(sim, { ...q, module: "proxy", action: "eth_sendRawTransaction", hex: got.replay })
      expect((raw as { readonly error?: unknown }).error).toEqual({ code: -32000, message: "nonce too low" })
      expect(got.secondPending?.blockNumber).toBeNull()
      expect(got.secondReceipt?.blockNumber).toBe(latest + 2)
      expect(got.head).toBe(latest + 2)

      // the explorer's own lists show it too
      const txs = (yield* call(sim, { ...q, module: "account", action: "txlist", address: Simulator.DEV_ACCOUNT.address })).result as ReadonlyArray<
        Record<string, string>
      >
      expect(txs.map((t) => [t.hash, t.blockNumber, t.nonce, t.to, t.value, t.txreceipt_status])).toEqual([
        [got.sent.hash, String(latest + 1), "0", recipient, String(10n ** 15n), "1"],
        [got.secondReceipt?.hash, String(latest + 2), "1", recipient, "2", "1"]
      ])
      const balance = (yield* call(sim, { ...q, module: "account", action: "balance", address: recipient })).result
      expect(balance).toBe(String(got.after.recipient + 2n))
    }))

  it.effect("the pool: the pending nonce counts what waits; a second one of a nonce must pay 10 % more, and replaces the first", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const provider = new SimulatorEtherscanProvider(sim.baseUrl, sim.demoKeys.proplus)
      const got = yield* Effect.acquireUseRelease(
        Effect.succeed(provider),
        (p) =>
          Effect.promise(async () => {
            const wallet = new Wallet(Simulator.DEV_ACCOUNT.privateKey, p)
            const nonce = await p.getTransactionCount(wallet.address, "latest")
            const tx = (value: bigint, maxFeePerGas: bigint, maxPriorityFeePerGas: bigint) =>
              wallet.signTransaction({ type: 2, chainId: 1, nonce, to: wallet.address, value, gasLimit: 21_000n, maxFeePerGas, maxPriorityFeePerGas })
            const first = await p.broadcastTransaction(await tx(1n, 30_000_000_000n, 1_000_000_000n))
            const pendingNonce = await p.getTransactionCount(wallet.address, "pending")
            const cheap = await p.broadcastTransaction(await tx(2n, 31_000_000_000n, 1_000_000_000n)).then(() => undefined, (e: unknown) => e)
            const dearer = await p.broadcastTransaction(await tx(3n, 33_000_000_000n, 1_100_000_000n))
            const waited = dearer.wait()
            await sleep(500)
            shift += BLOCK_TIME_MS + 1_000
            const receipt = await waited
            return { nonce, pendingNonce, cheap, first: await p.getTransaction(first.hash), receipt, mined: await p.getTransaction(dearer.hash) }
          }),
        (p) => Effect.sync(() => p.destroy())
      )
      expect(got.pendingNonce).toBe(got.nonce + 1)
      expect(isError(got.cheap, "REPLACEMENT_UNDERPRICED")).toBe(true)
      expect(got.receipt?.status).toBe(1)
      expect(got.mined?.value).toBe(3n)
      expect(got.mined?.nonce).toBe(got.nonce)
      // the replaced one is gone from the pool and was never mined
      expect(got.first).toBeNull()
    }))
})
