/**
 * The typed errors: the exact message of each (the CLI prints `error <Tag>: <message>`), the union
 * schema that encodes and decodes every one of them (manifests and logs), and the guard.
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import * as Errors from "../../src/ExplorerError.js"

const at = { chainId: 137, module: "account", action: "tokentx", detail: "the server's words" }

/** Every error with and without its optional fields, and the message it must show. */
const cases: ReadonlyArray<readonly [Errors.ExplorerError, string]> = [
  [new Errors.NotOkError({ ...at, serverMessage: "NOTOK" }), "account/tokentx on chain 137: the server's words"],
  [new Errors.PlanTierError(at), "account/tokentx on chain 137: the server's words"],
  [
    new Errors.PlanTierError({ ...at, plan: "free" }),
    "account/tokentx on chain 137: the server's words"
  ],
  [
    new Errors.PlanTierError({ ...at, requiredPlan: "standard" }),
    "account/tokentx on chain 137: the server's words (needs plan standard)"
  ],
  [
    new Errors.PlanTierError({ ...at, plan: "free", requiredPlan: "standard" }),
    "account/tokentx on chain 137: the server's words (needs plan standard, have free)"
  ],
  [new Errors.ChainNotOnPlanError({ ...at, plan: "free" }), "account/tokentx on chain 137: the server's words"],
  [new Errors.ChainNotOnPlanError(at), "account/tokentx on chain 137: the server's words"],
  [new Errors.UnsupportedChainError(at), "account/tokentx on chain 137: the server's words"],
  [
    new Errors.RateLimitError({ ...at, scope: "second", perSecond: 3 }),
    "account/tokentx on chain 137: rate limit (second): the server's words"
  ],
  [new Errors.RateLimitError({ ...at, scope: "day" }), "account/tokentx on chain 137: rate limit (day): the server's words"],
  [new Errors.InvalidApiKeyError(at), "account/tokentx on chain 137: the server's words"],
  [new Errors.ResultWindowError(at), "account/tokentx on chain 137: the server's words"],
  [
    new Errors.ResultWindowError({ ...at, window: 10_000, rowsDelivered: 0 }),
    "account/tokentx on chain 137: the server's words after 0 rows"
  ],
  [new Errors.QueryTimeoutError(at), "account/tokentx on chain 137: the server's words"],
  [new Errors.InvalidInputError(at), "account/tokentx on chain 137: the server's words"],
  [
    new Errors.InvalidInputError({ ...at, parameter: "address" }),
    "account/tokentx on chain 137: address: the server's words"
  ],
  [new Errors.InvalidInputError({ ...at, parameter: "" }), "account/tokentx on chain 137: the server's words"],
  [new Errors.DecodeError({ ...at, transient: true }), "account/tokentx on chain 137: the server's words"],
  [new Errors.TransportError(at), "account/tokentx on chain 137: the server's words"],
  [new Errors.TransportError({ ...at, status: 503 }), "account/tokentx on chain 137: HTTP 503: the server's words"],
  [
    new Errors.DenseBlockError({ ...at, blockNumber: 19_000_000, rowsSeen: 10_000 }),
    "account/tokentx on chain 137: block 19000000 holds more rows than the result window allows (10000 read): the server's words"
  ],
  [
    new Errors.JsonRpcError({ ...at, module: "proxy", action: "eth_call", detail: "execution reverted: nope", code: 3, data: "0x08c379a0" }),
    "proxy/eth_call on chain 137: JSON-RPC error 3: execution reverted: nope"
  ],
  [
    new Errors.JsonRpcError({ ...at, module: "proxy", action: "eth_sendRawTransaction", detail: "nonce too low", code: -32000 }),
    "proxy/eth_sendRawTransaction on chain 137: JSON-RPC error -32000: nonce too low"
  ]
]

/** Every tag of the union: each must appear among the cases above. */
const tags = [
  "NotOkError",
  "PlanTierError",
  "ChainNotOnPlanError",
  "UnsupportedChainError",
  "RateLimitError",
  "InvalidApiKeyError",
  "ResultWindowError",
  "QueryTimeoutError",
  "InvalidInputError",
  "DecodeError",
  "TransportError",
  "DenseBlockError",
  "JsonRpcError"
] as const

describe("ExplorerError", () => {
  it("every error shows its exact message, and is an Error named by its tag", () => {
    for (const [error, message] of cases) {
      expect(error.message).toBe(message)
      expect(error).toBeInstanceOf(Error)
      expect(error.name).toBe(error._tag)
    }
    expect(new Set(cases.map(([error]) => error._tag))).toEqual(new Set(tags))
  })

  it("the union schema holds every error a stream can fail with, DenseBlockError included", () => {
    const members = Errors.ExplorerError.members.map((member) => member.identifier)
    expect(new Set(members)).toEqual(new Set(tags))
    expect(members).toHaveLength(tags.length)
  })

  it("every error round-trips through the union schema: same tag, fields and message", () => {
    const encode = Schema.encodeSync(Errors.ExplorerError)
    const decode = Schema.decodeUnknownSync(Errors.ExplorerError)
    for (const [error, message] of cases) {
      const encoded = encode(error)
      // The encoded form is plain data (what a manifest or a JSON log holds): no class, no stack.
      const json = JSON.parse(JSON.stringify(encoded)) as unknown
      expect(json).toEqual({ ...error })
      expect(Object.getPrototypeOf(encoded)).toBe(Object.prototype)
      const decoded = decode(json)
      expect(decoded).toBeInstanceOf(error.constructor)
      expect(decoded._tag).toBe(error._tag)
      expect({ ...decoded }).toEqual({ ...error })
      expect(decoded.message).toBe(message)
    }
  })

  it("the union refuses a foreign tag or a missing field", () => {
    const decode = Schema.decodeUnknownEither(Errors.ExplorerError)
    expect(decode({ ...at, _tag: "SinkError" })._tag).toBe("Left")
    expect(decode({ ...at, _tag: "RateLimitError" })._tag).toBe("Left")
    expect(decode({ ...at, _tag: "RateLimitError", scope: "second" })._tag).toBe("Right")
  })

  it("isExplorerError accepts every error and nothing else", () => {
    for (const [error] of cases) expect(Errors.isExplorerError(error)).toBe(true)
    const { chainId, module, action, detail } = at
    const others: ReadonlyArray<unknown> = [
      new Error("plain"),
      Object.assign(new Error("tagged"), { _tag: "NotOkError" }),
      { _tag: "SinkError", reason: "Encode", path: "x", detail },
      { _tag: "NotOkError", chainId, module, action, detail, serverMessage: "NOTOK" },
      "NotOkError",
      undefined,
      null,
      42
    ]
    for (const other of others) expect(Errors.isExplorerError(other)).toBe(false)
  })

  it("StreamError stays the same union (an alias kept for existing code)", () => {
    const error: Errors.StreamError = new Errors.DenseBlockError({ ...at, blockNumber: 1, rowsSeen: 2 })
    const same: Errors.ExplorerError = error
    expect(Errors.isExplorerError(same)).toBe(true)
    expect(Errors.isTransient(same)).toBe(false)
  })
})
