/**
 * Issue 16, "done when" 1: every operation of which test/fixtures/real-responses holds a recorded real
 * answer is called against the simulator through the client. An operation the client names goes
 * through its typed method (checked, decoded by its Schema); the others go through `request` and count
 * as missing when the simulator answers "Missing Or invalid Action name".
 *
 * The set of missing operations is written down below (`NOT_YET_SERVED`): the test fails when an
 * operation becomes served without being taken off the list, or when a served one stops answering, so
 * the list is always the honest remainder of issue 16.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Client from "../../src/ExplorerClient.js"
import * as Plan from "../../src/Plan.js"
import * as Simulator from "../../src/simulator/index.js"
import { proplusOnSimulator } from "../client/helpers.js"

const fixturesDir = path.resolve(fileURLToPath(new URL("../../", import.meta.url)), "test/fixtures/real-responses")

/** module.action of every recorded answer (the unnamed `unknown.unknown` error sample left out). */
const recorded: ReadonlyArray<string> = [
  ...new Set(
    fs.readdirSync(fixturesDir)
      .filter((f) => f.endsWith(".json"))
      .map((f) => f.split(".").slice(0, 2).join("."))
      .filter((op) => op !== "unknown.unknown")
  )
].sort()

/** Recorded operations the simulator does not serve yet (the remainder of issue 16). */
const NOT_YET_SERVED: ReadonlyArray<string> = []

const SimulatorLive = Simulator.layer({ seed: 16, dataset: { chains: [1], busyWalletTransactions: 50, heavyContractLogs: 50 } })

const TestLayer = proplusOnSimulator(SimulatorLive)

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("recorded operations against the simulator", (it) => {
  it("finds the recorded operations", () => {
    expect(recorded.length).toBeGreaterThanOrEqual(57)
    expect(NOT_YET_SERVED).toEqual([])
    for (const op of NOT_YET_SERVED) expect(recorded).toContain(op)
  })

  it.effect("every recorded operation is served and decoded, except the listed remainder", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const client = yield* Client.ExplorerClient
      const c = sim.dataset.chain(1)
      const wallet = c.wallets[0]?.address ?? ""
      const erc20 = c.erc20[0]?.address ?? ""
      const erc721 = c.erc721[0]?.address ?? ""
      const block = c.activity.toBlock
      const [tx] = (yield* client.txlist({ address: wallet, page: 1, offset: 5, sort: "desc" }))
      if (tx === undefined) throw new Error("the wallet has no transactions")
      const tag = "0x" + tx.blockNumber.toString(16)
      const days = { startDate: "2025-09-01", endDate: "2025-09-03" }
      /** The typed call of each operation the client names. */
      const named: Record<string, Effect.Effect<unknown, unknown>> = {
        "account.balance": client.balance({ address: wallet }),
        "account.balancehistory": client.balancehistory({ address: wallet, blockNo: block }),
        "account.tokenbalancehistory": client.tokenbalancehistory({ contractAddress: erc20, address: wallet, blockNo: block }),
        "account.tokennfttx": client.tokennfttx({ contractAddress: erc721 }),
        "account.tokentx": client.tokentx({ address: wallet }),
        "account.txlist": client.txlist({ address: wallet }),
        "account.txlistinternal": client.txlistinternal({ address: c.factory.address }),
        "block.getblocknobytime": client.getblocknobytime({ timestamp: c.timestampOf(block), closest: "before" }),
        "contract.getabi": client.getabi({ address: c.verifiedContract.address }),
        "contract.getsourcecode": client.getsourcecode({ address: c.verifiedContract.address }),
        "logs.getLogs": client.getLogs({ address: c.heavyContract.address, page: 1, offset: 10 }),
        "proxy.eth_gasPrice": client.eth_gasPrice(),
        "stats.dailygasused": client.dailygasused({ startDate: "2025-09-01", endDate: "2025-09-03" }),
        "stats.dailytx": client.dailytx({ startDate: "2025-09-01", endDate: "2025-09-03" }),
        "stats.ethsupply": client.ethsupply(),
        "token.tokeninfo": client.tokeninfo({ contractAddress: erc20 }),
        "account.balancemulti": client.balancemulti({ address: [wallet, erc20] }),
        "account.tokenbalance": client.tokenbalance({ contractAddress: erc20, address: wallet }),
        "block.getblockcountdown": client.getblockcountdown({ blockNo: c.latestBlock + 1000 }),
        "gastracker.gasestimate": client.gasestimate({ gasPrice: 2_000_000_000 }),
        "gastracker.gasoracle": client.gasoracle(),
        "stats.ethprice": client.ethprice(),
        "stats.tokensupply": client.tokensupply({ contractAddress: erc20 }),
        "transaction.getstatus": client.getstatus({ txHash: "0x" + "ab".repeat(32) }),
        "transaction.gettxreceiptstatus": client.gettxreceiptstatus({ txHash: "0x" + "ab".repeat(32) }),
        "account.getminedblocks": client.getminedblocks({ address: c.soloValidator.address, page: 1, offset: 10 }),
        "account.txsBeaconWithdrawal": client.txsBeaconWithdrawal({ address: c.staker.address, startBlock: 0 }),
        "block.getblockreward": client.getblockreward({ blockNo: block }),
        "contract.getcontractcreation": client.getcontractcreation({ contractAddresses: [erc20, c.verifiedContract.address] }),
        "stats.chainsize": client.chainsize({ startDate: "2025-09-01", endDate: "2025-09-03" }),
        "stats.tokensupplyhistory": client.tokensupplyhistory({ contractAddress: erc20, blockNo: block }),
        "stats.dailyavgblocksize": client.dailyavgblocksize(days),
        "stats.dailyavgblocktime": client.dailyavgblocktime(days),
        "stats.dailyavggaslimit": client.dailyavggaslimit(days),
        "stats.dailyavggasprice": client.dailyavggasprice(days),
        "stats.dailyavghashrate": client.dailyavghashrate(days),
        "stats.dailyavgnetdifficulty": client.dailyavgnetdifficulty(days),
        "stats.dailyblkcount": client.dailyblkcount(days),
        "stats.dailyblockrewards": client.dailyblockrewards(days),
        "stats.dailynetutilization": client.dailynetutilization(days),
        "stats.dailynewaddress": client.dailynewaddress(days),
        "stats.dailytxnfee": client.dailytxnfee(days),
        "stats.dailyuncleblkcount": client.dailyuncleblkcount(days),
        "stats.ethdailymarketcap": client.ethdailymarketcap(days),
        "stats.ethdailyprice": client.ethdailyprice(days),
        "proxy.eth_blockNumber": client.eth_blockNumber(),
        "proxy.eth_call": client.eth_call({ to: erc20, data: "0x18160ddd" }),
        "proxy.eth_estimateGas": client.eth_estimateGas({ to: wallet, value: "0x1" }),
        "proxy.eth_getBlockByNumber": client.eth_getBlockByNumber({ tag, boolean: true }),
        "proxy.eth_getBlockTransactionCountByNumber": client.eth_getBlockTransactionCountByNumber({ tag }),
        "proxy.eth_getCode": client.eth_getCode({ address: erc20 }),
        "proxy.eth_getStorageAt": client.eth_getStorageAt({ address: erc20, position: "0x2" }),
        "proxy.eth_getTransactionByBlockNumberAndIndex": client.eth_getTransactionByBlockNumberAndIndex({
          tag,
          index: "0x" + tx.transactionIndex.toString(16)
        }),
        "proxy.eth_getTransactionByHash": client.eth_getTransactionByHash({ txHash: tx.hash }),
        "proxy.eth_getTransactionCount": client.eth_getTransactionCount({ address: wallet }),
        "proxy.eth_getTransactionReceipt": client.eth_getTransactionReceipt({ txHash: tx.hash }),
        "proxy.eth_getUncleByBlockNumberAndIndex": client.eth_getUncleByBlockNumberAndIndex({ tag, index: "0x0" })
      }
      const missing: Array<string> = []
      const failed: Array<string> = []
      for (const op of recorded) {
        const [module = "", action = ""] = op.split(".")
        const typed = named[op]
        if (typed !== undefined) {
          expect(Plan.operationOf(module, action), op).toBeDefined()
          const r = yield* Effect.either(typed)
          if (Either.isLeft(r)) failed.push(`${op}: ${String(r.left)}`)
          continue
        }
        const r = yield* Effect.either(client.request({ module, action, params: {}, schema: Schema.Unknown }))
        if (Either.isLeft(r) && /Missing Or invalid (Action|Module) name/.test(String(r.left))) missing.push(op)
        else if (!NOT_YET_SERVED.includes(op)) {
          // Served by the simulator: the client names it too.
          expect(Plan.operationOf(module, action), op).toBeDefined()
        }
      }
      expect(failed).toEqual([])
      expect(missing).toEqual([...NOT_YET_SERVED])
    }))
})
