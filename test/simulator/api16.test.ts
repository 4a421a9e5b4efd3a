/**
 * What the simulator answers as the real service does (issue 16): the account lists take
 * `endblock=latest` (the official full-history guide and etherscan-api's default send it); the value
 * operations added for issue 16 answer with the recorded real shapes (key order included) and refuse
 * bad input with the service's texts.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Dataset } from "../../src/simulator/dataset.js"
import * as Simulator from "../../src/simulator/index.js"
import * as Texts from "../../src/simulator/texts.js"
import { apiUrl, call } from "./helpers.js"

layer(
  Simulator.layer({ seed: 16, enforceRateLimits: false, dataset: { chains: [1], busyWalletTransactions: 40, heavyContractLogs: 0 } }),
  { excludeTestServices: true }
)("simulator: issue 16", (it) => {
  it.effect("endblock=latest on the account lists answers as no endblock does", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const c = sim.dataset.chain(1)
      const apikey = sim.demoKeys.proplus
      const wallet = c.wallets[0]?.address ?? ""
      const cases = [
        { module: "account", action: "txlist", address: wallet },
        { module: "account", action: "txlistinternal", address: c.factory.address },
        { module: "account", action: "tokentx", address: wallet },
        { module: "account", action: "tokennfttx", address: wallet },
        { module: "account", action: "token1155tx", address: wallet }
      ]
      for (const q of cases) {
        const base = { chainid: 1, apikey, ...q, startblock: 0, page: 1, offset: 100, sort: "asc" }
        const plain = yield* call(sim, base)
        const latest = yield* call(sim, { ...base, endblock: "latest" })
        expect(latest, q.action).toEqual(plain)
      }
      const txs = yield* call(sim, { chainid: 1, apikey, module: "account", action: "txlist", address: wallet, endblock: "latest" })
      expect(txs.status).toBe("1")
      const bad = yield* call(sim, { chainid: 1, apikey, module: "account", action: "txlist", address: wallet, endblock: "newest" })
      expect(bad.result).toBe("Error! Missing or invalid parameter")
    }))

  it.effect("balancemulti, tokenbalance, tokensupply, ethprice, gasoracle, gasestimate, getblockcountdown", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const c = sim.dataset.chain(1)
      const q = { chainid: 1, apikey: sim.demoKeys.free }
      const wallet = c.wallets[0]?.address ?? ""
      const other = c.wallets[1]?.address ?? ""
      const erc20 = c.erc20[0]?.address ?? ""
      const balance = (yield* call(sim, { ...q, module: "account", action: "balance", address: wallet })).result
      const multi = yield* call(sim, { ...q, module: "account", action: "balancemulti", address: `${wallet},${other.toUpperCase().replace("0X", "0x")}` })
      expect(multi.status).toBe("1")
      const rows = multi.result as ReadonlyArray<Record<string, string>>
      expect(rows.map((r) => Object.keys(r))).toEqual([["account", "balance"], ["account", "balance"]])
      expect(rows[0]).toEqual({ account: wallet.toLowerCase(), balance })
      expect(rows[1]?.account).toBe(other.toLowerCase())
      const tooMany = Array.from({ length: 21 }, () => wallet).join(",")
      expect((yield* call(sim, { ...q, module: "account", action: "balancemulti", address: tooMany })).result)
        .toBe("Error! Invalid address format")

      const block = c.latestBlock
      const history = yield* call(sim, { chainid: 1, apikey: sim.demoKeys.proplus, module: "account", action: "tokenbalancehistory", contractaddress: erc20, address: wallet, blockno: block })
      const tb = yield* call(sim, { ...q, module: "account", action: "tokenbalance", contractaddress: erc20, address: wallet, tag: "latest" })
      expect(tb).toEqual({ status: "1", message: "OK", result: history.result })
      const supply = yield* call(sim, { ...q, module: "stats", action: "tokensupply", contractaddress: erc20 })
      expect(BigInt(supply.result as string)).toBeGreaterThan(0n)
      expect((yield* call(sim, { ...q, module: "stats", action: "tokensupply", contractaddress: "0x12" })).result)
        .toBe("Error! Invalid contract address format")

      const price = (yield* call(sim, { ...q, module: "stats", action: "ethprice" })).result as Record<string, string>
      expect(Object.keys(price)).toEqual(["ethbtc", "ethbtc_timestamp", "ethusd", "ethusd_timestamp"])
      expect(Number(price.ethusd)).toBeGreaterThan(0)

      const oracle = (yield* call(sim, { ...q, module: "gastracker", action: "gasoracle" })).result as Record<string, string>
      expect(Object.keys(oracle)).toEqual(["LastBlock", "SafeGasPrice", "ProposeGasPrice", "FastGasPrice", "suggestBaseFee", "gasUsedRatio"])
      expect(Number(oracle.SafeGasPrice)).toBeLessThan(Number(oracle.ProposeGasPrice))
      expect(Number(oracle.ProposeGasPrice)).toBeLessThan(Number(oracle.FastGasPrice))
      expect(oracle.gasUsedRatio?.split(",")).toHaveLength(5)

      const slow = Number((yield* call(sim, { ...q, module: "gastracker", action: "gasestimate", gasprice: 1_000_000 })).result)
      const fast = Number((yield* call(sim, { ...q, module: "gastracker", action: "gasestimate", gasprice: "1000000000000" })).result)
      expect(slow).toBeGreaterThan(fast)
      expect((yield* call(sim, { ...q, module: "gastracker", action: "gasestimate" })).result).toBe("Error! Missing or invalid parameter")

      const countdown = (yield* call(sim, { ...q, module: "block", action: "getblockcountdown", blockno: block + 100 })).result as Record<string, string>
      expect(countdown).toMatchObject({ CurrentBlock: String(block), CountdownBlock: String(block + 100), RemainingBlock: "100" })
      expect(Object.keys(countdown)).toEqual(["CurrentBlock", "CountdownBlock", "RemainingBlock", "EstimateTimeInSec"])
      expect((yield* call(sim, { ...q, module: "block", action: "getblockcountdown", blockno: block })).result)
        .toBe("Error! Block number already pass")
    }))

  it.effect("the real headers (charset, CORS, OPTIONS), JSON-RPC's trailing newline and the free-tier texts", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const url = apiUrl(sim, { chainid: 1, module: "proxy", action: "eth_blockNumber", apikey: sim.demoKeys.free })
      const r = yield* Effect.promise(() => fetch(url))
      expect(r.headers.get("content-type")).toBe("application/json; charset=utf-8")
      expect(r.headers.get("access-control-allow-origin")).toBe("*")
      const body = yield* Effect.promise(() => r.text())
      expect(body).toMatch(/^\{"jsonrpc":"2\.0","id":83,"result":"0x[0-9a-f]+"\}\n$/)
      const pre = yield* Effect.promise(() => fetch(url, { method: "OPTIONS" }))
      expect(pre.status).toBe(204)
      expect(pre.headers.get("access-control-allow-methods")).toContain("GET")
      const envelope = yield* Effect.promise(() => fetch(apiUrl(sim, { chainid: 1, module: "stats", action: "ethsupply", apikey: sim.demoKeys.free })))
      expect(envelope.headers.get("content-type")).toBe("application/json; charset=utf-8")
      expect(Texts.FREE_NOT_SUPPORTED_FOR_CHAIN).toBe(
        "Free API access is not supported for this chain. Please upgrade your api plan for full chain coverage. https://etherscan.io/apis"
      )
      expect(Texts.FREE_TEMPORARILY_UNAVAILABLE).toMatch(/unusually high network activity\. .*: https:\/\/etherscan\.io\/apis$/)
    }))

  it.effect("getstatus and gettxreceiptstatus follow the transaction's txlist row", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const c = sim.dataset.chain(1)
      const q = { chainid: 1, apikey: sim.demoKeys.free }
      const txs = (yield* call(sim, { ...q, module: "account", action: "txlist", address: c.unverifiedContract.address, offset: 1000, page: 1 }))
        .result as ReadonlyArray<Record<string, string>>
      const failed = txs.find((t) => t.isError === "1")
      const ok = txs.find((t) => t.isError === "0" && t.txreceipt_status === "1")
      expect(failed).toBeDefined()
      expect(ok).toBeDefined()
      const status = (hash: string) => call(sim, { ...q, module: "transaction", action: "getstatus", txhash: hash })
      const receipt = (hash: string) => call(sim, { ...q, module: "transaction", action: "gettxreceiptstatus", txhash: hash })
      const f = (yield* status(failed?.hash ?? "")).result as Record<string, string>
      expect(f.isError).toBe("1")
      expect(f.errDescription).not.toBe("")
      expect((yield* status(ok?.hash ?? "")).result).toEqual({ isError: "0", errDescription: "" })
      expect((yield* receipt(ok?.hash ?? "")).result).toEqual({ status: "1" })
      expect((yield* receipt(failed?.hash ?? "")).result).toEqual({ status: failed?.txreceipt_status })
      expect((yield* receipt("0x" + "ab".repeat(32))).result).toEqual({ status: "" })
      expect((yield* status("0x12")).result).toBe("Error! Missing or invalid parameter")
    }))

  it.effect("internal transactions: path-like traceIds and create2, as real answers have them", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const c = sim.dataset.chain(1)
      const q = { chainid: 1, apikey: sim.demoKeys.proplus, module: "account", action: "txlistinternal" }
      const rowsOf = (address: string) =>
        Effect.map(call(sim, { ...q, address }), (e) => e.result as ReadonlyArray<Record<string, string>>)
      const factory = yield* rowsOf(c.factory.address)
      expect(factory.length).toBeGreaterThan(0)
      expect(factory.every((t) => t.type === "create2" && t.traceId === "0" && t.to === "" && t.contractAddress !== "")).toBe(true)
      // the router's refunds follow its token transfer: the second subcall
      const refunds = (yield* rowsOf(c.verifiedContract.address)).filter((t) => t.isError === "0")
      expect(refunds.length).toBeGreaterThan(0)
      expect(refunds.every((t) => t.type === "call" && t.traceId === "1")).toBe(true)
      // the vault's failed sends are nested one level down
      const vault = yield* rowsOf(c.unverifiedContract.address)
      expect(vault.every((t) => t.traceId === "0_1" && t.isError === "1" && t.errCode === "execution reverted")).toBe(true)
      // a create2 child has code from its creation block on
      const child = factory[0]?.contractAddress ?? ""
      const code = yield* call(sim, { chainid: 1, apikey: sim.demoKeys.free, module: "proxy", action: "eth_getCode", address: child })
      expect((code as unknown as { result: string }).result).toMatch(/^0x6080/)
    }))

  it.effect("getsourcecode in the four forms real parsers meet: flat, standard-JSON {{…}}, multi-file JSON, Vyper", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const c = sim.dataset.chain(1)
      const source = (address: string) =>
        Effect.map(
          call(sim, { chainid: 1, apikey: sim.demoKeys.free, module: "contract", action: "getsourcecode", address }),
          (e) => (e.result as ReadonlyArray<Record<string, string>>)[0] ?? {}
        )
      const flat = yield* source(c.erc20[0]?.address ?? "")
      expect(flat.SourceCode).toMatch(/^\/\/ SPDX-License-Identifier: MIT\r\npragma solidity/)
      expect(flat.ContractFileName).toBe("")

      const standard = yield* source(c.erc721[0]?.address ?? "")
      expect(standard.SourceCode?.startsWith("{{")).toBe(true)
      const input = JSON.parse((standard.SourceCode ?? "").slice(1, -1)) as { language: string; sources: Record<string, { content: string }> }
      expect(input.language).toBe("Solidity")
      expect(input.sources[standard.ContractFileName ?? ""]?.content).toContain(`contract ${standard.ContractName}`)

      const multi = yield* source(c.erc1155[0]?.address ?? "")
      expect(multi.SourceCode?.startsWith("{{")).toBe(false)
      const files = JSON.parse(multi.SourceCode ?? "") as Record<string, { content: string }>
      expect(Object.keys(files).length).toBeGreaterThan(1)
      expect(files[multi.ContractFileName ?? ""]?.content).toContain(`contract ${multi.ContractName}`)

      const vyper = yield* source(c.heavyContract.address)
      expect(vyper.SourceCode).toMatch(/^# @version 0\.3\.10\r\n/)
      expect(vyper).toMatchObject({ CompilerVersion: "vyper:0.3.10", CompilerType: "vyper", OptimizationUsed: "0", Runs: "0", EVMVersion: "Default" })
      // every form keeps the ABI a JSON string
      for (const r of [flat, standard, multi, vyper]) expect(Array.isArray(JSON.parse(r.ABI ?? ""))).toBe(true)
    }))

  it.effect("checkverifystatus: only a pass is status 1; pending, failed, already verified and an unknown GUID are NOTOK texts", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const g = sim.dataset.chain(1).verifications
      const q = { chainid: 1, apikey: sim.demoKeys.free, module: "contract", action: "checkverifystatus" }
      const notok = (result: string) => ({ status: "0", message: "NOTOK", result })
      expect(yield* call(sim, { ...q, guid: g.verified })).toEqual({ status: "1", message: "OK", result: Texts.VERIFY_PASSED })
      expect(yield* call(sim, { ...q, guid: g.pending })).toEqual(notok(Texts.VERIFY_PENDING))
      expect(yield* call(sim, { ...q, guid: g.failed })).toEqual(notok(Texts.VERIFY_FAILED))
      expect(yield* call(sim, { ...q, guid: g.alreadyVerified })).toEqual(notok(Texts.ALREADY_VERIFIED))
      expect(yield* call(sim, { ...q, guid: g.pending.toUpperCase() })).toEqual(notok(Texts.UNKNOWN_UID))
      expect(yield* call(sim, q)).toEqual(notok(Texts.INVALID_PARAMETER))
      // four distinct GUIDs, stable for a seed
      expect(new Set(Object.values(g)).size).toBe(4)
      const again = new Dataset(16, { chains: [1], busyWalletTransactions: 0, heavyContractLogs: 0 }).describe()
      expect(again.chain(1).verifications).toEqual(g)
    }))
})
