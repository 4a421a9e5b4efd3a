/**
 * Everything the client refuses before sending: bad parameters (InvalidInputError naming the
 * parameter), the plan's rules (PlanTierError, ChainNotOnPlanError, UnsupportedChainError) and a
 * missing key (InvalidApiKeyError) — each with zero requests on the fake explorer.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted, Schema } from "effect"
import type * as Client from "../../src/ExplorerClient.js"
import type * as Errors from "../../src/ExplorerError.js"
import type * as Plan from "../../src/Plan.js"
import * as F from "./fixtures.js"
import { clientOn, fakeHttp, ok } from "./helpers.js"

interface Refusal {
  readonly name: string
  readonly plan?: Plan.Plan
  readonly call: (c: Client.ExplorerClient.Service) => Effect.Effect<unknown, Errors.ExplorerError>
  readonly tag: Errors.ExplorerError["_tag"]
  readonly parameter?: string
  readonly check?: (e: Errors.ExplorerError) => void
}

/** Calls with values a type-checked caller cannot write (as a JavaScript caller or a CLI flag could). */
const loose = <P>(p: unknown): P => p as P

const refusals: ReadonlyArray<Refusal> = [
  // addresses and hashes
  { name: "short address", call: (c) => c.txlist({ address: "0x123" }), tag: "InvalidInputError", parameter: "address" },
  { name: "address without 0x", call: (c) => c.balance({ address: F.ADDRESS.slice(2) }), tag: "InvalidInputError", parameter: "address" },
  { name: "bad contract address", call: (c) => c.tokentx({ contractAddress: "0xZZ" }), tag: "InvalidInputError", parameter: "contractAddress" },
  { name: "bad tx hash", call: (c) => c.txlistinternal({ txHash: "0x1234" }), tag: "InvalidInputError", parameter: "txHash" },
  { name: "bad topic", call: (c) => c.getLogs({ topic0: "0xabc" }), tag: "InvalidInputError", parameter: "topic0" },
  // block numbers
  { name: "negative block", call: (c) => c.txlist({ address: F.ADDRESS, startBlock: -1 }), tag: "InvalidInputError", parameter: "startBlock" },
  { name: "fractional block", call: (c) => c.txlist({ address: F.ADDRESS, endBlock: 1.5 }), tag: "InvalidInputError", parameter: "endBlock" },
  { name: "block as a string", call: (c) => c.balancehistory(loose({ address: F.ADDRESS, blockNo: "12" })), tag: "InvalidInputError", parameter: "blockNo" },
  { name: "startBlock after endBlock", call: (c) => c.txlist({ address: F.ADDRESS, startBlock: 10, endBlock: 9 }), tag: "InvalidInputError", parameter: "startBlock" },
  { name: "fromBlock after toBlock", call: (c) => c.getLogs({ address: F.ADDRESS, fromBlock: 10, toBlock: 9 }), tag: "InvalidInputError", parameter: "fromBlock" },
  { name: "toBlock neither number nor latest", call: (c) => c.getLogs(loose({ address: F.ADDRESS, toBlock: "pending" })), tag: "InvalidInputError", parameter: "toBlock" },
  // dates
  { name: "date in another format", call: (c) => c.dailytx({ startDate: "01/02/2019", endDate: "2019-02-28" }), tag: "InvalidInputError", parameter: "startDate", plan: "standard" },
  { name: "impossible date", call: (c) => c.dailytx({ startDate: "2019-02-01", endDate: "2019-02-30" }), tag: "InvalidInputError", parameter: "endDate", plan: "standard" },
  { name: "startDate after endDate", call: (c) => c.dailygasused({ startDate: "2019-03-01", endDate: "2019-02-01" }), tag: "InvalidInputError", parameter: "startDate", plan: "standard" },
  // paging and windows
  { name: "page 0", call: (c) => c.txlist({ address: F.ADDRESS, page: 0 }), tag: "InvalidInputError", parameter: "page" },
  { name: "offset 0", call: (c) => c.txlist({ address: F.ADDRESS, offset: 0 }), tag: "InvalidInputError", parameter: "offset" },
  { name: "free window: page 2 × 1000", call: (c) => c.txlist({ address: F.ADDRESS, page: 2, offset: 1000 }), tag: "InvalidInputError", parameter: "page" },
  { name: "free: offset over 1000", call: (c) => c.tokentx({ address: F.ADDRESS, offset: 1001 }), tag: "InvalidInputError", parameter: "offset" },
  { name: "free: page 2 without offset (offset defaults to the largest)", call: (c) => c.txlist({ address: F.ADDRESS, page: 2 }), tag: "InvalidInputError", parameter: "page" },
  { name: "paid window: page 11 × 1000", plan: "standard", call: (c) => c.txlist({ address: F.ADDRESS, page: 11, offset: 1000 }), tag: "InvalidInputError", parameter: "page" },
  { name: "getLogs: offset over 1000 on any plan", plan: "proplus", call: (c) => c.getLogs({ address: F.ADDRESS, offset: 1001 }), tag: "InvalidInputError", parameter: "offset" },
  { name: "addresstokenbalance: page × offset over 10,000", plan: "standard", call: (c) => c.addresstokenbalance({ address: F.ADDRESS, page: 101, offset: 100 }), tag: "InvalidInputError", parameter: "page" },
  { name: "topholders limit 0", plan: "standard", call: (c) => c.topholders({ contractAddress: F.TOKEN, limit: 0 }), tag: "InvalidInputError", parameter: "limit" },
  { name: "topholders limit 1001", plan: "standard", call: (c) => c.topholders({ contractAddress: F.TOKEN, limit: 1001 }), tag: "InvalidInputError", parameter: "limit" },
  // enumerations
  { name: "sort", call: (c) => c.txlist(loose({ address: F.ADDRESS, sort: "up" })), tag: "InvalidInputError", parameter: "sort" },
  { name: "closest", call: (c) => c.getblocknobytime(loose({ timestamp: 1, closest: "near" })), tag: "InvalidInputError", parameter: "closest" },
  { name: "negative timestamp", call: (c) => c.getblocknobytime({ timestamp: -5 }), tag: "InvalidInputError", parameter: "timestamp" },
  { name: "balance tag", call: (c) => c.balance({ address: F.ADDRESS, tag: "yesterday" }), tag: "InvalidInputError", parameter: "tag" },
  { name: "export format zip", plan: "proplus", call: (c) => c.exportaddresstags(loose({ label: "all", format: "zip" })), tag: "InvalidInputError", parameter: "format" },
  // topics
  { name: "getLogs without address or topic", call: (c) => c.getLogs({ fromBlock: 1 }), tag: "InvalidInputError", parameter: "address" },
  { name: "topic operator without its second topic", call: (c) => c.getLogs({ topic0: F.TOPIC, topicOperators: { "0_1": "and" } }), tag: "InvalidInputError", parameter: "topicOperators.0_1" },
  { name: "topic operator value", call: (c) => c.getLogs(loose({ topic0: F.TOPIC, topic2: F.TOPIC, topicOperators: { "0_2": "xor" } })), tag: "InvalidInputError", parameter: "topicOperators.0_2" },
  // combinations
  { name: "token transfers without address nor contract", call: (c) => c.tokentx({ page: 1 }), tag: "InvalidInputError", parameter: "address" },
  { name: "txlistinternal: txHash with address", call: (c) => c.txlistinternal({ txHash: F.TX_HASH, address: F.ADDRESS }), tag: "InvalidInputError", parameter: "txHash" },
  { name: "unknown parameter (API spelling instead of camelCase)", call: (c) => c.txlist(loose({ address: F.ADDRESS, startblock: 1 })), tag: "InvalidInputError", parameter: "startblock" },
  { name: "escape hatch: apikey among the params", call: (c) => c.request({ module: "account", action: "balance", params: { apikey: "x" }, schema: Schema.String }), tag: "InvalidInputError", parameter: "apikey" },
  { name: "escape hatch: chainid among the params", call: (c) => c.request({ module: "account", action: "balance", params: { chainid: 5 }, schema: Schema.String }), tag: "InvalidInputError", parameter: "chainid" },
  // chain ids
  { name: "unknown chain", call: (c) => c.txlist({ chainId: 17000, address: F.ADDRESS }), tag: "UnsupportedChainError", check: (e) => expect(e.chainId).toBe(17000) },
  { name: "escape hatch: unknown chain", call: (c) => c.request({ chainId: 5, module: "account", action: "balance", schema: Schema.String }), tag: "UnsupportedChainError" },
  { name: "chain id 0", call: (c) => c.txlist({ chainId: 0, address: F.ADDRESS }), tag: "InvalidInputError", parameter: "chainId" },
  { name: "fractional chain id", call: (c) => c.txlist({ chainId: 1.5, address: F.ADDRESS }), tag: "InvalidInputError", parameter: "chainId" },
  // plan rules
  {
    name: "PRO operation on free",
    call: (c) => c.tokeninfo({ contractAddress: F.TOKEN }),
    tag: "PlanTierError",
    check: (e) => expect(e._tag === "PlanTierError" && [e.plan, e.requiredPlan]).toEqual(["free", "standard"])
  },
  {
    name: "PRO operation on lite",
    plan: "lite",
    call: (c) => c.dailytx({ startDate: "2019-02-01", endDate: "2019-02-02" }),
    tag: "PlanTierError",
    check: (e) => expect(e._tag === "PlanTierError" && [e.plan, e.requiredPlan]).toEqual(["lite", "standard"])
  },
  {
    name: "txlistinternal by block range on free",
    call: (c) => c.txlistinternal({ startBlock: 1, endBlock: 2 }),
    tag: "PlanTierError",
    check: (e) => expect(e._tag === "PlanTierError" && e.requiredPlan).toBe("standard")
  },
  {
    name: "Pro Plus operation on professional",
    plan: "professional",
    call: (c) => c.getaddresstag({ address: F.ADDRESS }),
    tag: "PlanTierError",
    check: (e) => expect(e._tag === "PlanTierError" && e.requiredPlan).toBe("proplus")
  },
  { name: "escape hatch keeps the plan rules of named operations", call: (c) => c.request({ module: "token", action: "tokeninfo", params: { contractaddress: F.TOKEN }, schema: Schema.Unknown }), tag: "PlanTierError" },
  {
    name: "paid-only chain on free",
    call: (c) => c.txlist({ chainId: 8453, address: F.ADDRESS }),
    tag: "ChainNotOnPlanError",
    check: (e) => expect(e._tag === "ChainNotOnPlanError" && e.plan).toBe("free")
  },
  { name: "proxy on a paid-only chain on free", call: (c) => c.eth_gasPrice({ chainId: 56 }), tag: "ChainNotOnPlanError" },
  { name: "topholders on HyperEVM", plan: "standard", call: (c) => c.topholders({ chainId: 999, contractAddress: F.TOKEN }), tag: "UnsupportedChainError" }
]

describe("refused before sending, with zero requests", () => {
  for (const r of refusals) {
    it.scoped(`${r.name} → ${r.tag}${r.parameter !== undefined ? ` (${r.parameter})` : ""}`, () =>
      Effect.gen(function*() {
        const fake = fakeHttp(() => ok("1"))
        const client = yield* clientOn(fake, { plan: r.plan ?? "free" })
        const error = yield* Effect.flip(r.call(client))
        expect(error._tag).toBe(r.tag)
        if (r.parameter !== undefined) {
          expect(error._tag === "InvalidInputError" && error.parameter).toBe(r.parameter)
          expect(error.message).toContain(r.parameter)
        }
        expect(error.module).not.toBe("")
        expect(error.action).not.toBe("")
        r.check?.(error)
        expect(fake.seen).toHaveLength(0)
      }))
  }

  it.scoped("a missing API key → InvalidApiKeyError, nothing sent (the client itself builds fine)", () =>
    Effect.gen(function*() {
      const fake = fakeHttp(() => ok("1"))
      for (const apiKey of [undefined, Redacted.make(""), Redacted.make("   ")]) {
        const client = yield* clientOn(fake, { apiKey })
        const error = yield* Effect.flip(client.balance({ address: F.ADDRESS }))
        expect(error._tag).toBe("InvalidApiKeyError")
        expect(error.detail).toContain("EXPLORER_API_KEY")
      }
      expect(fake.seen).toHaveLength(0)
    }))

  it.scoped("allowed on free: getsourcecode and getabi on a paid-only chain (one request each)", () =>
    Effect.gen(function*() {
      const fake = fakeHttp((r) => (r.params.action === "getabi" ? ok(F.abi) : ok([F.contractSource])))
      const client = yield* clientOn(fake, { rate: { callsPerSecond: 1000 } })
      yield* client.getsourcecode({ chainId: 8453, address: F.ADDRESS })
      expect(fake.seen).toHaveLength(1)
      expect(fake.seen[0]?.params.chainid).toBe("8453")
    }))

  it.scoped("the largest windows that are allowed are sent", () =>
    Effect.gen(function*() {
      const fake = fakeHttp(() => ok([]))
      const free = yield* clientOn(fake, { plan: "free" })
      yield* free.txlist({ address: F.ADDRESS, page: 1, offset: 1000 })
      const paid = yield* clientOn(fake, { plan: "standard" })
      yield* paid.txlist({ address: F.ADDRESS, page: 10, offset: 1000 })
      expect(fake.seen.map((s) => [s.params.page, s.params.offset])).toEqual([["1", "1000"], ["10", "1000"]])
    }))
})
