/**
 * Conformance with a client nobody here wrote: ethers 6's `EtherscanProvider`, subclassed only to send
 * its requests to the simulator's URL, calls the simulator for every call it supports, and its answers
 * equal the simulator's own data (the proxy module's JSON-RPC included: blocks, transactions, receipts,
 * code, storage, nonces, calls with a revert, gas estimates, broadcasts).
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { EtherscanProvider, Interface, isError, Network, Transaction, Wallet } from "ethers"
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

  it.effect("the proxy module: getBlock, getTransaction, getTransactionReceipt, getTransactionCount, getCode, getStorage", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const c = sim.dataset.chain(1)
      const wallet = c.wallets[0]?.address ?? ""
      const erc20 = c.erc20[0]?.address ?? ""
      const q = { chainid: 1, apikey: sim.demoKeys.proplus }
      const txs = (yield* call(sim, { ...q, module: "account", action: "txlist", address: wallet })).result as ReadonlyArray<
        Record<string, string>
      >
      const sent = txs.filter((t) => t.from === wallet.toLowerCase())
      const transfer = txs.find((t) => t.to === erc20.toLowerCase() && t.isError === "0")
      if (transfer === undefined) throw new Error("the wallet has no token transfer")
      const logs = (yield* call(sim, {
        ...q,
        module: "logs",
        action: "getLogs",
        address: erc20,
        fromBlock: transfer.blockNumber,
        toBlock: transfer.blockNumber
      })).result as ReadonlyArray<Record<string, string>>
      const got = yield* withProvider(async (p) => ({
        block: await p.getBlock(Number(transfer.blockNumber), true),
        latest: await p.getBlock("latest"),
        future: await p.getBlock(c.latestBlock + 5),
        tx: await p.getTransaction(transfer.hash ?? ""),
        receipt: await p.getTransactionReceipt(transfer.hash ?? ""),
        unknown: await p.getTransaction("0x" + "ab".repeat(32)),
        nonce: await p.getTransactionCount(wallet),
        code: await p.getCode(erc20),
        eoaCode: await p.getCode(wallet),
        implementation: await p.getStorage(c.proxyContract.address, "0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc"),
        fees: await p.getFeeData()
      }))
      expect(got.block?.number).toBe(Number(transfer.blockNumber))
      expect(got.block?.hash).toBe(transfer.blockHash)
      expect(got.block?.timestamp).toBe(Number(transfer.timeStamp))
      expect(got.block?.transactions).toContain(transfer.hash)
      expect(got.block?.prefetchedTransactions.find((t) => t.hash === transfer.hash)?.from.toLowerCase()).toBe(wallet.toLowerCase())
      expect(got.latest?.number).toBe(c.latestBlock)
      expect(got.future).toBeNull()
      expect(got.tx?.blockNumber).toBe(Number(transfer.blockNumber))
      expect(got.tx?.nonce).toBe(Number(transfer.nonce))
      expect(got.tx?.gasLimit).toBe(BigInt(transfer.gas ?? ""))
      expect(got.tx?.data).toBe(transfer.input)
      expect(got.tx?.to?.toLowerCase()).toBe(erc20.toLowerCase())
      expect(got.receipt?.status).toBe(1)
      expect(got.receipt?.gasUsed).toBe(BigInt(transfer.gasUsed ?? ""))
      expect(got.receipt?.cumulativeGasUsed).toBe(BigInt(transfer.cumulativeGasUsed ?? ""))
      expect(got.receipt?.gasPrice).toBe(BigInt(transfer.gasPrice ?? ""))
      // the receipt's logs are getLogs' logs of that transaction
      const ofTx = logs.filter((l) => l.transactionHash === transfer.hash)
      expect(got.receipt?.logs.map((l) => [l.index, l.topics, l.data])).toEqual(
        // getLogs writes a zero index as "0x"
        ofTx.map((l) => [l.logIndex === "0x" ? 0 : Number(l.logIndex), l.topics, l.data])
      )
      expect(got.unknown).toBeNull()
      expect(got.nonce).toBe(sent.length)
      expect(got.code.startsWith("0x6080")).toBe(true)
      expect(got.eoaCode).toBe("0x")
      expect(BigInt(got.implementation)).toBe(BigInt(c.verifiedContract.address))
      expect(got.fees.gasPrice).toBeGreaterThan(0n)
      expect(got.fees.maxFeePerGas).toBe((got.latest?.baseFeePerGas ?? 0n) * 2n + (got.fees.maxPriorityFeePerGas ?? 0n))
    }))

  it.effect("call (a revert is ethers' CALL_EXCEPTION with the reason), estimateGas, broadcastTransaction", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const c = sim.dataset.chain(1)
      const wallet = c.wallets[0]?.address ?? ""
      const erc20 = c.erc20[0]?.address ?? ""
      const q = { chainid: 1, apikey: sim.demoKeys.proplus }
      const balance = (yield* call(sim, { ...q, module: "account", action: "tokenbalance", contractaddress: erc20, address: wallet })).result
      const token = new Interface([
        "function balanceOf(address) view returns (uint256)",
        "function symbol() view returns (string)",
        "function transfer(address,uint256) returns (bool)"
      ])
      const vault = new Interface(["function withdraw(uint256)"])
      // the simulator's development account holds ether, so the node accepts what it signs
      const signer = new Wallet(Simulator.DEV_ACCOUNT.privateKey)
      const signed = yield* Effect.promise(() =>
        signer.signTransaction({
          type: 2,
          chainId: 1,
          nonce: 0,
          to: wallet,
          value: 1n,
          gasLimit: 21_000n,
          maxFeePerGas: 30_000_000_000n,
          maxPriorityFeePerGas: 1_000_000_000n
        })
      )
      const poor = yield* Effect.promise(() =>
        Wallet.createRandom().signTransaction({
          type: 2, chainId: 1, nonce: 0, to: wallet, value: 1n, gasLimit: 21_000n, maxFeePerGas: 30_000_000_000n, maxPriorityFeePerGas: 1n
        })
      )
      const got = yield* withProvider(async (p) => {
        const revert = await p.call({ to: c.unverifiedContract.address, data: vault.encodeFunctionData("withdraw", [1n]) }).then(
          () => undefined,
          (e: unknown) => e
        )
        return {
          balance: await p.call({ to: erc20, data: token.encodeFunctionData("balanceOf", [wallet]) }),
          symbol: await p.call({ to: erc20, data: token.encodeFunctionData("symbol", []) }),
          revert,
          estimate: await p.estimateGas({ from: wallet, to: erc20, data: token.encodeFunctionData("transfer", [wallet, 1n]) }),
          overdrawn: await p.estimateGas({ to: erc20, data: token.encodeFunctionData("transfer", [wallet, 1n]) }).then(
            () => undefined,
            (e: unknown) => e
          ),
          plain: await p.estimateGas({ to: wallet, value: 1n }),
          broadcast: await p.broadcastTransaction(signed),
          pending: await p.getTransaction(Transaction.from(signed).hash ?? ""),
          again: await p.broadcastTransaction(signed).then(() => undefined, (e: unknown) => e),
          unfunded: await p.broadcastTransaction(poor).then(() => undefined, (e: unknown) => e)
        }
      })
      expect(token.decodeFunctionResult("balanceOf", got.balance)[0]).toBe(BigInt(balance as string))
      expect(token.decodeFunctionResult("symbol", got.symbol)[0]).toBe(c.erc20[0]?.symbol)
      expect(isError(got.revert, "CALL_EXCEPTION")).toBe(true)
      if (!isError(got.revert, "CALL_EXCEPTION")) throw new Error("not a CALL_EXCEPTION")
      expect(got.revert.reason).toBe("Vault: withdrawals are paused")
      expect(got.revert.data?.startsWith("0x08c379a0")).toBe(true)
      expect(got.estimate).toBeGreaterThan(21_000n)
      // without `from` the zero address sends, and holds no tokens
      expect(isError(got.overdrawn, "CALL_EXCEPTION") && got.overdrawn.reason).toBe("ERC20: transfer amount exceeds balance")
      expect(got.plain).toBe(21_000n)
      expect(got.broadcast.hash).toBe(Transaction.from(signed).hash)
      expect(got.broadcast.from).toBe(signer.address)
      // accepted, not mined: the transaction is known without a block
      expect(got.pending).toMatchObject({ hash: got.broadcast.hash, blockNumber: null, from: signer.address, nonce: 0, value: 1n })
      expect(String(got.again)).toContain("already known")
      // the node's "insufficient funds for gas * price + value" is ethers' INSUFFICIENT_FUNDS
      expect(isError(got.unfunded, "INSUFFICIENT_FUNDS")).toBe(true)
    }))
})
