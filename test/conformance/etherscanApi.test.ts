/**
 * Conformance with a second client nobody here wrote: etherscan-api 12.1 (its V2 line), given a
 * transport that sends its requests to the simulator instead of api.etherscan.io, with its own
 * defaults (`endblock=latest` on the account lists, `tag=latest`). Every call it supports that the
 * simulator serves; the answers equal the simulator's own.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { EtherscanError, init } from "etherscan-api"
import * as Simulator from "../../src/simulator/index.js"
import * as Texts from "../../src/simulator/texts.js"
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

  it.effect("the proxy module: every eth_* call it has, answers equal the simulator's, a revert is its EtherscanError", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const c = sim.dataset.chain(1)
      const wallet = c.wallets[2]?.address ?? ""
      const erc20 = c.erc20[0]?.address ?? ""
      const q = { chainid: 1, apikey: sim.demoKeys.proplus, module: "proxy" }
      const own = (params: Record<string, string | number>) => Effect.map(call(sim, { ...q, ...params }), (e) => (e as unknown as { result: unknown }).result)
      const [tx] = (yield* call(sim, { ...q, module: "account", action: "txlist", address: wallet, sort: "desc", page: 1, offset: 1 }))
        .result as ReadonlyArray<Record<string, string>>
      if (tx === undefined) throw new Error("the wallet has no transactions")
      const tag = "0x" + Number(tx.blockNumber).toString(16)
      const index = "0x" + Number(tx.transactionIndex).toString(16)
      const balanceOf = "0x70a08231" + "0".repeat(24) + wallet.slice(2).toLowerCase()
      const api = clientFor(sim)
      const got = yield* Effect.promise(async () => ({
        block: await api.proxy.eth_getBlockByNumber(tag),
        uncle: await api.proxy.eth_getUncleByBlockNumberAndIndex(tag, "0x0"),
        count: await api.proxy.eth_getBlockTransactionCountByNumber(tag),
        byHash: await api.proxy.eth_getTransactionByHash(tx.hash ?? ""),
        byIndex: await api.proxy.eth_getTransactionByBlockNumberAndIndex(tag, index),
        nonce: await api.proxy.eth_getTransactionCount(wallet),
        receipt: await api.proxy.eth_getTransactionReceipt(tx.hash ?? ""),
        call: await api.proxy.eth_call(erc20, balanceOf, "latest"),
        code: await api.proxy.eth_getCode(erc20, "latest"),
        storage: await api.proxy.eth_getStorageAt(erc20, "0x2", "latest"),
        gasPrice: await api.proxy.eth_gasPrice(),
        estimate: await api.proxy.eth_estimateGas(wallet, "0x1", "0x3b9aca00", "0x5208"),
        revert: await api.proxy.eth_call(c.unverifiedContract.address, "0x2e1a7d4d" + "0".repeat(63) + "1", "latest").then(
          () => undefined,
          (e: unknown) => e
        ),
        raw: await api.proxy.eth_sendRawTransaction("0xf86c0185").then(() => undefined, (e: unknown) => e)
      }))
      expect(got.block.result).toEqual(yield* own({ action: "eth_getBlockByNumber", tag, boolean: "true" }))
      expect((got.block.result as { transactions: ReadonlyArray<{ hash: string }> }).transactions.map((t) => t.hash)).toContain(tx.hash)
      expect(got.uncle.result).toBeNull()
      expect(got.count.result).toEqual(yield* own({ action: "eth_getBlockTransactionCountByNumber", tag }))
      expect(got.byHash.result).toEqual(got.byIndex.result)
      expect((got.byHash.result as { nonce: string }).nonce).toBe("0x" + Number(tx.nonce).toString(16))
      expect(got.nonce.result).toEqual(yield* own({ action: "eth_getTransactionCount", address: wallet }))
      expect(got.receipt.result).toEqual(yield* own({ action: "eth_getTransactionReceipt", txhash: tx.hash ?? "" }))
      const tokenBalance = (yield* call(sim, { ...q, module: "account", action: "tokenbalance", contractaddress: erc20, address: wallet })).result
      expect(BigInt(got.call.result as string)).toBe(BigInt(tokenBalance as string))
      expect(got.code.result).toMatch(/^0x6080/)
      expect(BigInt(got.storage.result as string)).toBe(BigInt((yield* call(sim, { ...q, module: "stats", action: "tokensupply", contractaddress: erc20 })).result as string))
      expect(got.gasPrice.result).toMatch(/^0x[0-9a-f]+$/)
      expect(got.estimate.result).toBe("0x5208")
      expect(got.revert).toBeInstanceOf(EtherscanError)
      expect((got.revert as EtherscanError).message).toBe("execution reverted: Vault: withdrawals are paused")
      expect((got.revert as EtherscanError).result).toMatchObject({ code: 3 })
      expect((got.raw as EtherscanError).message).toBe("rlp: value size exceeds available input length")
    }))

  it.effect("getminedblocks, txsBeaconWithdrawal, getblockreward, getcontractcreation, chainsize", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const c = sim.dataset.chain(1)
      const erc20 = c.erc20[0]?.address ?? ""
      const q = { chainid: 1, apikey: sim.demoKeys.proplus }
      const own = (params: Record<string, string | number>) => Effect.map(call(sim, { ...q, ...params }), (e) => e.result)
      const api = clientFor(sim)
      const got = yield* Effect.promise(async () => ({
        mined: await api.account.getminedblocks(c.soloValidator.address),
        withdrawals: await api.account.txsBeaconWithdrawal(c.staker.address),
        none: await api.account.txsBeaconWithdrawal(c.wallets[0]?.address ?? ""),
        reward: await api.block.getblockreward("", c.activity.toBlock),
        creation: await api.contract.getcontractcreation([erc20, c.factory.address]),
        size: await api.stats.chainsize("2025-09-01", "2025-09-03"),
        nodes: await api.stats.nodecount(),
        limit: await api.usage.getapilimit()
      }))
      expect(got.mined.result).toEqual(yield* own({ module: "account", action: "getminedblocks", address: c.soloValidator.address }))
      expect(got.withdrawals.result).toEqual(
        yield* own({ module: "account", action: "txsBeaconWithdrawal", address: c.staker.address, page: 1, offset: 100 })
      )
      expect(got.withdrawals.result).toHaveLength(100)
      expect(got.none.result).toEqual([])
      expect(got.reward.result).toEqual(yield* own({ module: "block", action: "getblockreward", blockno: c.activity.toBlock }))
      expect(got.creation.result).toEqual(
        yield* own({ module: "contract", action: "getcontractcreation", contractaddresses: `${erc20},${c.factory.address}` })
      )
      expect(got.creation.result).toHaveLength(2)
      expect(got.size.result).toEqual(yield* own({ module: "stats", action: "chainsize", startdate: "2025-09-01", enddate: "2025-09-03" }))
      expect(got.nodes.result).toEqual(yield* own({ module: "stats", action: "nodecount" }))
      expect(got.limit.result).toMatchObject({ creditLimit: 1_500_000, limitInterval: "daily" })
    }))

  it.effect("checkverifystatus: a pass resolves; pending, failed, already verified and an unknown GUID come as status 0 (its EtherscanError)", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const g = sim.dataset.chain(1).verifications
      const api = clientFor(sim)
      const outcome = (guid: string) =>
        Effect.promise(() =>
          api.contract.checkverifystatus(guid).then(
            (body) => ({ status: String(body.status), result: body.result as unknown }),
            (e: unknown) => e instanceof EtherscanError ? { status: "0", result: e.message, raw: e.result } : { status: "?", result: String(e) }
          )
        )
      expect(yield* outcome(g.verified)).toEqual({ status: "1", result: "Pass - Verified" })
      expect(yield* outcome(g.pending)).toEqual({ status: "0", result: "Pending in queue", raw: "Pending in queue" })
      expect(yield* outcome(g.failed)).toMatchObject({ status: "0", result: Texts.VERIFY_FAILED })
      expect(yield* outcome(g.alreadyVerified)).toMatchObject({ status: "0", result: "Already Verified" })
      expect(yield* outcome("x".repeat(50))).toMatchObject({ status: "0", result: Texts.UNKNOWN_UID })
      // the answers equal the simulator's own
      const own = yield* call(sim, { chainid: 1, apikey: sim.demoKeys.proplus, module: "contract", action: "checkverifystatus", guid: g.pending })
      expect(own).toEqual({ status: "0", message: "NOTOK", result: "Pending in queue" })
    }))
})
