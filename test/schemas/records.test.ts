/**
 * Record schemas that no recorded answer covers (their shapes come from the docs examples), and the field
 * order of every record, which the sinks use as their column order.
 */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Effect, Either, FastCheck as fc, Schema } from "effect"
import * as S from "../../src/schemas/index.js"

const roundTrip = <A, I>(schema: Schema.Schema<A, I>, wire: I): A => {
  const decoded = Schema.decodeUnknownSync(schema, { onExcessProperty: "error" })(wire)
  expect(Schema.encodeSync(schema)(decoded)).toStrictEqual(wire)
  return decoded
}

const hash = (n: number) => "0x" + n.toString(16).padStart(64, "0")
const address = (n: number) => "0x" + n.toString(16).padStart(40, "0")

describe("records known from the docs only", () => {
  it("Erc1155Transfer", () => {
    const row = roundTrip(S.Erc1155Transfer, {
      blockNumber: "13472395",
      timeStamp: "1634973285",
      hash: hash(1),
      nonce: "41",
      blockHash: hash(2),
      transactionIndex: "100",
      gas: "140000",
      gasPrice: "52898577246",
      gasUsed: "105030",
      cumulativeGasUsed: "11739203",
      input: "deprecated",
      methodId: "0x3e6b214b",
      functionName: "",
      contractAddress: address(3),
      from: address(4),
      to: address(5),
      tokenID: "10371",
      tokenValue: "1",
      tokenName: "parallel",
      tokenSymbol: "LL",
      confirmations: "1484171"
    })
    expect(row.tokenID).toBe(10371n)
    expect(row.tokenValue).toBe(1n)
  })

  it("TokenBalance and NftBalance", () => {
    const balance = roundTrip(S.TokenBalance, {
      TokenAddress: "0xffffffff2ba8f66d4e51811c5190992176930278",
      TokenName: "Furucombo",
      TokenSymbol: "COMBO",
      TokenQuantity: "1861606940000000000",
      TokenDivisor: "18",
      TokenPriceUSD: "0.000891470000000000"
    })
    expect(balance.TokenQuantity).toBe(1861606940000000000n)
    expect(balance.TokenDivisor).toBe(18)
    const nfts = roundTrip(S.NftBalance, {
      TokenAddress: address(7),
      TokenName: "Kitties",
      TokenSymbol: "CK",
      TokenQuantity: "3"
    })
    expect(nfts.TokenQuantity).toBe(3n)
  })

  it("FundedBy has a JSON-number block", () => {
    const funded = roundTrip(S.FundedBy, {
      block: 53708500,
      timeStamp: "1708349932",
      fundingAddress: address(8),
      fundingTxn: hash(9),
      value: "1000000000000000"
    })
    expect(funded.block).toBe(53708500)
    expect(funded.value).toBe(1000000000000000n)
  })

  it("TopHolder keeps the decimal-adjusted quantity as text; TokenHolder's raw quantity is a bigint", () => {
    const top = roundTrip(S.TopHolder, {
      TokenHolderAddress: address(10),
      TokenHolderQuantity: "2696124.3026660371030000",
      TokenHolderAddressType: "C"
    })
    expect(top.TokenHolderQuantity).toBe("2696124.3026660371030000")
    const holder = roundTrip(S.TokenHolder, { TokenHolderAddress: address(11), TokenHolderQuantity: "2" })
    expect(holder.TokenHolderQuantity).toBe(2n)
  })

  it("TokenInfo with the current fields (tokenPriceUSD, image)", () => {
    const info = roundTrip(S.TokenInfo, {
      contractAddress: "0x0e3a2a1f2146d86a604adc220b4967a898d7fe07",
      tokenName: "Gods Unchained Cards",
      symbol: "CARD",
      divisor: "0",
      tokenType: "ERC721",
      totalSupply: "6972003",
      blueCheckmark: "true",
      description: "",
      website: "",
      email: "",
      blog: "",
      reddit: "",
      slack: "",
      facebook: "",
      twitter: "",
      bitcointalk: "",
      github: "",
      telegram: "",
      wechat: "",
      linkedin: "",
      discord: "",
      whitepaper: "",
      tokenPriceUSD: "0.000000000000000000",
      image: ""
    })
    expect(info.totalSupply).toBe(6972003n)
  })

  it("DailyTxCount accepts the JSON number", () => {
    const day = roundTrip(S.DailyTxCount, { UTCDate: "2019-02-01", unixTimeStamp: "1548979200", transactionCount: 498856 })
    expect(day).toStrictEqual({ UTCDate: "2019-02-01", unixTimeStamp: 1548979200, transactionCount: 498856 })
  })
})

describe("records reject what they cannot represent", () => {
  const log = {
    address: address(1),
    topics: [hash(2)],
    data: "0x",
    blockNumber: "0xc48174",
    timeStamp: "0x60f9ce56",
    gasPrice: "0x2e90edd000",
    gasUsed: "0x247205",
    logIndex: "0x",
    transactionHash: hash(3),
    transactionIndex: "0x1"
  }
  const decode = Schema.decodeUnknownEither(S.Log)
  it("a well-formed V1 log decodes", () => {
    expect(decode(log)._tag).toBe("Right")
  })
  it("a decimal number in a hex field, a short topic or a missing field fail", () => {
    expect(decode({ ...log, blockNumber: "12878196" })._tag).toBe("Left")
    expect(decode({ ...log, topics: ["0x01"] })._tag).toBe("Left")
    const { transactionHash: _, ...withoutHash } = log
    expect(decode(withoutHash)._tag).toBe("Left")
  })
  it("undeclared fields are reported when asked for", () => {
    expect(Schema.decodeUnknownEither(S.Log, { onExcessProperty: "error" })({ ...log, removed: false })._tag).toBe("Left")
  })
})

describe("field order follows the current docs", () => {
  const order = (s: { readonly fields: object }) => Object.keys(s.fields)
  it("account lists", () => {
    expect(order(S.NormalTransaction)).toStrictEqual([
      "blockNumber", "blockHash", "timeStamp", "hash", "nonce", "transactionIndex", "from", "to", "value", "gas",
      "gasPrice", "input", "methodId", "functionName", "contractAddress", "cumulativeGasUsed", "txreceipt_status",
      "gasUsed", "confirmations", "isError"
    ])
    expect(order(S.InternalTransaction)).toStrictEqual([
      "blockNumber", "transactionIndex", "timeStamp", "hash", "from", "to", "value", "contractAddress", "input",
      "type", "gas", "gasUsed", "traceId", "isError", "errCode"
    ])
    expect(order(S.Erc20Transfer)).toStrictEqual([
      "blockNumber", "timeStamp", "hash", "nonce", "blockHash", "from", "contractAddress", "to", "value",
      "tokenName", "tokenSymbol", "tokenDecimal", "transactionIndex", "gas", "gasPrice", "gasUsed",
      "cumulativeGasUsed", "input", "methodId", "functionName", "confirmations"
    ])
    expect(order(S.Erc721Transfer)).toStrictEqual([
      "blockNumber", "timeStamp", "hash", "nonce", "blockHash", "from", "contractAddress", "to", "tokenID",
      "tokenName", "tokenSymbol", "tokenDecimal", "transactionIndex", "gas", "gasPrice", "gasUsed",
      "cumulativeGasUsed", "input", "methodId", "functionName", "confirmations"
    ])
    expect(order(S.Erc1155Transfer)).toStrictEqual([
      "blockNumber", "timeStamp", "hash", "nonce", "blockHash", "transactionIndex", "gas", "gasPrice", "gasUsed",
      "cumulativeGasUsed", "input", "methodId", "functionName", "contractAddress", "from", "to", "tokenID",
      "tokenValue", "tokenName", "tokenSymbol", "confirmations"
    ])
  })
  it("logs, contract source, token info", () => {
    expect(order(S.Log)).toStrictEqual([
      "address", "topics", "data", "blockNumber", "blockHash", "timeStamp", "gasPrice", "gasUsed", "logIndex",
      "transactionHash", "transactionIndex"
    ])
    expect(order(S.ContractSource)).toStrictEqual([
      "SourceCode", "ABI", "ContractName", "CompilerVersion", "CompilerType", "OptimizationUsed", "Runs",
      "ConstructorArguments", "EVMVersion", "Library", "ContractFileName", "LicenseType", "Proxy", "Implementation",
      "SwarmSource", "SimilarMatch"
    ])
    expect(order(S.TokenInfo)).toStrictEqual([
      "contractAddress", "tokenName", "symbol", "divisor", "tokenType", "totalSupply", "blueCheckmark",
      "description", "website", "email", "blog", "reddit", "slack", "facebook", "twitter", "bitcointalk", "github",
      "telegram", "wechat", "linkedin", "discord", "whitepaper", "tokenPriceUSD", "image"
    ])
  })
})

/** Drops keys whose value is `undefined` (a JSON answer never has them; the fast path leaves them to the schema). */
const withoutUndefined = <A extends object>(record: A): A =>
  Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as A

describe("decodeRecords / encodeRecords", () => {
  const checkAgainstSchema = <Fields extends Schema.Struct.Fields>(name: string, row: Schema.Struct<Fields>) =>
    it(`${name}: the fast path agrees with the schema on generated records`, () => {
      const schema = Schema.Array(row) as unknown as Schema.Schema<ReadonlyArray<Schema.Struct<Fields>["Type"]>, ReadonlyArray<unknown>>
      const fast = S.recordsFastPath(row)
      const isRecord = Schema.is(Schema.typeSchema(row))
      fc.assert(
        fc.property(fc.array(Arbitrary.make(row).map(withoutUndefined), { maxLength: 3 }), (records) => {
          expect(records.every((r) => isRecord(r))).toBe(true)
          const wire = Schema.encodeSync(schema)(records)
          const decoded = fast.decode(wire)
          expect(decoded).toStrictEqual(records)
          expect(fast.encode(records)).toStrictEqual(wire)
        }),
        { numRuns: 20 }
      )
    })
  checkAgainstSchema("NormalTransaction", S.NormalTransaction)
  checkAgainstSchema("InternalTransaction", S.InternalTransaction)
  checkAgainstSchema("Erc20Transfer", S.Erc20Transfer)
  checkAgainstSchema("Erc1155Transfer", S.Erc1155Transfer)
  checkAgainstSchema("Log", S.Log)
  checkAgainstSchema("ContractSource", S.ContractSource)
  checkAgainstSchema("DailyTxCount", S.DailyTxCount)
  checkAgainstSchema("AddressTag", S.AddressTag)

  it.effect("invalid records fail with the schema's own ParseError", () =>
    Effect.gen(function*() {
      const bad = [{ blockNumber: "0x10", timeStamp: "1", hash: "x" }]
      const fast = yield* Effect.either(S.decodeRecords(S.Erc20Transfer)(bad))
      const slow = Either.mapLeft(Schema.decodeUnknownEither(Schema.Array(S.Erc20Transfer))(bad), (e) => e.message)
      expect(Either.isLeft(fast)).toBe(true)
      expect(Either.mapLeft(fast, (e) => e.message)).toStrictEqual(slow)
      expect(S.recordsFastPath(S.Erc20Transfer).decode(bad)).toBeUndefined()
      expect(S.recordsFastPath(S.Erc20Transfer).decode({ not: "an array" })).toBeUndefined()
    }))

  it.effect("structs with fields it does not know are left to the schema", () =>
    Effect.gen(function*() {
      const WithDefault = Schema.Struct({ n: S.DecimalInt, m: Schema.optionalWith(S.DecimalInt, { default: () => 7 }) })
      expect(S.recordsFastPath(WithDefault).decode([{ n: "1" }])).toBeUndefined()
      expect(yield* S.decodeRecords(WithDefault)([{ n: "1" }])).toStrictEqual([{ n: 1, m: 7 }])
      const WithNumber = Schema.Struct({ n: S.DecimalInt, x: Schema.NumberFromString })
      expect(S.recordsFastPath(WithNumber).decode([{ n: "1", x: "2.5" }])).toStrictEqual([{ n: 1, x: 2.5 }])
    }))

  it.effect("values of the wrong type are refused when encoding", () =>
    Effect.gen(function*() {
      const row = { TokenHolderAddress: address(1), TokenHolderQuantity: 5 } as unknown as S.TokenHolder
      expect(S.recordsFastPath(S.TokenHolder).encode([row])).toBeUndefined()
      const result = yield* Effect.either(S.encodeRecords(S.TokenHolder)([row]))
      expect(Either.isLeft(result)).toBe(true)
      const ok = yield* S.encodeRecords(S.TokenHolder)([{ TokenHolderAddress: address(1), TokenHolderQuantity: 5n }])
      expect(ok).toStrictEqual([{ TokenHolderAddress: address(1), TokenHolderQuantity: "5" }])
    }))
})

describe("LogFileRow", () => {
  it("writes a decoded log with decimal numbers and reads it back to the same value", () => {
    const wire = {
      address: "0x33990122638b9132ca29c723bdf037f1a891a70c",
      topics: ["0xf63780e752c6a54a94fc52715dbc5518a3b4c3c2833d301a204226548a2a8545"],
      data: "0x",
      blockNumber: "0xc48174",
      timeStamp: "0x60f9ce56",
      gasPrice: "0x2e90edd000",
      gasUsed: "0x247205",
      logIndex: "0x",
      transactionHash: "0x0b03498648ae2da924f961dda00dc6bb0a8df15519262b7e012b7d67f4bb7e83",
      transactionIndex: "0x1"
    }
    const log = Schema.decodeUnknownSync(S.Log)(wire)
    const file = Schema.encodeSync(S.LogFileRow)(log)
    expect(file).toEqual({
      ...wire,
      blockNumber: "12878196",
      timeStamp: "1626984022",
      gasPrice: "200000000000",
      gasUsed: "2388485",
      logIndex: "0",
      transactionIndex: "1"
    })
    expect(Schema.decodeUnknownSync(S.LogFileRow)(file)).toEqual(log)
  })
})

describe("transcodeRecords (the export path)", () => {
  /** What the schemas give: decode with `wire`, encode with `file`. */
  const viaSchemas = <W extends Schema.Struct.Fields, F extends Schema.Struct.Fields>(
    wire: Schema.Struct<W>,
    file: Schema.Struct<F>,
    input: ReadonlyArray<unknown>
  ) => Schema.encodeSync(Schema.Array(file) as unknown as Schema.Schema<unknown, unknown>)(
    Schema.decodeUnknownSync(Schema.Array(wire) as unknown as Schema.Schema<unknown, unknown>)(input)
  )

  /** The declared fields of each record, as a file reads them (keys beyond them stay in place). */
  const declaredOnly = (fields: ReadonlyArray<string>, records: ReadonlyArray<unknown>) =>
    records.map((r) =>
      Object.fromEntries(fields.filter((k) => (r as Record<string, unknown>)[k] !== undefined).map((k) => [k, (r as Record<string, unknown>)[k]]))
    )

  const agrees = <W extends Schema.Struct.Fields, F extends Schema.Struct.Fields>(name: string, wire: Schema.Struct<W>, file: Schema.Struct<F>) =>
    it(`${name}: gives what decoding and encoding give, on generated records`, () => {
      const transcode = S.transcodeRecords(wire, file)
      expect(transcode).toBeDefined()
      const encodeWire = Schema.encodeSync(Schema.Array(wire) as unknown as Schema.Schema<unknown, ReadonlyArray<unknown>>)
      fc.assert(
        fc.property(fc.array(Arbitrary.make(wire).map(withoutUndefined), { maxLength: 3 }), (records) => {
          const input = encodeWire(records)
          const expected = viaSchemas(wire, file, input)
          const out = transcode?.(structuredClone(input))
          expect(out).toBeDefined()
          expect(declaredOnly(Object.keys(file.fields), out ?? [])).toStrictEqual(expected)
        }),
        { numRuns: 30 }
      )
    })
  agrees("Log → LogFileRow (hex to decimal)", S.Log, S.LogFileRow)
  agrees("NormalTransaction", S.NormalTransaction, S.NormalTransaction)
  agrees("InternalTransaction", S.InternalTransaction, S.InternalTransaction)
  agrees("Erc20Transfer", S.Erc20Transfer, S.Erc20Transfer)
  agrees("Erc721Transfer", S.Erc721Transfer, S.Erc721Transfer)
  agrees("Erc1155Transfer", S.Erc1155Transfer, S.Erc1155Transfer)

  const log = (i: number): Record<string, unknown> => ({
    address: address(i),
    topics: [`0x${"ab".repeat(32)}`],
    data: "0x",
    blockNumber: "0x1a",
    timeStamp: "0x5f5e100",
    gasPrice: "0x",
    gasUsed: "0x5208",
    logIndex: "0x",
    transactionHash: `0x${"cd".repeat(32)}`,
    transactionIndex: "0x1",
    extra: "kept"
  })

  it("rewrites the differing fields in place and keeps undeclared keys", () => {
    const input = [log(1)]
    const out = S.transcodeRecords(S.Log, S.LogFileRow)?.(input)
    expect(out).toBe(input)
    expect(out?.[0]).toMatchObject({ blockNumber: "26", timeStamp: "100000000", gasPrice: "0", gasUsed: "21000", logIndex: "0", transactionIndex: "1", extra: "kept" })
  })

  it("writes hex amounts of any length in exact decimal (through a number up to 13 digits, a bigint past)", () => {
    for (const digits of [1, 12, 13, 14, 15, 64]) {
      const gasPrice = "0x" + "f".repeat(digits)
      const out = S.transcodeRecords(S.Log, S.LogFileRow)?.([{ ...log(1), gasPrice, blockNumber: "0x1fffffffffffff" }])
      expect(out?.[0]?.gasPrice).toBe(BigInt(gasPrice).toString())
      expect(out?.[0]?.blockNumber).toBe(String(Number.MAX_SAFE_INTEGER))
    }
    // a block number past 2^53 cannot be a number: the transcoder leaves it to the schemas, which refuse it
    expect(S.transcodeRecords(S.Log, S.LogFileRow)?.([{ ...log(1), blockNumber: "0x20000000000000" }])).toBeUndefined()
  })

  it("gives up on any invalid value, leaving the whole answer as it came (the schemas then report it)", () => {
    for (const [key, bad] of [["transactionHash", "0x12"], ["topics", ["0xzz"]], ["blockNumber", "0x01"], ["gasPrice", 7], ["data", "0xgg"]] as const) {
      const input = [log(1), { ...log(2), [key]: bad }]
      const before = structuredClone(input)
      expect(S.transcodeRecords(S.Log, S.LogFileRow)?.(input)).toBeUndefined()
      expect(input).toStrictEqual(before)
      expect(() => viaSchemas(S.Log, S.LogFileRow, input)).toThrow()
    }
    expect(S.transcodeRecords(S.Log, S.LogFileRow)?.([{ ...log(1), transactionHash: undefined }])).toBeUndefined()
    expect(S.transcodeRecords(S.Log, S.LogFileRow)?.({ not: "a list" })).toBeUndefined()
    expect(S.transcodeRecords(S.Log, S.LogFileRow)?.([null])).toBeUndefined()
  })

  it("an optional field the wire may leave out is left out of the file record too", () => {
    const { blockHash: _, ...noHash } = { ...log(1), blockHash: `0x${"ef".repeat(32)}` }
    const out = S.transcodeRecords(S.Log, S.LogFileRow)?.([noHash])
    expect(out?.[0]).not.toHaveProperty("blockHash")
  })

  it("is not offered when the file needs a field the wire lacks, or a kind it does not know", () => {
    expect(S.transcodeRecords(S.Log, Schema.Struct({ missing: S.DecimalInt }))).toBeUndefined()
    const WithDefault = Schema.Struct({ n: S.DecimalInt, m: Schema.optionalWith(S.DecimalInt, { default: () => 7 }) })
    expect(S.transcodeRecords(WithDefault, WithDefault)).toBeUndefined()
  })
})

describe("fieldTests (the export path's checks of addresses and hashes)", () => {
  const patterns = {
    address: /^(?:0x[0-9a-fA-F]{40}|GENESIS)$/,
    hash: /^(?:0x[0-9a-fA-F]{64}|GENESIS_[0-9a-fA-F]{40})$/,
    hexData: /^0x[0-9a-fA-F]*$/,
    hash32: /^0x[0-9a-fA-F]{64}$/
  } as const
  const hexChars = fc.constantFrom(..."0123456789abcdefABCDEFgxX G_ENSI\u00e9\u0660".split(""))
  const candidates = fc.oneof(
    fc.string(),
    fc.tuple(fc.constantFrom("0x", "0X", "GENESIS_", "GENESIS", ""), fc.array(hexChars, { maxLength: 70 })).map(([p, cs]) => p + cs.join("")),
    fc.tuple(fc.constantFrom(40, 64), fc.nat(63)).map(([n, i]) => {
      const digits = "a".repeat(n).split("")
      digits[i % n] = "g"
      return "0x" + digits.join("")
    })
  )
  for (const [name, regex] of Object.entries(patterns)) {
    it(`${name} agrees with the schema's regular expression`, () => {
      const test = S.fieldTests[name as keyof typeof patterns]
      fc.assert(fc.property(candidates, (s) => test(s) === regex.test(s)), { numRuns: 3000 })
      for (const s of ["0x" + "a".repeat(40), "0x" + "F".repeat(64), "GENESIS", "GENESIS_" + "0".repeat(40), "0x", "0x" + "a".repeat(63)]) {
        expect(test(s)).toBe(regex.test(s))
      }
    })
  }
})
