/**
 * Every operation against the in-process fake explorer: the query it sends (GET {baseUrl}/v2/api
 * with chainid, module, action, apikey and the API's parameter names, each once, no trace headers)
 * and what its answer decodes to.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted, Schema } from "effect"
import type * as Client from "../../src/ExplorerClient.js"
import * as Schemas from "../../src/schemas/index.js"
import * as F from "./fixtures.js"
import { clientOn, driven, fakeHttp, freshKey, notOk, ok, type Reply, type Seen } from "./helpers.js"

interface OpCase {
  readonly name: string
  readonly call: (c: Client.ExplorerClient.Service) => Effect.Effect<unknown, unknown>
  readonly module: string
  readonly action: string
  readonly sent: Readonly<Record<string, string>>
  readonly reply: Reply
  readonly expectResult: (result: unknown) => void
  readonly chainid?: string
}

const first = (result: unknown): Record<string, unknown> => {
  expect(Array.isArray(result)).toBe(true)
  return (result as ReadonlyArray<Record<string, unknown>>)[0] ?? {}
}

const cases: ReadonlyArray<OpCase> = [
  {
    name: "eth_gasPrice",
    call: (c) => c.eth_gasPrice(),
    module: "proxy",
    action: "eth_gasPrice",
    sent: {},
    reply: { json: { jsonrpc: "2.0", id: 73, result: "0x1d9d2db2" } },
    expectResult: (r) => expect(r).toBe(0x1d9d2db2n)
  },
  {
    name: "tokeninfo",
    call: (c) => c.tokeninfo({ contractAddress: F.tokenInfo.contractAddress }),
    module: "token",
    action: "tokeninfo",
    sent: { contractaddress: F.tokenInfo.contractAddress },
    reply: ok([F.tokenInfo]),
    expectResult: (r) => {
      expect(first(r).symbol).toBe("CARD")
      expect(first(r).totalSupply).toBe(6972003n)
    }
  },
  {
    name: "tokenbalancehistory",
    call: (c) => c.tokenbalancehistory({ contractAddress: F.TOKEN, address: F.ADDRESS, blockNo: 8_000_000 }),
    module: "account",
    action: "tokenbalancehistory",
    sent: { contractaddress: F.TOKEN, address: F.ADDRESS, blockno: "8000000" },
    reply: ok("135499"),
    expectResult: (r) => expect(r).toBe(135499n)
  },
  {
    name: "addresstokennftbalance",
    call: (c) => c.addresstokennftbalance({ address: F.ADDRESS, page: 2, offset: 100 }),
    module: "account",
    action: "addresstokennftbalance",
    sent: { address: F.ADDRESS, page: "2", offset: "100" },
    reply: ok([F.nftBalance]),
    expectResult: (r) => expect(first(r).TokenQuantity).toBe(2n)
  },
  {
    name: "topholders",
    call: (c) => c.topholders({ contractAddress: F.TOKEN, limit: 10 }),
    module: "token",
    action: "topholders",
    sent: { contractaddress: F.TOKEN, offset: "10" },
    reply: ok([F.topHolder], "Ok"),
    expectResult: (r) => expect(first(r).TokenHolderQuantity).toBe("2696124.3026660371030000")
  },
  {
    name: "getsourcecode",
    call: (c) => c.getsourcecode({ chainId: 137, address: F.ADDRESS }),
    module: "contract",
    action: "getsourcecode",
    chainid: "137",
    sent: { address: F.ADDRESS },
    reply: ok([F.contractSource]),
    expectResult: (r) => {
      expect(first(r).ContractName).toBe("Test12345")
      expect(first(r).Runs).toBe(200)
      expect(first(r).Implementation).toBe(null)
    }
  },
  {
    name: "dailygasused",
    call: (c) => c.dailygasused({ startDate: "2019-02-01", endDate: "2019-02-28", sort: "asc" }),
    module: "stats",
    action: "dailygasused",
    sent: { startdate: "2019-02-01", enddate: "2019-02-28", sort: "asc" },
    reply: ok([F.dailyGasUsed]),
    expectResult: (r) => expect(first(r).gasUsed).toBe(32761450415n)
  },
  {
    name: "balance",
    call: (c) => c.balance({ address: F.ADDRESS, tag: "latest" }),
    module: "account",
    action: "balance",
    sent: { address: F.ADDRESS, tag: "latest" },
    reply: ok("172774397764084972158218"),
    expectResult: (r) => expect(r).toBe(172774397764084972158218n)
  },
  {
    name: "balancehistory",
    call: (c) => c.balancehistory({ address: F.ADDRESS, blockNo: 0 }),
    module: "account",
    action: "balancehistory",
    sent: { address: F.ADDRESS, blockno: "0" },
    reply: ok("610538078574759898951277"),
    expectResult: (r) => expect(r).toBe(610538078574759898951277n)
  },
  {
    name: "addresstokenbalance",
    call: (c) => c.addresstokenbalance({ address: F.ADDRESS, page: 1, offset: 100 }),
    module: "account",
    action: "addresstokenbalance",
    sent: { address: F.ADDRESS, page: "1", offset: "100" },
    reply: ok([F.tokenBalance]),
    expectResult: (r) => expect(first(r).TokenDivisor).toBe(18)
  },
  {
    name: "txlist",
    call: (c) => c.txlist({ address: F.ADDRESS, startBlock: 0, endBlock: 99_999_999, page: 1, offset: 10, sort: "asc" }),
    module: "account",
    action: "txlist",
    sent: { address: F.ADDRESS, startblock: "0", endblock: "99999999", page: "1", offset: "10", sort: "asc" },
    reply: ok([F.normalTransaction]),
    expectResult: (r) => {
      expect(first(r).blockNumber).toBe(23467053)
      expect(first(r).isError).toBe(false)
      expect(first(r).contractAddress).toBe(null)
    }
  },
  {
    name: "txlistinternal by address",
    call: (c) => c.txlistinternal({ address: F.ADDRESS, startBlock: 0, endBlock: 2_702_578 }),
    module: "account",
    action: "txlistinternal",
    sent: { address: F.ADDRESS, startblock: "0", endblock: "2702578" },
    reply: ok([F.internalTransaction]),
    expectResult: (r) => expect(first(r).type).toBe("create")
  },
  {
    name: "txlistinternal by hash",
    call: (c) => c.txlistinternal({ txHash: F.TX_HASH }),
    module: "account",
    action: "txlistinternal",
    sent: { txhash: F.TX_HASH },
    reply: ok([{ ...F.internalTransaction, hash: undefined, traceId: undefined }]),
    expectResult: (r) => expect(first(r).hash).toBe(undefined)
  },
  {
    name: "txlistinternal by block range (PRO)",
    call: (c) => c.txlistinternal({ startBlock: 1, endBlock: 2 }),
    module: "account",
    action: "txlistinternal",
    sent: { startblock: "1", endblock: "2" },
    reply: ok([F.internalTransaction]),
    expectResult: (r) => expect(first(r).gasUsed).toBe(46750n)
  },
  {
    name: "tokentx",
    call: (c) => c.tokentx({ address: F.ADDRESS, contractAddress: F.TOKEN, page: 1, offset: 100, sort: "desc" }),
    module: "account",
    action: "tokentx",
    sent: { address: F.ADDRESS, contractaddress: F.TOKEN, page: "1", offset: "100", sort: "desc" },
    reply: ok([F.erc20Transfer]),
    expectResult: (r) => expect(first(r).value).toBe(5901522149285533025181n)
  },
  {
    name: "tokennfttx",
    call: (c) => c.tokennfttx({ contractAddress: F.TOKEN }),
    module: "account",
    action: "tokennfttx",
    sent: { contractaddress: F.TOKEN },
    reply: ok([F.erc721Transfer]),
    expectResult: (r) => expect(first(r).tokenID).toBe(202106n)
  },
  {
    name: "token1155tx",
    call: (c) => c.token1155tx({ address: F.ADDRESS }),
    module: "account",
    action: "token1155tx",
    sent: { address: F.ADDRESS },
    reply: ok([F.erc1155Transfer]),
    expectResult: (r) => expect(first(r).tokenValue).toBe(1n)
  },
  {
    name: "fundedby",
    call: (c) => c.fundedby({ address: F.ADDRESS }),
    module: "account",
    action: "fundedby",
    sent: { address: F.ADDRESS },
    reply: ok(F.fundedBy),
    expectResult: (r) => expect((r as { block: number }).block).toBe(53708500)
  },
  {
    name: "getblocknobytime",
    call: (c) => c.getblocknobytime({ timestamp: 1578638524, closest: "before" }),
    module: "block",
    action: "getblocknobytime",
    sent: { timestamp: "1578638524", closest: "before" },
    reply: ok("9251482"),
    expectResult: (r) => expect(r).toBe(9251482)
  },
  {
    name: "getabi",
    call: (c) => c.getabi({ address: F.ADDRESS }),
    module: "contract",
    action: "getabi",
    sent: { address: F.ADDRESS },
    reply: ok(F.abi),
    expectResult: (r) => expect(r).toBe(F.abi)
  },
  {
    name: "tokenholderlist",
    call: (c) => c.tokenholderlist({ contractAddress: F.TOKEN, page: 1, offset: 10 }),
    module: "token",
    action: "tokenholderlist",
    sent: { contractaddress: F.TOKEN, page: "1", offset: "10" },
    reply: ok([F.tokenHolder]),
    expectResult: (r) => expect(first(r).TokenHolderQuantity).toBe(2n)
  },
  {
    name: "getLogs",
    call: (c) =>
      c.getLogs({
        chainId: 42161,
        address: F.TOKEN,
        fromBlock: 12_878_196,
        toBlock: "latest",
        topic0: F.TOPIC,
        topic1: "0x000000000000000000000000ddbd2b932c763ba5b1b7ae3b362eac3e8d40121a",
        topicOperators: { "0_1": "and" },
        page: 1,
        offset: 1000
      }),
    module: "logs",
    action: "getLogs",
    chainid: "42161",
    sent: {
      address: F.TOKEN,
      fromBlock: "12878196",
      toBlock: "latest",
      topic0: F.TOPIC,
      topic1: "0x000000000000000000000000ddbd2b932c763ba5b1b7ae3b362eac3e8d40121a",
      topic0_1_opr: "and",
      page: "1",
      offset: "1000"
    },
    reply: ok([F.log]),
    expectResult: (r) => {
      expect(first(r).blockNumber).toBe(0xc48174)
      expect(first(r).logIndex).toBe(0)
    }
  },
  {
    name: "dailytx",
    call: (c) => c.dailytx({ startDate: "2019-02-01", endDate: "2019-02-01" }),
    module: "stats",
    action: "dailytx",
    sent: { startdate: "2019-02-01", enddate: "2019-02-01" },
    reply: ok([F.dailyTx]),
    expectResult: (r) => expect(first(r).transactionCount).toBe(498856)
  },
  {
    name: "ethsupply",
    call: (c) => c.ethsupply(),
    module: "stats",
    action: "ethsupply",
    sent: {},
    reply: ok("122373866217800000000000000"),
    expectResult: (r) => expect(r).toBe(122373866217800000000000000n)
  },
  {
    name: "ethsupply2",
    call: (c) => c.ethsupply2(),
    module: "stats",
    action: "ethsupply2",
    sent: {},
    reply: ok({
      EthSupply: "122373866217800000000000000",
      Eth2Staking: "1157529105115885000000000",
      BurntFees: "3102505506455601519229842",
      WithdrawnTotal: "1170332576190999777000000"
    }),
    expectResult: (r) => expect(r).toMatchObject({ EthSupply: 122373866217800000000000000n, BurntFees: 3102505506455601519229842n })
  },
  {
    name: "getblocktxnscount",
    call: (c) => c.getblocktxnscount({ blockNo: 2165403 }),
    module: "block",
    action: "getblocktxnscount",
    sent: { blockno: "2165403" },
    reply: ok({ block: 2165403, txsCount: 4, internalTxsCount: 1, erc20TransfersCount: 2, erc721TransfersCount: 0, erc1155TransfersCount: 0 }),
    expectResult: (r) => expect(r).toMatchObject({ block: 2165403, txsCount: 4, erc20TransfersCount: 2 })
  },
  {
    name: "checkproxyverification",
    call: (c) => c.checkproxyverification({ guid: "gwgrrnfy56zf6vc1fljuejwg6pelnc5yns6fg6y2i6zfpgzquz" }),
    module: "contract",
    action: "checkproxyverification",
    sent: { guid: "gwgrrnfy56zf6vc1fljuejwg6pelnc5yns6fg6y2i6zfpgzquz" },
    reply: ok("The proxy's (0xbc46363a7669f6e12353fa95bb067aead3675c29) implementation contract is found at 0xe45a5176bc0f2c1198e2451c4e4501d4ed9b65a6 and is successfully updated."),
    expectResult: (r) => expect(r).toMatch(/is successfully updated\.$/)
  },
  {
    name: "getaddresstag",
    call: (c) => c.getaddresstag({ address: F.ADDRESS }),
    module: "nametag",
    action: "getaddresstag",
    sent: { address: F.ADDRESS },
    reply: ok([F.addressTag]),
    expectResult: (r) => expect(first(r).labels).toEqual(["Coinbase", "Exchange"])
  },
  {
    name: "getlabelmasterlist (inline records)",
    call: (c) => c.getlabelmasterlist(),
    module: "nametag",
    action: "getlabelmasterlist",
    sent: {},
    reply: ok([F.labelMaster]),
    expectResult: (r) => expect(first(r).labelslug).toBe("axelar")
  }
]

const PROPLUS = { plan: "proplus" } as const

describe("every operation: query sent and answer decoded", () => {
  for (const c of cases) {
    it.scoped(c.name, () =>
      Effect.gen(function*() {
        const fake = fakeHttp(() => c.reply)
        const key = freshKey()
        const client = yield* clientOn(fake, { ...PROPLUS, apiKey: key })
        const result = yield* c.call(client)
        c.expectResult(result)
        expect(fake.seen).toHaveLength(1)
        const seen = fake.seen[0] as Seen
        expect(seen.origin).toBe("https://explorer.test")
        expect(seen.path).toBe("/v2/api")
        expect(seen.params).toEqual({
          chainid: c.chainid ?? "1",
          module: c.module,
          action: c.action,
          apikey: Redacted.value(key),
          ...c.sent
        })
        // every parameter once (setUrlParams, never appendUrlParams)
        expect(new Set(seen.keys).size).toBe(seen.keys.length)
        // no trace headers to a third-party API
        expect(Object.keys(seen.headers)).not.toContain("traceparent")
        expect(Object.keys(seen.headers)).not.toContain("b3")
      }))
  }
})

const decodedTags = Schema.decodeUnknownSync(Schema.Array(Schemas.AddressTag))([F.addressTag])
const decodedLabels = Schema.decodeUnknownSync(Schema.Array(Schemas.LabelMaster))([F.labelMaster])

describe("download links (exportaddresstags, getlabelmasterlist)", () => {
  it.scoped("exportaddresstags follows a link on another origin without the key and parses the ;-CSV", () =>
    driven(Effect.gen(function*() {
      const link = "https://downloads.example.net/exports/phish-hack.csv?X-Amz-Signature=abc%2Fdef&X-Amz-Expires=300"
      const fake = fakeHttp((r) =>
        r.origin === "https://explorer.test"
          ? ok(link)
          : { text: Schemas.formatAddressTagsCsv(decodedTags), contentType: "text/csv" }
      )
      const client = yield* clientOn(fake, PROPLUS)
      const rows = yield* client.exportaddresstags({ label: "phish-hack", format: "csv" })
      expect(rows).toEqual(decodedTags)
      expect(fake.seen).toHaveLength(2)
      expect(fake.seen[0]?.params).toMatchObject({ module: "nametag", action: "exportaddresstags", label: "phish-hack", format: "csv" })
      const download = fake.seen[1] as Seen
      expect(download.url).toBe(link) // the pre-signed link is sent untouched
      expect(download.params.apikey).toBeUndefined()
    })))

  it.scoped("a link on the API's own origin gets the key", () =>
    driven(Effect.gen(function*() {
      const fake = fakeHttp((r) =>
        r.path === "/v2/api" ? ok("https://explorer.test/downloads/labels.csv") : { text: Schemas.formatLabelMasterCsv(decodedLabels) }
      )
      const key = freshKey()
      const client = yield* clientOn(fake, { ...PROPLUS, apiKey: key })
      const rows = yield* client.getlabelmasterlist()
      expect(rows).toEqual(decodedLabels)
      expect(fake.seen[1]?.path).toBe("/downloads/labels.csv")
      expect(fake.seen[1]?.params.apikey).toBe(Redacted.value(key))
    })))

  it.scoped("a failing download is a TransportError without the link; a bad file a DecodeError", () =>
    driven(Effect.gen(function*() {
      const link = "https://downloads.example.net/x.csv?sig=SECRETSIG"
      const fake403 = fakeHttp((r) => (r.path === "/v2/api" ? ok(link) : { text: "<Error>AccessDenied</Error>", status: 403 }))
      const e1 = yield* Effect.flip((yield* clientOn(fake403, PROPLUS)).exportaddresstags({ label: "all" }))
      expect(e1._tag).toBe("TransportError")
      expect(JSON.stringify(e1)).not.toContain("SECRETSIG")
      expect(e1.message).not.toContain("downloads.example.net")
      const fakeBad = fakeHttp((r) => (r.path === "/v2/api" ? ok(link) : { text: "\"only\";\"garbage\"\r\n\"1\"" }))
      const e2 = yield* Effect.flip((yield* clientOn(fakeBad, PROPLUS)).exportaddresstags({ label: "all" }))
      expect(e2._tag).toBe("DecodeError")
    })))
})

describe("answers", () => {
  it.scoped("empty answers are empty lists (No transactions found / No records found / No data found)", () =>
    driven(Effect.gen(function*() {
      const replies: ReadonlyArray<Reply> = [
        { json: { status: "0", message: "No transactions found", result: [] } },
        { json: { status: "0", message: "No records found", result: [] } },
        { json: { status: "0", message: "No data found", result: null } }
      ]
      const fake = fakeHttp((_, i) => replies[i] ?? notOk("unexpected"))
      const client = yield* clientOn(fake, PROPLUS)
      expect(yield* client.txlist({ address: F.ADDRESS })).toEqual([])
      expect(yield* client.getLogs({ address: F.ADDRESS })).toEqual([])
      expect(yield* client.tokentx({ address: F.ADDRESS })).toEqual([])
    })))

  it.scoped("an empty answer where one value is expected is a NotOkError with the server's words", () =>
    driven(Effect.gen(function*() {
      const fake = fakeHttp(() => ({ json: { status: "0", message: "No data found", result: null } }))
      const client = yield* clientOn(fake, PROPLUS)
      const error = yield* Effect.flip(client.fundedby({ address: F.ADDRESS }))
      expect(error._tag).toBe("NotOkError")
      expect(error.detail).toBe("No data found")
    })))

  it.scoped("fields the library does not know yet survive decoding", () =>
    driven(Effect.gen(function*() {
      const fake = fakeHttp(() => ok([{ ...F.normalTransaction, brandNewField: "42" }]))
      const client = yield* clientOn(fake)
      const [row] = yield* client.txlist({ address: F.ADDRESS })
      expect((row as unknown as Record<string, unknown>).brandNewField).toBe("42")
    })))

  it.scoped("a record that does not fit its schema is a non-transient DecodeError (one request)", () =>
    driven(Effect.gen(function*() {
      const fake = fakeHttp(() => ok([{ ...F.normalTransaction, blockNumber: "not a number" }]))
      const client = yield* clientOn(fake)
      const error = yield* Effect.flip(client.txlist({ address: F.ADDRESS }))
      expect(error._tag === "DecodeError" && error.transient).toBe(false)
      expect(fake.seen).toHaveLength(1)
    })))

  it.scoped("getabi on an unverified contract: NotOkError saying so; getsourcecode: a row saying so", () =>
    driven(Effect.gen(function*() {
      const fake = fakeHttp((r) =>
        r.params.action === "getabi"
          ? notOk("Contract source code not verified")
          : ok([{ ...F.contractSource, SourceCode: "", ABI: "Contract source code not verified", ContractName: "", CompilerVersion: "", OptimizationUsed: "", Runs: "", LicenseType: "Unknown" }])
      )
      const client = yield* clientOn(fake)
      const error = yield* Effect.flip(client.getabi({ address: F.ADDRESS }))
      expect(error._tag).toBe("NotOkError")
      expect(error.detail).toBe("Contract source code not verified")
      const [row] = yield* client.getsourcecode({ address: F.ADDRESS })
      expect(row?.ABI).toBe("Contract source code not verified")
    })))

  it.scoped("eth_gasPrice: a NOTOK envelope (has status, no jsonrpc) is an error, a JSON-RPC error too", () =>
    driven(Effect.gen(function*() {
      const replies: ReadonlyArray<Reply> = [
        notOk("Invalid API Key"),
        { json: { jsonrpc: "2.0", id: 1, error: { code: -32000, message: "header not found" } } }
      ]
      const fake = fakeHttp((_, i) => replies[i] ?? notOk("unexpected"))
      const client = yield* clientOn(fake)
      expect((yield* Effect.flip(client.eth_gasPrice()))._tag).toBe("InvalidApiKeyError")
      const rpc = yield* Effect.flip(client.eth_gasPrice())
      expect(rpc).toMatchObject({ _tag: "JsonRpcError", code: -32000, detail: "header not found" })
    })))

  it.scoped("base URL given with a trailing slash or with /v2/api: the path is /v2/api once", () =>
    driven(Effect.gen(function*() {
      for (const baseUrl of ["https://explorer.test/", "https://explorer.test/v2/api", "https://explorer.test/v2/api/"]) {
        const fake = fakeHttp(() => ok("1"))
        const client = yield* clientOn(fake, { baseUrl })
        yield* client.balance({ address: F.ADDRESS })
        expect(fake.seen[0]?.url.split("?")[0]).toBe("https://explorer.test/v2/api")
      }
    })))

  it.scoped("the escape hatch: any module/action, its params once, decoded by the given schema", () =>
    driven(Effect.gen(function*() {
      const fake = fakeHttp(() => ok([{ account: F.ADDRESS, balance: "5" }]))
      const client = yield* clientOn(fake)
      const rows = yield* client.request({
        chainId: 137,
        module: "account",
        action: "balancemulti",
        params: { address: F.ADDRESS, tag: "latest", skipped: undefined },
        schema: Schema.Array(Schema.Struct({ account: Schema.String, balance: Schema.BigInt }))
      })
      expect(rows).toEqual([{ account: F.ADDRESS, balance: 5n }])
      expect(fake.seen[0]?.params).toMatchObject({ chainid: "137", module: "account", action: "balancemulti", tag: "latest" })
      expect(fake.seen[0]?.keys).not.toContain("skipped")
    })))

  it.scoped("plan tier answers from the server carry the plan and the plan required", () =>
    driven(Effect.gen(function*() {
      const fake = fakeHttp(() => notOk("Sorry, it looks like you are trying to access an API Pro endpoint. Contact us to upgrade to API Pro."))
      const client = yield* clientOn(fake, { plan: "standard" })
      const error = yield* Effect.flip(client.tokeninfo({ contractAddress: F.TOKEN }))
      expect(error._tag).toBe("PlanTierError")
      if (error._tag === "PlanTierError") {
        expect(error.plan).toBe("standard")
        expect(error.requiredPlan).toBe("standard")
      }
    })))

  it.effect("stats count this instance's requests", () =>
    driven(Effect.gen(function*() {
      const fake = fakeHttp(() => ok("1"))
      const stats = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* clientOn(fake)
        yield* client.balance({ address: F.ADDRESS })
        yield* client.balance({ address: F.ADDRESS })
        return yield* client.stats
      }))
      expect(stats).toEqual({ requests: 2, retries: 0, rateLimited: 0 })
    })))
})
