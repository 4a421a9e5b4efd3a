import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Chain from "../../src/Chain.js"
import * as Plan from "../../src/Plan.js"
import * as Simulator from "../../src/simulator/index.js"
import * as Rules from "../../src/simulator/rules.js"
import * as Texts from "../../src/simulator/texts.js"
import { apiUrl, call, get, rows } from "./helpers.js"

const UNUSED = "0x00000000000000000000000000000000000000aa"
const notok = (text: string) => ({ status: "0", message: "NOTOK", result: text })

layer(Simulator.layer({ seed: 11, enforceRateLimits: false }), { excludeTestServices: true })("simulator rules", (it) => {
  describe("keys, chains, modules", () => {
    it.effect("a missing key, an unknown key: HTTP 200 NOTOK with the service's texts", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const raw = yield* get(apiUrl(sim, { chainid: 1, module: "stats", action: "ethsupply" }))
        expect(raw.status).toBe(200)
        expect(raw.contentType).toContain("application/json")
        expect(JSON.parse(raw.text)).toEqual(notok(Texts.MISSING_OR_INVALID_API_KEY))
        const unknown = yield* call(sim, { chainid: 1, module: "stats", action: "ethsupply", apikey: "NOTAKEY0000000000000000000000000000" })
        expect(unknown).toEqual(notok(Texts.INVALID_API_KEY))
      }))

    it.effect("missing, unknown, deprecated and repeated chain ids", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const key = sim.demoKeys.standard
        for (const chainid of [undefined, 17000, "abc", 5]) {
          expect(yield* call(sim, { chainid, module: "stats", action: "ethsupply", apikey: key })).toEqual(notok(Texts.UNSUPPORTED_CHAIN))
        }
        const twice = yield* get(`${sim.baseUrl}/v2/api?chainid=1&chainid=10&module=stats&action=ethsupply&apikey=${key}`)
        expect(JSON.parse(twice.text)).toEqual(notok(Texts.UNSUPPORTED_CHAIN))
        const served = yield* call(sim, { chainid: 42161, module: "stats", action: "ethsupply", apikey: key })
        expect(served.status).toBe("1")
      }))

    it.effect("unknown module and action texts; the V1 path is deprecated", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const key = sim.demoKeys.free
        expect(yield* call(sim, { chainid: 1, module: "nope", action: "txlist", apikey: key })).toEqual(notok(Texts.INVALID_MODULE))
        expect(yield* call(sim, { chainid: 1, action: "txlist", apikey: key })).toEqual(notok(Texts.INVALID_MODULE))
        expect(yield* call(sim, { chainid: 1, module: "account", action: "nope", apikey: key })).toEqual(notok(Texts.INVALID_ACTION))
        expect(yield* call(sim, { chainid: 1, module: "account", apikey: key })).toEqual(notok(Texts.INVALID_ACTION))
        const v1 = yield* get(`${sim.baseUrl}/api?module=stats&action=ethsupply&apikey=${key}`)
        expect(JSON.parse(v1.text)).toEqual(notok(Texts.DEPRECATED_V1))
      }))

    it.effect("proxy answers JSON-RPC; gateway errors keep the explorer envelope", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const ok = JSON.parse((yield* get(apiUrl(sim, { chainid: 1, module: "proxy", action: "eth_gasPrice", apikey: sim.demoKeys.free }))).text)
        expect(Object.keys(ok)).toEqual(["jsonrpc", "id", "result"])
        expect(ok.jsonrpc).toBe("2.0")
        expect(ok.id).toBe(73)
        expect(ok.result).toMatch(/^0x[1-9a-f][0-9a-f]*$/)
        expect(yield* call(sim, { chainid: 1, module: "proxy", action: "eth_gasPrice" })).toEqual(notok(Texts.MISSING_OR_INVALID_API_KEY))
      }))
  })

  describe("plans", () => {
    it.effect("PRO operations refuse free and lite keys, nametag needs Pro Plus", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const c = sim.dataset.chain(1)
        const params = { address: c.wallets[0]?.address, contractaddress: c.erc20[0]?.address, blockno: 1, startdate: "2025-01-01", enddate: "2025-01-02", label: "all" }
        const cases = Object.values(Plan.operations).flatMap((op) => Plan.plans.map((plan) => ({ op, plan })))
        const answers = yield* Effect.forEach(cases, ({ op, plan }) =>
          Effect.map(call(sim, { chainid: 1, module: op.module, action: op.action, apikey: sim.demoKeys[plan], ...params }), (body) => ({
            name: `${op.action} on ${plan}`,
            refused: body.result === Texts.API_PRO_ENDPOINT && body.status === "0" && body.message === "NOTOK",
            expected: !Plan.atLeast(plan, op.minimumPlan)
          })), { concurrency: 8 })
        expect(answers.filter((a) => a.refused !== a.expected).map((a) => a.name)).toEqual([])
        // 25 PRO operations (10 of the first scope, tokensupplyhistory, 14 daily series) and 3 Pro Plus ones
        expect(answers.filter((a) => a.refused).length).toBe(25 * 2 + 3 * 5)
      }))

    it.effect("a free key on a paid-only chain: refused except getsourcecode and getabi", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const c = sim.dataset.chain(8453)
        const free = sim.demoKeys.free
        const txlist = { chainid: 8453, module: "account", action: "txlist", address: c.wallets[0]?.address }
        expect(yield* call(sim, { ...txlist, apikey: free })).toEqual(notok(Texts.FREE_NOT_SUPPORTED_FOR_CHAIN))
        expect((yield* call(sim, { ...txlist, apikey: sim.demoKeys.lite })).status).toBe("1")
        const source = yield* call(sim, { chainid: 8453, module: "contract", action: "getsourcecode", address: c.verifiedContract.address, apikey: free })
        expect(source.status).toBe("1")
        const abi = yield* call(sim, { chainid: 8453, module: "contract", action: "getabi", address: c.verifiedContract.address, apikey: free })
        expect(abi.status).toBe("1")
        expect(Array.isArray(JSON.parse(abi.result as string))).toBe(true)
      }))

    it.effect("topholders on HyperEVM (999); txlistinternal by block range needs standard", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const key = sim.demoKeys.standard
        const token = sim.dataset.chain(999).erc20[0]?.address
        expect(yield* call(sim, { chainid: 999, module: "token", action: "topholders", contractaddress: token, apikey: key }))
          .toEqual(notok(Texts.CHAIN_NOT_SUPPORTED_FOR_ENDPOINT))
        const onOne = yield* call(sim, { chainid: 1, module: "token", action: "topholders", contractaddress: sim.dataset.chain(1).erc20[0]?.address, offset: 3, apikey: key })
        expect(onOne.message).toBe("Ok")
        expect(onOne.result).toHaveLength(3)
        const range = { chainid: 1, module: "account", action: "txlistinternal", startblock: 0, endblock: 99_999_999, offset: 10 }
        expect(yield* call(sim, { ...range, apikey: sim.demoKeys.lite })).toEqual(notok(Texts.API_PRO_ENDPOINT))
        expect(yield* rows(sim, { ...range, apikey: key })).toHaveLength(10)
      }))
  })

  describe("windows, defaults, sort, ranges", () => {
    it.effect("server defaults: page 1, the plan's largest offset", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const busy = sim.dataset.chain(1).busyWallet.address
        const all = yield* sim.oracleCount({ chainId: 1, module: "account", action: "txlist", params: { address: busy } })
        expect(all).toBeGreaterThan(1_000)
        expect(all).toBeLessThan(10_000)
        const q = { chainid: 1, module: "account", action: "txlist", address: busy }
        expect(yield* rows(sim, { ...q, apikey: sim.demoKeys.free })).toHaveLength(1_000)
        expect(yield* rows(sim, { ...q, apikey: sim.demoKeys.standard })).toHaveLength(all)
      }))

    it.effect("page × offset over the window answers the window text with the plan's N", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const q = { chainid: 1, module: "account", action: "txlist", address: sim.dataset.chain(1).busyWallet.address }
        const free = sim.demoKeys.free
        expect(yield* call(sim, { ...q, page: 2, offset: 1_000, apikey: free })).toEqual(notok(Texts.resultWindowTooLarge(1_000)))
        expect(yield* call(sim, { ...q, page: 1, offset: 1_001, apikey: free })).toEqual(notok(Texts.resultWindowTooLarge(1_000)))
        expect(yield* rows(sim, { ...q, page: 10, offset: 100, apikey: free })).toHaveLength(100)
        const paid = sim.demoKeys.advanced
        expect(yield* call(sim, { ...q, page: 2, offset: 5_001, apikey: paid })).toEqual(notok(Texts.resultWindowTooLarge(10_000)))
        const all = yield* sim.oracleCount({ chainId: 1, module: "account", action: "txlist", params: { address: q.address } })
        expect(yield* rows(sim, { ...q, page: 2, offset: 5_000, apikey: paid })).toHaveLength(all - 5_000)
      }))

    it.effect("getLogs and topholders return at most 1,000 rows per answer", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const c = sim.dataset.chain(1)
        const key = sim.demoKeys.professional
        const logs = yield* rows(sim, { chainid: 1, module: "logs", action: "getLogs", address: c.heavyContract.address, offset: 5_000, apikey: key })
        expect(logs).toHaveLength(1_000)
        expect(yield* rows(sim, { chainid: 1, module: "logs", action: "getLogs", address: c.heavyContract.address, apikey: key })).toHaveLength(1_000)
        expect(yield* call(sim, { chainid: 1, module: "logs", action: "getLogs", address: c.heavyContract.address, page: 11, offset: 1_000, apikey: key }))
          .toEqual(notok(Texts.resultWindowTooLarge(10_000)))
        const top = yield* rows(sim, { chainid: 1, module: "token", action: "topholders", contractaddress: c.airdropToken.address, offset: 5_000, apikey: key })
        expect(top).toHaveLength(1_000)
      }))

    it.effect("sort desc reverses asc; startblock/endblock are inclusive", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const w = sim.dataset.chain(1).wallets[3]?.address
        const key = sim.demoKeys.standard
        const asc = yield* rows(sim, { chainid: 1, module: "account", action: "txlist", address: w, apikey: key })
        const desc = yield* rows(sim, { chainid: 1, module: "account", action: "txlist", address: w, sort: "desc", apikey: key })
        expect(asc.length).toBeGreaterThan(50)
        expect(desc).toEqual([...asc].reverse())
        const blocks = asc.map((r) => Number(r.blockNumber))
        expect(blocks).toEqual([...blocks].sort((a, b) => a - b))
        const lo = blocks[10] as number
        const hi = blocks[40] as number
        const mid = yield* rows(sim, { chainid: 1, module: "account", action: "txlist", address: w, startblock: lo, endblock: hi, apikey: key })
        expect(mid).toEqual(asc.filter((r) => Number(r.blockNumber) >= lo && Number(r.blockNumber) <= hi))
        expect(mid[0]?.blockNumber).toBe(String(lo))
        expect(mid[mid.length - 1]?.blockNumber).toBe(String(hi))
      }))

    it.effect("empty lists: 'No transactions found' for account lists, 'No records found' for getLogs", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const key = sim.demoKeys.standard
        for (const action of ["txlist", "txlistinternal", "tokentx", "tokennfttx", "token1155tx"]) {
          expect(yield* call(sim, { chainid: 1, module: "account", action, address: UNUSED, apikey: key }))
            .toEqual({ status: "0", message: Texts.NO_TRANSACTIONS_FOUND, result: [] })
        }
        expect(yield* call(sim, { chainid: 1, module: "logs", action: "getLogs", address: UNUSED, apikey: key }))
          .toEqual({ status: "0", message: Texts.NO_RECORDS_FOUND, result: [] })
        expect(yield* call(sim, { chainid: 1, module: "token", action: "tokenholderlist", contractaddress: UNUSED, apikey: key }))
          .toEqual({ status: "0", message: Texts.NO_RECORDS_FOUND, result: [] })
        // An unpopulated but served chain answers empty lists.
        expect(yield* call(sim, { chainid: 42161, module: "account", action: "txlist", address: UNUSED, apikey: key }))
          .toEqual({ status: "0", message: Texts.NO_TRANSACTIONS_FOUND, result: [] })
      }))

    it.effect("invalid address, contract address and parameter texts", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const key = sim.demoKeys.standard
        const w = sim.dataset.chain(1).wallets[0]?.address
        const acct = { chainid: 1, module: "account", apikey: key }
        expect(yield* call(sim, { ...acct, action: "txlist", address: "0x123" })).toEqual(notok(Texts.INVALID_ADDRESS))
        expect(yield* call(sim, { ...acct, action: "txlist" })).toEqual(notok(Texts.INVALID_ADDRESS))
        expect(yield* call(sim, { ...acct, action: "balance", address: "0xZZ00000000000000000000000000000000000000" })).toEqual(notok(Texts.INVALID_ADDRESS))
        expect(yield* call(sim, { ...acct, action: "tokentx", contractaddress: "0x12" })).toEqual(notok(Texts.INVALID_CONTRACT_ADDRESS))
        expect(yield* call(sim, { chainid: 1, module: "token", action: "tokenholderlist", apikey: key })).toEqual(notok(Texts.INVALID_CONTRACT_ADDRESS))
        for (const bad of [{ startblock: "abc" }, { endblock: "-1" }, { page: 0 }, { offset: "ten" }, { sort: "up" }]) {
          expect(yield* call(sim, { ...acct, action: "txlist", address: w, ...bad }), JSON.stringify(bad)).toEqual(notok(Texts.INVALID_PARAMETER))
        }
        expect(yield* call(sim, { ...acct, action: "balancehistory", address: w })).toEqual(notok(Texts.INVALID_PARAMETER))
        expect(yield* call(sim, { chainid: 1, module: "logs", action: "getLogs", topic0: "0x12", address: w, apikey: key })).toEqual(notok(Texts.INVALID_PARAMETER))
        // A checksummed (mixed-case) address is accepted.
        const upper = "0x" + (w ?? "").slice(2).toUpperCase()
        expect((yield* call(sim, { ...acct, action: "balance", address: upper })).status).toBe("1")
      }))

    it.effect("getsourcecode vs getabi on an unverified contract", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const c = sim.dataset.chain(1)
        const key = sim.demoKeys.free
        const src = yield* call(sim, { chainid: 1, module: "contract", action: "getsourcecode", address: c.unverifiedContract.address, apikey: key })
        expect(src.status).toBe("1")
        expect(src.message).toBe("OK")
        const row = (src.result as ReadonlyArray<Record<string, string>>)[0]
        expect(row?.ABI).toBe(Texts.SOURCE_NOT_VERIFIED)
        expect(row?.SourceCode).toBe("")
        expect(yield* call(sim, { chainid: 1, module: "contract", action: "getabi", address: c.unverifiedContract.address, apikey: key }))
          .toEqual(notok(Texts.SOURCE_NOT_VERIFIED))
        const verified = yield* call(sim, { chainid: 1, module: "contract", action: "getsourcecode", address: c.verifiedContract.address, apikey: key })
        const v = (verified.result as ReadonlyArray<Record<string, string>>)[0]
        expect(Object.keys(v ?? {})).toEqual([
          "SourceCode", "ABI", "ContractName", "CompilerVersion", "CompilerType", "OptimizationUsed", "Runs",
          "ConstructorArguments", "EVMVersion", "Library", "ContractFileName", "LicenseType", "Proxy", "Implementation",
          "SwarmSource", "SimilarMatch"
        ])
        expect(v?.SourceCode).toContain("contract SimSwapRouter")
        const proxy = yield* call(sim, { chainid: 1, module: "contract", action: "getsourcecode", address: c.proxyContract.address, apikey: key })
        const p = (proxy.result as ReadonlyArray<Record<string, string>>)[0]
        expect(p?.Proxy).toBe("1")
        expect(p?.Implementation).toBe(c.verifiedContract.address)
      }))
  })

  describe("getLogs filters", () => {
    it.effect("numbers in hex with zero as '0x'; fromBlock/toBlock accept 'latest'", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const c = sim.dataset.chain(1)
        const key = sim.demoKeys.standard
        const all = yield* sim.oracle({ chainId: 1, module: "logs", action: "getLogs", params: { topic0: Simulator.TRANSFER_TOPIC } })
        const hex = /^0x(?:[1-9a-f][0-9a-f]*)?$/
        for (const r of all) {
          for (const f of ["blockNumber", "timeStamp", "gasPrice", "gasUsed", "logIndex", "transactionIndex"]) expect(r[f]).toMatch(hex)
        }
        expect(all.some((r) => r.logIndex === "0x" || r.transactionIndex === "0x")).toBe(true)
        const latest = yield* rows(sim, { chainid: 1, module: "logs", action: "getLogs", address: c.erc20[0]?.address, fromBlock: "latest", toBlock: "latest", apikey: key })
        expect(latest).toEqual([])
        const toLatest = yield* rows(sim, { chainid: 1, module: "logs", action: "getLogs", address: c.erc20[0]?.address, fromBlock: 0, toBlock: "latest", apikey: key })
        expect(toLatest).toEqual(yield* sim.oracle({ chainId: 1, module: "logs", action: "getLogs", params: { address: c.erc20[0]?.address } }))
      }))

    it.effect("topic filters: and / or between pairs, topic-only queries across contracts", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const c = sim.dataset.chain(1)
        const key = sim.demoKeys.standard
        const token = c.erc20[0]?.address
        const w = c.wallets[2]?.address ?? ""
        const padded = "0x000000000000000000000000" + w.slice(2)
        const everything = yield* sim.oracle({ chainId: 1, module: "logs", action: "getLogs", params: { address: token } })
        const topics = (r: Record<string, unknown>) => r.topics as ReadonlyArray<string>
        const q = { chainid: 1, module: "logs", action: "getLogs", address: token, apikey: key, offset: 1_000 }
        const and = yield* rows(sim, { ...q, topic0: Simulator.TRANSFER_TOPIC, topic1: padded, topic0_1_opr: "and" })
        expect(and).toEqual(everything.filter((r) => topics(r)[0] === Simulator.TRANSFER_TOPIC && topics(r)[1] === padded))
        expect(and.length).toBeGreaterThan(0)
        const or = yield* rows(sim, { ...q, topic1: padded, topic2: padded, topic1_2_opr: "or" })
        expect(or).toEqual(everything.filter((r) => topics(r)[1] === padded || topics(r)[2] === padded))
        expect(or.length).toBeGreaterThan(and.length)
        const approvals = yield* rows(sim, { ...q, topic0: Simulator.APPROVAL_TOPIC })
        expect(approvals).toEqual(everything.filter((r) => topics(r)[0] === Simulator.APPROVAL_TOPIC))
        expect(yield* call(sim, { ...q, topic0: Simulator.TRANSFER_TOPIC, topic1: padded, topic0_1_opr: "xor" })).toEqual(notok(Texts.INVALID_PARAMETER))
        // No address: every contract's Transfer logs to this wallet.
        const anyContract = yield* sim.oracle({ chainId: 1, module: "logs", action: "getLogs", params: { topic0: Simulator.TRANSFER_TOPIC, topic2: padded } })
        const emitters = new Set(anyContract.map((r) => r.address))
        expect(emitters.size).toBeGreaterThan(1)
        const firstPage = yield* rows(sim, { chainid: 1, module: "logs", action: "getLogs", topic0: Simulator.TRANSFER_TOPIC, topic2: padded, apikey: key })
        expect(firstPage).toEqual(anyContract.slice(0, 1_000))
      }))
  })
})

/**
 * The simulator's rules (simulator/rules.ts) and the client's (Plan.ts, Chain.ts, the client's topholders
 * check) are two copies written from the facts file. Where both speak they must agree; a disagreement is
 * a question to settle from explorer-api.md, never a reason to make one copy read the other.
 */
describe("the simulator's rules and the client's agree where both speak", () => {
  const operations = Object.values(Plan.operations)
  // Each client operation with the simulator's name for it (the simulator types its actions).
  const pairs = operations.flatMap((op) => {
    const endpoint = Rules.endpointOf(op.module, op.action)
    return endpoint === undefined ? [] : [{ op, action: endpoint.action }]
  })
  const disagreements = <A>(cases: ReadonlyArray<A>, name: (a: A) => string, agree: (a: A) => boolean) =>
    cases.filter((a) => !agree(a)).map(name)

  it("plans, their rates, the 2/s throttle and the daily export cap", () => {
    expect(Rules.plans).toEqual(Plan.plans)
    for (const p of Plan.plans) {
      expect({ p, ...Rules.planRates[p] }).toEqual({ p, perSecond: Plan.limits[p].callsPerSecond, perDay: Plan.limits[p].callsPerDay })
    }
    expect(Rules.THROTTLED_PER_SECOND).toBe(Plan.THROTTLED_CALLS_PER_SECOND)
    expect(Rules.EXPORT_ADDRESS_TAGS_PER_DAY).toBe(Plan.EXPORT_ADDRESS_TAGS_PER_DAY)
  })

  it("the same operations in the same modules", () => {
    expect(operations.filter((op) => Rules.endpointOf(op.module, op.action) === undefined).map((op) => op.action)).toEqual([])
    expect(pairs).toHaveLength(operations.length)
    const clientNames = new Set(operations.map((op) => `${op.module}/${op.action}`))
    expect(Rules.endpoints.map((e) => `${e.module}/${e.action}`).filter((n) => !clientNames.has(n))).toEqual([])
  })

  it("the plan each call needs, parameter-dependent ones included (txlistinternal by block range)", () => {
    const params = [{}, { address: "0x00000000000000000000000000000000000000aa" }, { txhash: "0x" + "ab".repeat(32) }]
    const cases = pairs.flatMap(({ op, action }) => Plan.plans.flatMap((plan) => params.map((p) => ({ op, action, plan, p }))))
    expect(disagreements(
      cases,
      ({ action, plan, p }) => `${action} ${JSON.stringify(p)} on ${plan}`,
      ({ op, action, plan, p }) => Plan.atLeast(plan, Plan.requiredPlan(op, p)) === Rules.planReaches(plan, Rules.requiredPlan(action, p))
    )).toEqual([])
    // Not vacuous: the by-block-range call is gated on both sides.
    expect(Rules.requiredPlan("txlistinternal", {})).toBe("standard")
  })

  it("the throttled operations, result windows and per-request caps", () => {
    expect(disagreements(pairs, ({ action }) => action, ({ op, action }) => op.throttled === Rules.isThrottled(action))).toEqual([])
    const paged = pairs.filter(({ op }) => op.paging !== "none").flatMap((pair) => Plan.plans.map((plan) => ({ ...pair, plan })))
    expect(disagreements(
      paged,
      ({ action, plan }) => `${action} on ${plan}`,
      ({ op, action, plan }) =>
        Rules.resultWindow(plan, action) === Plan.resultWindow(plan, op) &&
        Rules.rowsPerRequest(plan, action) === Plan.rowsPerRequest(plan, op)
    )).toEqual([])
    expect(Rules.rowsPerRequest("proplus", "topholders")).toBe(Plan.HARD_ROW_CAP)
    expect(Rules.rowsPerRequest("proplus", "getLogs")).toBe(Plan.HARD_ROW_CAP)
  })

  it("free keys on paid-only chains, and topholders not on HyperEVM", () => {
    const cases = Chain.chains.flatMap((chain) => pairs.map((pair) => ({ chain, ...pair })))
    expect(disagreements(
      cases,
      ({ chain, action }) => `${action} on ${chain.id}`,
      ({ chain, op, action }) => Rules.refusedToFreeKeys(chain.id, action) === (!Chain.isFreeTier(chain.id) && !op.allChains)
    )).toEqual([])
    // The client refuses topholders on Chain.HYPEREVM before sending (ExplorerClient); nothing else per chain.
    expect(disagreements(
      cases,
      ({ chain, action }) => `${action} on ${chain.id}`,
      ({ chain, action }) => Rules.offeredOn(chain.id, action) === !(action === "topholders" && chain.id === Chain.HYPEREVM)
    )).toEqual([])
  })
})
