/**
 * getblockreward, getcontractcreation, tokensupplyhistory, chainsize and the daily statistics (issue 16)
 * through the client against the simulator: each decodes with its Schema and agrees with the rest of
 * the data set (the proxy module's blocks, getminedblocks, txlist, tokensupply, ethprice, dailytx and
 * dailygasused).
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Chain from "../../src/Chain.js"
import * as Client from "../../src/ExplorerClient.js"
import * as Simulator from "../../src/simulator/index.js"
import { proplusOnSimulator } from "./helpers.js"

const TestLayer = proplusOnSimulator(
  Simulator.layer({ seed: 41, dataset: { chains: [1], busyWalletTransactions: 0, heavyContractLogs: 0 } })
)

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("blocks and statistics of issue 16 through the client", (it) => {
  it.effect("getblockreward: the block's miner and the reward getminedblocks lists", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const client = yield* Client.ExplorerClient
      const c = sim.dataset.chain(1)
      const [mined] = yield* client.getminedblocks({ address: c.soloValidator.address, page: 1, offset: 1 })
      if (mined === undefined) throw new Error("the solo validator mined nothing")
      const reward = yield* client.getblockreward({ blockNo: mined.blockNumber })
      expect(reward).toEqual({
        blockNumber: mined.blockNumber,
        timeStamp: mined.timeStamp,
        blockMiner: c.soloValidator.address,
        blockReward: mined.blockReward,
        uncles: [],
        uncleInclusionReward: 0n
      })
      const block = yield* client.eth_getBlockByNumber({ tag: "0x" + (mined.blockNumber + 1).toString(16) })
      expect((yield* client.getblockreward({ blockNo: mined.blockNumber + 1 })).blockMiner).toBe(block?.miner)
      const future = yield* Effect.flip(client.getblockreward({ blockNo: c.latestBlock + 1 }))
      expect(future._tag).toBe("InvalidInputError")
    }))

  it.effect("getcontractcreation: the deploying transaction of txlist, a factory's child through its factory, unknown → []", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const client = yield* Client.ExplorerClient
      const c = sim.dataset.chain(1)
      const token = c.erc20[1]?.address ?? ""
      const deployments = (yield* client.txlist({ address: c.deployer.address, page: 1, offset: 100 })).filter((t) => t.contractAddress !== null)
      const deploy = deployments.find((t) => t.contractAddress === token.toLowerCase())
      if (deploy === undefined) throw new Error("no deployment of the token")
      const children = (yield* client.txlistinternal({ address: c.factory.address })).filter((t) => t.type === "create2" && !t.isError)
      const child = children[0]
      if (child === undefined || child.contractAddress === null) throw new Error("the factory created nothing")
      const rows = yield* client.getcontractcreation({ contractAddresses: [token, child.contractAddress, "0x" + "12".repeat(20)] })
      expect(rows).toHaveLength(2)
      expect(rows[0]).toMatchObject({
        contractAddress: token.toLowerCase(),
        contractCreator: c.deployer.address,
        txHash: deploy.hash,
        blockNumber: deploy.blockNumber,
        contractFactory: "",
        creationBytecode: deploy.input
      })
      expect(rows[1]).toMatchObject({ contractAddress: child.contractAddress, contractFactory: c.factory.address, txHash: child.hash })
      expect(yield* client.getcontractcreation({ contractAddresses: ["0x" + "12".repeat(20)] })).toEqual([])
      const six = Array.from({ length: 6 }, () => token)
      expect((yield* Effect.flip(client.getcontractcreation({ contractAddresses: six })))._tag).toBe("InvalidInputError")
    }))

  it.effect("tokensupplyhistory: tokensupply at the latest block, nothing before the deployment", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const client = yield* Client.ExplorerClient
      const c = sim.dataset.chain(1)
      const token = c.erc20[2]?.address ?? ""
      expect(yield* client.tokensupplyhistory({ contractAddress: token, blockNo: c.latestBlock })).toBe(
        yield* client.tokensupply({ contractAddress: token })
      )
      expect(yield* client.tokensupplyhistory({ contractAddress: token, blockNo: c.activity.fromBlock - 1 })).toBe(0n)
    }))

  it.effect("chainsize grows day by day; the daily series agree with each other, dailytx, dailygasused and ethprice", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const client = yield* Client.ExplorerClient
      const c = sim.dataset.chain(1)
      const sizes = yield* client.chainsize({ startDate: "2025-09-01", endDate: "2025-09-05", syncMode: "archive" })
      expect(sizes.map((s) => s.chainTimeStamp)).toEqual(["2025-09-01", "2025-09-02", "2025-09-03", "2025-09-04", "2025-09-05"])
      expect(sizes.every((s, i) => i === 0 || s.chainSize > sizes[i - 1]!.chainSize)).toBe(true)
      expect(sizes.every((s) => s.syncMode === "Archive" && s.clientType === "Geth")).toBe(true)
      expect(sizes[0]!.blockNumber).toBe((yield* client.getblocknobytime({ timestamp: Date.UTC(2025, 8, 2) / 1000 - 1, closest: "before" })))

      const days = { startDate: "2025-09-01", endDate: "2025-09-03" }
      const blocks = yield* client.dailyblkcount(days)
      expect(blocks.map((d) => d.blockCount)).toEqual([7200, 7200, 7200])
      expect((yield* client.dailyavgblocktime(days)).map((d) => d.blockTime_sec)).toEqual(["12.00", "12.00", "12.00"])
      expect((yield* client.dailyblockrewards(days)).map((d) => d.blockRewards_Eth)).toEqual(blocks.map((d) => d.blockRewards_Eth))
      const gas = yield* client.dailygasused(days)
      const limit = (yield* client.dailyavggaslimit(days))[0]!.gasLimit
      const utilization = yield* client.dailynetutilization(days)
      utilization.forEach((u, i) => {
        expect(Number(u.networkUtilization)).toBeCloseTo(Number(gas[i]!.gasUsed) / (7200 * Number(limit)), 4)
      })
      const txs = yield* client.dailytx(days)
      const fees = yield* client.dailytxnfee(days)
      const prices = yield* client.dailyavggasprice(days)
      fees.forEach((f, i) => {
        const wei = BigInt(txs[i]!.transactionCount) * 60_000n * prices[i]!.avgGasPrice_Wei
        expect(f.transactionFee_Eth.replace(".", "").replace(/^0+/, "")).toBe(wei.toString())
      })
      expect((yield* client.dailyavghashrate(days)).map((d) => d.networkHashRate)).toEqual(["0.0000", "0.0000", "0.0000"])
      expect((yield* client.dailyuncleblkcount(days)).map((d) => d.uncleBlockCount)).toEqual([0, 0, 0])
      expect((yield* client.dailyavgnetdifficulty({ startDate: "2019-02-01", endDate: "2019-02-01" }))[0]?.networkDifficulty).toMatch(/^\d,\d{3}\.\d{3}$/)
      expect((yield* client.dailynewaddress(days)).every((d) => d.newAddressCount > 0)).toBe(true)
      expect((yield* client.dailyavgblocksize(days)).every((d) => d.blockSize_bytes > 0)).toBe(true)

      // the price of the last whole day is ethprice's when the latest block is on the next day
      const latestDay = new Date(c.timestampOf(c.latestBlock) * 1000).toISOString().slice(0, 10)
      const lastWhole = new Date(Date.parse(latestDay) - 86_400_000).toISOString().slice(0, 10)
      const [price] = yield* client.ethdailyprice({ startDate: lastWhole, endDate: lastWhole })
      const [cap] = yield* client.ethdailymarketcap({ startDate: lastWhole, endDate: lastWhole })
      expect(cap?.price).toBe(price?.value)
      expect(Number(cap?.marketCap)).toBeCloseTo((Number(cap?.supply) * Number(cap?.price)) / 1e6, 3)
      expect(typeof (yield* client.ethprice()).ethusd).toBe("string")
    }))

  it.effect("nodecount on the latest day; getapilimit counts the key's calls against its plan's daily cap", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const client = yield* Client.ExplorerClient
      const c = sim.dataset.chain(1)
      const nodes = yield* client.nodecount()
      expect(nodes.UTCDate).toBe(new Date(c.timestampOf(c.latestBlock) * 1000).toISOString().slice(0, 10))
      expect(nodes.TotalNodeCount).toBeGreaterThan(0)
      const first = yield* client.getapilimit()
      const second = yield* client.getapilimit()
      expect(second.creditsUsed).toBe(first.creditsUsed + 1)
      expect(second.creditLimit).toBe(1_500_000)
      expect(second.creditsAvailable).toBe(second.creditLimit - second.creditsUsed)
      expect(second.limitInterval).toBe("daily")
      expect(second.intervalExpiryTimespan).toMatch(/^\d{2}:\d{2}:\d{2}$/)
      // the service takes getapilimit without chainid
      const raw = yield* Effect.promise(() =>
        fetch(`${sim.baseUrl}/v2/api?module=getapilimit&action=getapilimit&apikey=${sim.demoKeys.free}`).then((r) => r.json())
      )
      expect(raw).toMatchObject({ status: "1", message: "OK", result: { creditsUsed: 1, creditLimit: 100_000, limitInterval: "daily" } })
    }))

  it.effect("chainlist: the explorer's chain table, decoded (the library's Chain table names the same chains)", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const client = yield* Client.ExplorerClient
      const before = (yield* client.stats).requests
      const list = yield* client.chainlist
      expect(list.totalcount).toBe(list.result.length)
      expect(list.result.map((c) => Number(c.chainid)).sort((a, b) => a - b)).toEqual(Chain.chains.map((c) => c.id).sort((a, b) => a - b))
      expect(list.result.find((c) => c.chainid === "1")).toMatchObject({ status: 1, apiurl: `${sim.baseUrl}/v2/api?chainid=1` })
      // not a /v2/api request: the client's API counter does not move
      expect((yield* client.stats).requests).toBe(before)
    }))
})
