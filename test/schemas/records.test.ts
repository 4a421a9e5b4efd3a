/**
 * Record schemas that no recorded answer covers (their shapes come from the docs examples), the field
 * order of every record, which the sinks use as their column order, and getLogs' file row.
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
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
