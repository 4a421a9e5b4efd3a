/**
 * Every recorded real answer of test/fixtures/real-responses (copied from the live service by public projects;
 * its README names every source) goes
 * through the schemas: named records decode and encode back to the very same JSON, no key is left
 * undeclared, and the other operations (reached through the client's generic `request`) at least pass the
 * Envelope / JSON-RPC schemas unchanged.
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as S from "../../src/schemas/index.js"

const repoRoot = fileURLToPath(new URL("../../", import.meta.url))
const fixturesDir = path.resolve(repoRoot, "test/fixtures/real-responses")

/** How the result of a named operation decodes: a list of records, or one value. */
type Named =
  | {
    readonly kind: "list"
    readonly schema: Schema.Schema.AnyNoContext
    readonly declared: ReadonlySet<string>
    readonly fastDecode: (input: unknown) => ReadonlyArray<unknown> | undefined
    readonly fastEncode: (records: ReadonlyArray<unknown>) => ReadonlyArray<unknown> | undefined
    /** The export path: the records checked and passed through in place (the same struct on both sides). */
    readonly transcode: ((input: unknown) => ReadonlyArray<unknown> | undefined) | undefined
  }
  | { readonly kind: "value"; readonly schema: Schema.Schema.AnyNoContext }

const list = <Fields extends Schema.Struct.Fields>(row: Schema.Struct<Fields>): Named => {
  const fast = S.recordsFastPath(row)
  return {
    kind: "list",
    // every record schema is context-free; the cast only drops the generic context parameter
    schema: Schema.Array(row) as unknown as Schema.Schema.AnyNoContext,
    declared: new Set(Object.keys(row.fields)),
    fastDecode: fast.decode,
    fastEncode: (records) => fast.encode(records as ReadonlyArray<Schema.Struct<Fields>["Type"]>),
    transcode: S.transcodeRecords(row, row)
  }
}
const value = (schema: Schema.Schema.AnyNoContext): Named => ({ kind: "value", schema })

/** module.action → the schema the client uses for its `result`. */
const named: Readonly<Record<string, Named>> = {
  "account.balance": value(S.WeiAmount),
  "account.balancehistory": value(S.WeiAmount),
  "account.tokenbalancehistory": value(S.WeiAmount),
  "account.txlist": list(S.NormalTransaction),
  "account.txlistinternal": list(S.InternalTransaction),
  "account.tokentx": list(S.Erc20Transfer),
  "account.tokennfttx": list(S.Erc721Transfer),
  "account.token1155tx": list(S.Erc1155Transfer),
  "account.addresstokenbalance": list(S.TokenBalance),
  "account.addresstokennftbalance": list(S.NftBalance),
  "account.fundedby": value(S.FundedBy),
  "token.tokeninfo": list(S.TokenInfo),
  "token.topholders": list(S.TopHolder),
  "token.tokenholderlist": list(S.TokenHolder),
  "contract.getsourcecode": list(S.ContractSource),
  "contract.getabi": value(S.AbiJson),
  "stats.dailygasused": list(S.DailyGasUsed),
  "stats.dailytx": list(S.DailyTxCount),
  "stats.ethsupply": value(S.EtherSupply),
  "logs.getLogs": list(S.Log),
  "block.getblocknobytime": value(S.BlockNumberResult),
  "proxy.eth_gasPrice": value(S.GasPrice),
  "nametag.getaddresstag": list(S.AddressTag),
  "nametag.getlabelmasterlist": list(S.LabelMaster),
  "account.balancemulti": list(S.AccountBalance),
  "account.tokenbalance": value(S.TokenAmount),
  "stats.tokensupply": value(S.TokenAmount),
  "stats.ethprice": value(S.EtherPrice),
  "gastracker.gasoracle": value(S.GasOracle),
  "gastracker.gasestimate": value(S.ConfirmationSeconds),
  "block.getblockcountdown": value(S.BlockCountdown),
  "transaction.getstatus": value(S.TxExecutionStatus),
  "transaction.gettxreceiptstatus": value(S.TxReceiptStatus)
}

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

interface Fixture {
  readonly file: string
  readonly operation: string
  /** The body as the server sent it (pcko1 and bare-array files re-wrapped by us). */
  readonly body: Record<string, unknown>
}

const loadFixture = (file: string): Fixture => {
  const [module, action] = file.split(".")
  const operation = `${module}.${action}`
  const raw: Json = JSON.parse(fs.readFileSync(path.join(fixturesDir, file), "utf8"))
  let body: Record<string, unknown>
  if (Array.isArray(raw)) {
    // dabo: the library kept only `result`
    body = { status: "1", message: "OK", result: raw }
  } else if (isObject(raw) && "res" in raw && "kwargs" in raw) {
    // pcko1: the library kept only `result` (and dropped jsonrpc/id for proxy calls)
    body = module === "proxy"
      ? { jsonrpc: "2.0", id: 1, result: raw.res }
      : { status: "1", message: "OK", result: raw.res }
  } else if (isObject(raw)) {
    body = raw
  } else {
    throw new Error(`${file}: not a JSON object or array`)
  }
  if (file === "contract.getsourcecode.ape.2.json") {
    // The source project moved the SourceCode value into a sibling file; put it back.
    const sourceCode = fs.readFileSync(path.join(fixturesDir, "contract.getsourcecode.ape.2.SourceCode.txt"), "utf8")
    const result = body.result
    if (!Array.isArray(result) || !isObject(result[0])) throw new Error(`${file}: unexpected shape`)
    body = { ...body, result: [{ SourceCode: sourceCode, ...result[0] }] }
  }
  return { file, operation, body }
}

const files = fs
  .readdirSync(fixturesDir, { withFileTypes: true })
  .filter((d) => d.isFile() && d.name.endsWith(".json"))
  .map((d) => d.name)
  .sort()
const fixtures = files.map(loadFixture)

const strict = { onExcessProperty: "error" } as const

/** Decodes with `schema` (excess keys rejected), encodes back, and expects the very same JSON. */
const roundTrip = (schema: Schema.Schema.AnyNoContext, input: unknown): void => {
  const decoded: unknown = Schema.decodeUnknownSync(schema, strict)(input)
  const encoded: unknown = Schema.encodeSync(schema)(decoded)
  expect(encoded).toStrictEqual(input)
}

const undeclaredKeys = (declared: ReadonlySet<string>, records: ReadonlyArray<unknown>): Array<string> => {
  const extra = new Set<string>()
  for (const r of records) if (isObject(r)) for (const k of Object.keys(r)) if (!declared.has(k)) extra.add(k)
  return [...extra]
}

/** module.action of every answer whose records went through a named schema (for the coverage check). */
const decodedOperations = new Set<string>()

describe("real recorded answers", () => {
  it("finds the recorded answers beside the repository", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(120)
  })

  for (const { body, file, operation } of fixtures) {
    it(file, () => {
      if ("jsonrpc" in body) {
        roundTrip(S.JsonRpcResponse, body)
        const decoded = Schema.decodeUnknownSync(S.JsonRpcResponse)(body)
        const spec = named[operation]
        if ("result" in decoded && spec !== undefined && spec.kind === "value") {
          roundTrip(S.JsonRpcResult(spec.schema), body)
          decodedOperations.add(operation)
        }
        return
      }

      roundTrip(S.Envelope, body)
      const envelope = Schema.decodeUnknownSync(S.Envelope)(body)
      if (envelope.status !== "1") {
        // Error bodies and empty lists: the client classifies them, the result is never records.
        expect(envelope.status).toBe("0")
        const result = envelope.result
        const isEmptyList = Array.isArray(result) && result.length === 0
        // getcontractcreation answers "No data found" with a null result (rotki.2).
        const isNoData = result === null && envelope.message === "No data found"
        expect(typeof result === "string" || isEmptyList || isNoData).toBe(true)
        return
      }

      const spec = named[operation]
      if (spec === undefined) return
      if (spec.kind === "value") {
        roundTrip(spec.schema, envelope.result)
      } else {
        expect(Array.isArray(envelope.result)).toBe(true)
        const records = envelope.result as ReadonlyArray<unknown>
        expect(undeclaredKeys(spec.declared, records)).toStrictEqual([])
        roundTrip(spec.schema, records)
        // the fast path of decodeRecords/encodeRecords takes these answers and agrees with the schema
        const fast = spec.fastDecode(records)
        expect(fast).toBeDefined()
        expect(fast).toStrictEqual(Schema.decodeUnknownSync(spec.schema)(records))
        expect(spec.fastEncode(fast ?? [])).toStrictEqual(records)
        // the export path takes them too, and leaves them as the server wrote them
        expect(spec.transcode).toBeDefined()
        expect(spec.transcode?.(structuredClone(records))).toStrictEqual(records)
        if (operation === "logs.getLogs") {
          // …or writes them in decimal, exactly as decoding and encoding with the file's schema would
          const viaSchemas = Schema.encodeSync(Schema.Array(S.LogFileRow))(Schema.decodeUnknownSync(Schema.Array(S.Log))(records))
          expect(S.transcodeRecords(S.Log, S.LogFileRow)?.(structuredClone(records))).toStrictEqual(viaSchemas)
        }
      }
      decodedOperations.add(operation)
    })
  }

  it("decoded a success answer for every named operation that has one", () => {
    const expected = [
      "account.balance",
      "account.balancehistory",
      "account.tokenbalancehistory",
      "account.txlist",
      "account.txlistinternal",
      "account.tokentx",
      "account.tokennfttx",
      "token.tokeninfo",
      "contract.getsourcecode",
      "contract.getabi",
      "stats.dailygasused",
      "stats.dailytx",
      "stats.ethsupply",
      "logs.getLogs",
      "block.getblocknobytime",
      "proxy.eth_gasPrice",
      "account.balancemulti",
      "account.tokenbalance",
      "stats.tokensupply",
      "stats.ethprice",
      "gastracker.gasoracle",
      "gastracker.gasestimate",
      "block.getblockcountdown",
      "transaction.getstatus",
      "transaction.gettxreceiptstatus"
    ]
    expect([...decodedOperations].sort()).toStrictEqual([...expected].sort())
  })
})

describe("odd values of real answers", () => {
  const rowsOf = (file: string): ReadonlyArray<unknown> => {
    const fixture = fixtures.find((f) => f.file === file)
    if (fixture === undefined || !Array.isArray(fixture.body.result)) throw new Error(`${file}: no records`)
    return fixture.body.result
  }

  it("GENESIS rows of txlist decode with null nonce/blockHash and the pseudo sender/hash kept", () => {
    const [genesis] = Schema.decodeUnknownSync(Schema.Array(S.NormalTransaction))(rowsOf("account.txlist.pcko1.1.json"))
    expect(genesis).toMatchObject({
      hash: "GENESIS_ddbd2b932c763ba5b1b7ae3b362eac3e8d40121a",
      from: "GENESIS",
      nonce: null,
      blockHash: null,
      txreceipt_status: null,
      contractAddress: null,
      input: "",
      isError: false,
      blockNumber: 0,
      value: 10000000000000000000000n
    })
  })

  it("a contract creation has to null and contractAddress set", () => {
    const rows = Schema.decodeUnknownSync(Schema.Array(S.NormalTransaction))(rowsOf("account.txlist.0x.1.json"))
    expect(rows[0]?.to).toBeNull()
    expect(rows[0]?.contractAddress).toBe("0x4f833a24e1f95d70f028921e27040ca56e09ab0b")
  })

  it("getLogs hex zero \"0x\" decodes to 0 (logIndex, transactionIndex, Gnosis gasPrice)", () => {
    const dabo = Schema.decodeUnknownSync(Schema.Array(S.Log))(rowsOf("logs.getLogs.dabo.1.json"))
    expect(dabo[0]).toMatchObject({ logIndex: 0, transactionIndex: 0, data: "0x" })
    expect(dabo[0]?.blockHash).toBeUndefined()
    const gnosis = Schema.decodeUnknownSync(Schema.Array(S.Log))(rowsOf("logs.getLogs.rotki.1.json"))
    expect(gnosis.every((l) => l.gasPrice === 0n)).toBe(true)
    expect(gnosis.every((l) => typeof l.blockHash === "string")).toBe(true)
  })

  it("internal transactions keep path-like traceIds and free-text errCode", () => {
    const rows = Schema.decodeUnknownSync(Schema.Array(S.InternalTransaction))(rowsOf("account.txlistinternal.rotki.1.json"))
    expect(rows[0]?.traceId).toBe("0_1_1_1")
    const failed = Schema.decodeUnknownSync(Schema.Array(S.InternalTransaction))(rowsOf("account.txlistinternal.pcko1.1.json"))
      .filter((r) => r.isError)
    expect(failed.map((r) => r.errCode)).toContain("Bad jump destination")
    const byHash = Schema.decodeUnknownSync(Schema.Array(S.InternalTransaction))(rowsOf("account.txlistinternal.pcko1.4.json"))
    expect(byHash[0]?.hash).toBeUndefined()
    expect(byHash[0]?.traceId).toBeUndefined()
  })

  it("an unverified contract decodes with empty typed fields as null", () => {
    const [row] = Schema.decodeUnknownSync(Schema.Array(S.ContractSource))(rowsOf("contract.getsourcecode.ape.4.json"))
    expect(row).toMatchObject({
      ABI: "Contract source code not verified",
      OptimizationUsed: null,
      Runs: null,
      Proxy: false,
      Implementation: null
    })
  })
})
