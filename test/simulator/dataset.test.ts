import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { parseAddressTagsCsv, parseLabelMasterCsv } from "../../src/TagFiles.js"
import * as Simulator from "../../src/simulator/index.js"
import { allPages, call, get, type Row, rows } from "./helpers.js"

const pad = (a: string) => "0x000000000000000000000000" + a.slice(2)
const str = (r: Row, k: string) => r[k] as string

layer(Simulator.layer({ seed: 21, enforceRateLimits: false }), { excludeTestServices: true })("simulator data set", (it) => {
  describe("consistency across operations", () => {
    it.effect("tokentx rows and Transfer logs are the same events", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        for (const [chainId, tokens] of [[1, sim.dataset.chain(1).erc20], [137, sim.dataset.chain(137).erc20.slice(0, 1)]] as const) {
          for (const t of tokens) {
            const transfers = yield* sim.oracle({ chainId, module: "account", action: "tokentx", params: { contractaddress: t.address } })
            const logs = yield* sim.oracle({ chainId, module: "logs", action: "getLogs", params: { address: t.address, topic0: Simulator.TRANSFER_TOPIC } })
            expect(transfers.length).toBeGreaterThan(100)
            // The same events, seen from each side.
            const fromLogs = logs.map((l) => ({
              hash: l.transactionHash,
              block: parseInt(str(l, "blockNumber"), 16),
              time: parseInt(str(l, "timeStamp"), 16),
              blockHash: l.blockHash,
              topics: l.topics,
              value: BigInt(str(l, "data")),
              dataWord: /^0x[0-9a-f]{64}$/.test(str(l, "data"))
            }))
            const fromTransfers = transfers.map((tx) => ({
              hash: tx.hash,
              block: Number(tx.blockNumber),
              time: Number(tx.timeStamp),
              blockHash: tx.blockHash,
              topics: [Simulator.TRANSFER_TOPIC, pad(str(tx, "from")), pad(str(tx, "to"))],
              value: BigInt(str(tx, "value")),
              dataWord: true
            }))
            expect(fromLogs).toEqual(fromTransfers)
            expect(new Set(transfers.map((tx) => `${tx.tokenSymbol}/${tx.tokenDecimal}/${tx.input}`))).toEqual(new Set([`${t.symbol}/${t.decimals}/deprecated`]))
          }
        }
      }))

    it.effect("holders add up to the total supply; topholders are the top of tokenholderlist, decimal-adjusted", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const key = sim.demoKeys.standard
        const c = sim.dataset.chain(1)
        for (const t of c.erc20) {
          const holders = yield* sim.oracle({ chainId: 1, module: "token", action: "tokenholderlist", params: { contractaddress: t.address } })
          const info = yield* rows(sim, { chainid: 1, module: "token", action: "tokeninfo", contractaddress: t.address, apikey: key })
          const supply = BigInt(str(info[0] as Row, "totalSupply"))
          expect(holders.reduce((s, h) => s + BigInt(str(h, "TokenHolderQuantity")), 0n)).toBe(supply)
          const top = yield* rows(sim, { chainid: 1, module: "token", action: "topholders", contractaddress: t.address, offset: 10, apikey: key })
          expect(top.map((h) => h.TokenHolderAddress)).toEqual(holders.slice(0, 10).map((h) => h.TokenHolderAddress))
          top.forEach((h, i) => {
            const raw = str(holders[i] as Row, "TokenHolderQuantity").padStart(t.decimals + 1, "0")
            expect(h.TokenHolderQuantity).toBe(raw.slice(0, raw.length - t.decimals) + "." + raw.slice(raw.length - t.decimals))
          })
          // Holder balances are what the transfers leave behind, and what tokenbalancehistory says at the latest block.
          const someone = holders[holders.length - 1] as Row
          const who = str(someone, "TokenHolderAddress")
          const moves = yield* sim.oracle({ chainId: 1, module: "account", action: "tokentx", params: { address: who, contractaddress: t.address } })
          const net = moves.reduce((s, m) => s + (m.to === who ? BigInt(str(m, "value")) : 0n) - (m.from === who ? BigInt(str(m, "value")) : 0n), 0n)
          expect(net).toBe(BigInt(str(someone, "TokenHolderQuantity")))
          const atLatest = yield* call(sim, { chainid: 1, module: "account", action: "tokenbalancehistory", contractaddress: t.address, address: who, blockno: c.latestBlock, apikey: key })
          expect(atLatest.result).toBe(someone.TokenHolderQuantity)
          const firstBlock = Number((moves[0] as Row).blockNumber)
          const before = yield* call(sim, { chainid: 1, module: "account", action: "tokenbalancehistory", contractaddress: t.address, address: who, blockno: firstBlock - 1, apikey: key })
          expect(before.result).toBe("0")
        }
        const airdrop = yield* sim.oracleCount({ chainId: 1, module: "token", action: "tokenholderlist", params: { contractaddress: c.airdropToken.address } })
        expect(airdrop).toBeGreaterThan(1_000)
        const types = yield* sim.oracle({ chainId: 1, module: "token", action: "topholders", params: { contractaddress: c.erc20[0]?.address } })
        expect(types.find((h) => h.TokenHolderAddress === c.verifiedContract.address)?.TokenHolderAddressType).toBe("C")
        expect(types.find((h) => h.TokenHolderAddress === c.wallets[0]?.address)?.TokenHolderAddressType).toBe("E")
      }))

    it.effect("balances: token and NFT holdings, native balance and its history, fundedby", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const key = sim.demoKeys.standard
        const c = sim.dataset.chain(1)
        const w = c.wallets[4]?.address ?? ""
        const holdings = yield* rows(sim, { chainid: 1, module: "account", action: "addresstokenbalance", address: w, apikey: key })
        for (const h of holdings) {
          const list = yield* sim.oracle({ chainId: 1, module: "token", action: "tokenholderlist", params: { contractaddress: str(h, "TokenAddress") } })
          expect(list.find((x) => x.TokenHolderAddress === w)?.TokenHolderQuantity).toBe(h.TokenQuantity)
          expect(Object.keys(h)).toEqual(["TokenAddress", "TokenName", "TokenSymbol", "TokenQuantity", "TokenDivisor", "TokenPriceUSD"])
        }
        const nfts = yield* rows(sim, { chainid: 1, module: "account", action: "addresstokennftbalance", address: w, apikey: key })
        const punks = c.erc721[0]?.address
        const moves = yield* sim.oracle({ chainId: 1, module: "account", action: "tokennfttx", params: { address: w } })
        const owned = moves.reduce((n, m) => n + (m.to === w ? 1 : 0) - (m.from === w ? 1 : 0), 0)
        expect(nfts.find((n) => n.TokenAddress === punks)?.TokenQuantity ?? "0").toBe(String(owned))
        const balance = yield* call(sim, { chainid: 1, module: "account", action: "balance", address: w, apikey: key })
        const history = yield* call(sim, { chainid: 1, module: "account", action: "balancehistory", address: w, blockno: c.latestBlock, apikey: key })
        expect(history.result).toBe(balance.result)
        expect(BigInt(balance.result as string)).toBeGreaterThan(0n)
        expect((yield* call(sim, { chainid: 1, module: "account", action: "balancehistory", address: w, blockno: c.activity.fromBlock - 1, apikey: key })).result).toBe("0")
        const busy = c.busyWallet.address
        const busyNow = yield* call(sim, { chainid: 1, module: "account", action: "balance", address: busy, apikey: key })
        expect(busyNow.result).toBe((yield* call(sim, { chainid: 1, module: "account", action: "balancehistory", address: busy, blockno: c.latestBlock, apikey: key })).result)
        const funded = yield* call(sim, { chainid: 1, module: "account", action: "fundedby", address: w, apikey: key })
        const f = funded.result as Row
        expect(Object.keys(f)).toEqual(["block", "timeStamp", "fundingAddress", "fundingTxn", "value"])
        expect(typeof f.block).toBe("number")
        expect(f.fundingAddress).toBe(c.funder.address)
        const funderTxs = yield* sim.oracle({ chainId: 1, module: "account", action: "txlist", params: { address: c.funder.address } })
        const tx = funderTxs.find((t) => t.hash === f.fundingTxn)
        expect(tx?.to).toBe(w)
        expect(tx?.value).toBe(f.value)
        expect(Number(tx?.blockNumber)).toBe(f.block)
      }))

    it.effect("realistic shapes: creations, failures, GENESIS, internal traces, big values, lowercase hex", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const c = sim.dataset.chain(1)
        const txs = (yield* Effect.forEach(c.wallets, (w) => sim.oracle({ chainId: 1, module: "account", action: "txlist", params: { address: w.address } }))).flat()
        const deployer = yield* sim.oracle({ chainId: 1, module: "account", action: "txlist", params: { address: c.deployer.address } })
        expect(deployer.some((t) => t.to === "" && t.contractAddress === c.erc20[0]?.address && t.methodId === "0x60806040")).toBe(true)
        expect(txs.some((t) => t.isError === "1" && t.txreceipt_status === "0")).toBe(true)
        expect(txs.some((t) => BigInt(str(t, "value")) > BigInt(Number.MAX_SAFE_INTEGER))).toBe(true)
        const keys = [
          "blockNumber", "blockHash", "timeStamp", "hash", "nonce", "transactionIndex", "from", "to", "value", "gas",
          "gasPrice", "input", "methodId", "functionName", "contractAddress", "cumulativeGasUsed", "txreceipt_status",
          "gasUsed", "confirmations", "isError"
        ].join()
        const problems = txs.flatMap((t) => {
          const b = Number(t.blockNumber)
          const bad = [
            Object.keys(t).join() !== keys && "keys",
            !/^0x[0-9a-f]{64}$/.test(str(t, "hash")) && "hash",
            !/^0x[0-9a-f]{40}$/.test(str(t, "from")) && "from",
            !/^(0x[0-9a-f]{40})?$/.test(str(t, "to")) && "to",
            b > c.latestBlock && "block",
            Number(t.confirmations) !== c.latestBlock - b && "confirmations",
            Number(t.timeStamp) !== c.timestampOf(b) && "timeStamp"
          ].filter((x) => x !== false)
          return bad.length === 0 ? [] : [`${t.hash}: ${bad.join(",")}`]
        })
        expect(problems).toEqual([])
        const genesis = (yield* sim.oracle({ chainId: 1, module: "account", action: "txlist", params: { address: c.funder.address } }))[0]
        expect(genesis).toMatchObject({ blockNumber: "0", from: "GENESIS", nonce: "", blockHash: "", txreceipt_status: "", hash: "GENESIS_" + c.funder.address.slice(2) })
        const internals = yield* sim.oracle({ chainId: 1, module: "account", action: "txlistinternal", params: {} })
        expect(internals.some((t) => t.type === "create2" && t.to === "" && t.contractAddress !== "")).toBe(true)
        expect(internals.some((t) => t.isError === "1" && t.errCode !== "")).toBe(true)
        const byHash = yield* sim.oracle({ chainId: 1, module: "account", action: "txlistinternal", params: { txhash: str(internals[0] as Row, "hash") } })
        expect(byHash.length).toBeGreaterThan(0)
        expect(Object.keys(byHash[0] as Row)).toEqual(["blockNumber", "timeStamp", "from", "to", "value", "contractAddress", "input", "type", "gas", "gasUsed", "isError", "errCode"])
        const nft = yield* sim.oracle({ chainId: 1, module: "account", action: "tokennfttx", params: { contractaddress: c.erc721[0]?.address } })
        expect(nft[0]?.tokenDecimal).toBe("0")
        expect(nft[0]).not.toHaveProperty("value")
        const items = yield* sim.oracle({ chainId: 1, module: "account", action: "token1155tx", params: { contractaddress: c.erc1155[0]?.address } })
        expect(items[0]).toHaveProperty("tokenValue")
        expect(items[0]).not.toHaveProperty("tokenDecimal")
      }))

    it.effect("the same seed gives the same data; another seed other addresses", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const w = sim.dataset.chain(1).wallets[0]?.address
        const mine = yield* sim.oracle({ chainId: 1, module: "account", action: "txlist", params: { address: w } })
        const twin = yield* Effect.scoped(Effect.flatMap(Simulator.make({ seed: 21 }), (s) =>
          Effect.flatMap(s.oracle({ chainId: 1, module: "account", action: "txlist", params: { address: w } }), (r) =>
            Effect.map(rows(s, { chainid: 1, module: "account", action: "txlist", address: w, apikey: s.demoKeys.standard }), (http) => ({ r, http })))))
        expect(twin.r).toEqual(mine)
        expect(twin.http).toEqual(mine)
        const other = yield* Effect.scoped(Effect.map(Simulator.make({ seed: 22 }), (s) => s.dataset.chain(1).wallets[0]?.address))
        expect(other).not.toBe(w)
      }))
  })

  describe("paging against the oracle", () => {
    it.effect("concatenated pages reproduce the oracle (asc and desc)", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const key = sim.demoKeys.standard
        const c = sim.dataset.chain(1)
        for (const sort of ["asc", "desc"]) {
          const q = { chainid: 1, module: "account", action: "tokentx", address: c.wallets[1]?.address, sort, apikey: key }
          const paged = yield* allPages(sim, q, 37)
          const oracle = yield* sim.oracle({ chainId: 1, module: "account", action: "tokentx", params: { address: c.wallets[1]?.address, sort } })
          expect(paged.length).toBeGreaterThan(37)
          expect(paged).toEqual(oracle)
        }
        const holders = yield* allPages(sim, { chainid: 1, module: "token", action: "tokenholderlist", contractaddress: c.airdropToken.address, apikey: key }, 500)
        expect(holders).toEqual(yield* sim.oracle({ chainId: 1, module: "token", action: "tokenholderlist", params: { contractaddress: c.airdropToken.address } }))
      }))

    it.effect("dense blocks: 1,500 logs in one block, 1,500 txs of one wallet in one block", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const key = sim.demoKeys.standard
        const c = sim.dataset.chain(1)
        const dense = c.heavyContract.denseBlock
        expect(dense?.rows).toBe(Simulator.DENSE_ROWS)
        expect(c.denseBlock).toBe(dense?.block)
        const q = { chainid: 1, module: "logs", action: "getLogs", address: c.heavyContract.address, fromBlock: dense?.block, toBlock: dense?.block, apikey: key }
        const logs = yield* allPages(sim, q, 1_000)
        expect(logs).toHaveLength(Simulator.DENSE_ROWS)
        expect(logs).toEqual(yield* sim.oracle({ chainId: 1, module: "logs", action: "getLogs", params: { address: c.heavyContract.address, fromBlock: dense?.block, toBlock: dense?.block } }))
        expect(new Set(logs.map((l) => l.logIndex)).size).toBe(Simulator.DENSE_ROWS)
        const busyDense = c.busyWallet.denseBlock
        const txs = yield* rows(sim, { chainid: 1, module: "account", action: "txlist", address: c.busyWallet.address, startblock: busyDense?.block, endblock: busyDense?.block, apikey: key })
        expect(txs.length).toBe(busyDense?.rows)
        expect(txs.length).toBeGreaterThan(1_000)
        expect(txs.length).toBeLessThan(10_000)
        // The rest of the heavy contract's blocks are sparse, with long empty stretches.
        const all = yield* sim.oracle({ chainId: 1, module: "logs", action: "getLogs", params: { address: c.heavyContract.address } })
        expect(all).toHaveLength(c.heavyContract.logs)
        const blocks = [...new Set(all.map((l) => parseInt(str(l, "blockNumber"), 16)))]
        let longest = 0
        for (let i = 1; i < blocks.length; i++) longest = Math.max(longest, (blocks[i] as number) - (blocks[i - 1] as number))
        expect(longest).toBeGreaterThan(100)
      }))
  })

  describe("name tags", () => {
    it.effect("exportaddresstags and getlabelmasterlist answer a download URL on the simulator itself", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const key = sim.demoKeys.proplus
        const c = sim.dataset.chain(1)
        const answer = yield* call(sim, { chainid: 1, module: "nametag", action: "exportaddresstags", label: "all", format: "csv", apikey: key })
        expect(answer.status).toBe("1")
        const url = answer.result as string
        expect(url.startsWith(`${sim.baseUrl}/downloads/`)).toBe(true)
        const file = yield* get(url)
        expect(file.status).toBe(200)
        expect(file.contentType).toContain("text/csv")
        expect(file.text.split("\r\n")[0]).toBe(
          "\"address\";\"nametag\";\"internal_nametag\";\"url\";\"shortdescription\";\"notes_1\";\"notes_2\";\"labels\";\"labels_slug\";\"reputation\";\"other_attributes\";\"lastupdatedtimestamp\""
        )
        const tags = yield* parseAddressTagsCsv(file.text)
        expect(tags).toEqual(yield* sim.oracle({ chainId: 1, module: "nametag", action: "exportaddresstags", params: { label: "all" } }))
        expect(tags.map((t) => t.address)).toEqual(c.labels.map((l) => l.address))
        const dex = yield* call(sim, { chainid: 1, module: "nametag", action: "exportaddresstags", label: "dex", apikey: key })
        const dexTags = yield* parseAddressTagsCsv((yield* get(dex.result as string)).text)
        expect(dexTags.length).toBeGreaterThan(0)
        expect(dexTags.every((t) => t.labels_slug.includes("dex"))).toBe(true)
        const one = yield* rows(sim, { chainid: 1, module: "nametag", action: "getaddresstag", address: c.funder.address, apikey: key })
        expect(one).toEqual(tags.filter((t) => t.address === c.funder.address))
        const master = yield* call(sim, { chainid: 1, module: "nametag", action: "getlabelmasterlist", apikey: key })
        const labels = yield* parseLabelMasterCsv((yield* get(master.result as string)).text)
        expect(labels.map((l) => l.labelslug)).toContain("exchange")
        expect((yield* get(`${sim.baseUrl}/downloads/0123456789abcdef.csv`)).status).toBe(404)
        expect((yield* sim.stats).downloads).toBeGreaterThanOrEqual(3)
      }))
  })

  describe("statistics", () => {
    it.effect("requests per key fingerprint and per operation, rows served", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const key = sim.demoKeys.lite
        yield* sim.resetStats
        const r = yield* rows(sim, { chainid: 1, module: "account", action: "txlist", address: sim.dataset.chain(1).wallets[0]?.address, offset: 25, apikey: key })
        yield* call(sim, { chainid: 1, module: "stats", action: "ethsupply", apikey: key })
        yield* call(sim, { chainid: 1, module: "stats", action: "ethsupply" })
        const s = yield* sim.stats
        expect(r).toHaveLength(25)
        expect(s.requests).toBe(3)
        expect(s.byKey).toEqual({ [Simulator.keyFingerprint(key)]: 2, "(none)": 1 })
        expect(Object.keys(s.byKey).some((k) => k.includes(key))).toBe(false)
        expect(s.byOperation).toEqual({ "account/txlist": 1, "stats/ethsupply": 2 })
        expect(s.rowsServed).toBe(25)
        expect(s.invalidKey).toBe(1)
        expect(s.queriesByKey).toEqual({})
      }))
  })
})

layer(Simulator.layer({ seed: 21, enforceRateLimits: false, recordQueries: true }), { excludeTestServices: true })("simulator: recordQueries", (it) => {
  it.effect("every query per key fingerprint, in arrival order, without the key", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const key = sim.demoKeys.lite
      const address = sim.dataset.chain(1).wallets[0]?.address
      yield* call(sim, { chainid: 1, module: "account", action: "txlist", address, offset: 25, page: 2, apikey: key })
      yield* call(sim, { chainid: 1, module: "stats", action: "ethsupply", apikey: key })
      yield* call(sim, { chainid: 1, module: "stats", action: "ethsupply" })
      const s = yield* sim.stats
      expect(s.queriesByKey).toEqual({
        [Simulator.keyFingerprint(key)]: [
          `action=txlist&address=${address}&chainid=1&module=account&offset=25&page=2`,
          "action=ethsupply&chainid=1&module=stats"
        ],
        "(none)": ["action=ethsupply&chainid=1&module=stats"]
      })
      expect(JSON.stringify(s.queriesByKey)).not.toContain(key)
    }))
})
