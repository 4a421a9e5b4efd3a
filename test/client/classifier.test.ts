import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import * as Errors from "../../src/ExplorerError.js"
import * as Classify from "../../src/internal/classify.js"
import * as T from "../../src/simulator/texts.js"

const ctx: Classify.CallContext = { chainId: 1, module: "account", action: "txlist" }

interface Case {
  readonly text: string
  readonly tag: Errors.ExplorerError["_tag"]
  readonly transient: boolean
  readonly check?: (e: Errors.ExplorerError) => void
}

const scope = (s: "second" | "day" | "unknown", perSecond?: number) => (e: Errors.ExplorerError) => {
  expect(e._tag).toBe("RateLimitError")
  if (e._tag === "RateLimitError") {
    expect(e.scope).toBe(s)
    expect(e.perSecond).toBe(perSecond)
  }
}
const parameter = (name: string | undefined) => (e: Errors.ExplorerError) => {
  expect(e._tag === "InvalidInputError" ? e.parameter : "not an input error").toBe(name)
}
const window = (n: number) => (e: Errors.ExplorerError) => {
  expect(e._tag === "ResultWindowError" ? e.window : "not a window error").toBe(n)
}

/** Every text of facts §1.2, and the texts of the recorded answers (which carry suffixes). */
const cases: ReadonlyArray<Case> = [
  { text: T.MISSING_OR_INVALID_API_KEY, tag: "InvalidApiKeyError", transient: false },
  { text: T.INVALID_API_KEY, tag: "InvalidApiKeyError", transient: false },
  { text: T.INVALID_API_KEY_ERR2, tag: "InvalidApiKeyError", transient: false },
  { text: T.TOO_MANY_INVALID_KEY_ATTEMPTS, tag: "InvalidApiKeyError", transient: false },
  { text: T.MAX_RATE_LIMIT_REACHED_WITH_HINT, tag: "RateLimitError", transient: true, check: scope("second") },
  { text: T.MAX_RATE_LIMIT_REACHED, tag: "RateLimitError", transient: true, check: scope("second") },
  { text: T.maxCallsPerSec(5), tag: "RateLimitError", transient: true, check: scope("second", 5) },
  { text: T.maxCallsPerSec(3), tag: "RateLimitError", transient: true, check: scope("second", 3) },
  { text: T.maxCallsPerSec(2), tag: "RateLimitError", transient: true, check: scope("second", 2) },
  { text: T.MAX_CALLS_PER_SEC_V1, tag: "RateLimitError", transient: true, check: scope("second", 2) },
  { text: T.MAXIMUM_RATE_LIMIT_REACHED, tag: "RateLimitError", transient: true, check: scope("second") },
  { text: T.MAX_DAILY_RATE_LIMIT_REACHED, tag: "RateLimitError", transient: false, check: scope("day") },
  { text: T.UNSUPPORTED_CHAIN, tag: "UnsupportedChainError", transient: false },
  { text: T.unsupportedChainVariant(56), tag: "UnsupportedChainError", transient: false },
  { text: T.CHAIN_NOT_SUPPORTED_FOR_ENDPOINT, tag: "UnsupportedChainError", transient: false },
  { text: T.FREE_NOT_SUPPORTED_FOR_CHAIN, tag: "ChainNotOnPlanError", transient: false },
  {
    // account.txlist.rotki.4.json / proxy.eth_call.rotki.3.json
    text:
      "Free API access is not supported for this chain. Please upgrade your api plan for full chain coverage. https://etherscan.io/apis",
    tag: "ChainNotOnPlanError",
    transient: false
  },
  { text: T.FREE_TEMPORARILY_UNAVAILABLE, tag: "RateLimitError", transient: true, check: scope("unknown") },
  {
    // proxy.eth_getBlockByNumber.rotki.2.json
    text:
      "Free API access is temporarily unavailable due to unusually high network activity. To maintain uninterrupted service, we recommend upgrading to a paid plan: https://etherscan.io/apis",
    tag: "RateLimitError",
    transient: true,
    check: scope("unknown")
  },
  { text: T.API_PRO_ENDPOINT, tag: "PlanTierError", transient: false },
  { text: T.DEPRECATED_V1, tag: "NotOkError", transient: false },
  { text: T.INVALID_ACTION, tag: "InvalidInputError", transient: false, check: parameter("action") },
  { text: T.INVALID_MODULE, tag: "InvalidInputError", transient: false, check: parameter("module") },
  { text: T.INVALID_PARAMETER, tag: "InvalidInputError", transient: false, check: parameter(undefined) },
  { text: T.INVALID_ADDRESS, tag: "InvalidInputError", transient: false, check: parameter("address") },
  { text: T.INVALID_CONTRACT_ADDRESS, tag: "InvalidInputError", transient: false, check: parameter("contractaddress") },
  { text: T.SOURCE_NOT_VERIFIED, tag: "NotOkError", transient: false, check: (e) => expect(Errors.isNotVerified(e)).toBe(true) },
  { text: T.BLOCK_ALREADY_PASSED, tag: "InvalidInputError", transient: false, check: parameter("blockno") },
  { text: T.UNKNOWN_UID, tag: "InvalidInputError", transient: false, check: parameter("guid") },
  { text: T.NO_CLOSEST_BLOCK, tag: "NotOkError", transient: false },
  { text: T.resultWindowTooLarge(10_000), tag: "ResultWindowError", transient: false, check: window(10_000) },
  { text: T.resultWindowTooLarge(1_000), tag: "ResultWindowError", transient: false, check: window(1_000) },
  { text: T.QUERY_TIMEOUT, tag: "QueryTimeoutError", transient: true },
  { text: T.SERVER_TOO_BUSY, tag: "NotOkError", transient: true },
  {
    text: "The proxy contract at 0x1234567890123456789012345678901234567890 does not seem to be verified. Please verify it first.",
    tag: "NotOkError",
    transient: false
  },
  { text: "Something the library has never seen", tag: "NotOkError", transient: false }
]

describe("classifyText", () => {
  for (const c of cases) {
    it(`${c.text} → ${c.tag}`, () => {
      const error = Classify.classifyText(ctx, c.text)
      expect(error._tag).toBe(c.tag)
      // every error keeps the call and the server's own words
      expect(error.chainId).toBe(1)
      expect(error.module).toBe("account")
      expect(error.action).toBe("txlist")
      expect(error.detail).toBe(c.text)
      expect(error.message).toContain(c.text)
      expect(Errors.isTransient(error)).toBe(c.transient)
      c.check?.(error)
    })
  }

  it("keeps the envelope's message on a generic NotOkError", () => {
    const error = Classify.classifyText(ctx, "odd", "NOTOK-ish")
    expect(error._tag === "NotOkError" && error.serverMessage).toBe("NOTOK-ish")
  })

  it("scrubs what the caller asks (e.g. an echoed key)", () => {
    const error = Classify.classifyText(ctx, "Invalid API Key ABCDEF123", "NOTOK", {
      scrub: (s) => s.replaceAll("ABCDEF123", "<redacted>")
    })
    expect(error._tag).toBe("InvalidApiKeyError")
    expect(error.detail).toBe("Invalid API Key <redacted>")
  })
})

const body = (b: unknown) => Classify.classifyBody(ctx, b)

describe("classifyBody", () => {
  it("status 1 → the result, whatever the message (OK, Ok, legacy OK-Missing…)", () => {
    expect(body({ status: "1", message: "OK", result: "42" })).toEqual(Either.right({ _tag: "Result", result: "42" }))
    expect(body({ status: "1", message: "Ok", result: [] })).toEqual(Either.right({ _tag: "Result", result: [] }))
    expect(body({ status: "1", message: "OK-Missing/Invalid API Key, rate limit of 1/5sec applied", result: "1" })).toEqual(
      Either.right({ _tag: "Result", result: "1" })
    )
  })

  it("the empty answers of the recorded responses are empty successes", () => {
    // account.txlist.rotki.5.json, logs.getLogs.dreamx.4.json, contract.getcontractcreation.rotki.2.json
    for (const b of [
      { status: "0", message: "No transactions found", result: [] },
      { status: "0", message: "No records found", result: [] },
      { status: "0", message: "No data found", result: null }
    ]) {
      expect(body(b)).toEqual(Either.right({ _tag: "Empty", serverMessage: b.message }))
    }
  })

  it("checkverifystatus: a verification's status-0 texts are its result; the same texts elsewhere stay errors", () => {
    const verify: Classify.CallContext = { chainId: 1, module: "contract", action: "checkverifystatus" }
    for (const text of [T.VERIFY_PENDING, T.VERIFY_FAILED, "Fail - Unable to verify", T.ALREADY_VERIFIED, "Contract source code already verified"]) {
      expect(Classify.classifyBody(verify, { status: "0", message: "NOTOK", result: text })).toEqual(Either.right({ _tag: "Result", result: text }))
      const elsewhere = body({ status: "0", message: "NOTOK", result: text })
      expect(Either.isLeft(elsewhere) && elsewhere.left._tag, text).toBe("NotOkError")
    }
    // the gateway's refusals keep their errors on checkverifystatus too
    const limited = Classify.classifyBody(verify, { status: "0", message: "NOTOK", result: T.maxCallsPerSec(3) })
    expect(Either.isLeft(limited) && limited.left._tag).toBe("RateLimitError")
    const unknown = Classify.classifyBody(verify, { status: "0", message: "NOTOK", result: T.UNKNOWN_UID })
    expect(Either.isLeft(unknown) && unknown.left._tag).toBe("InvalidInputError")
  })

  it("an empty-list message with a text result is classified by the text", () => {
    const r = body({ status: "0", message: "No transactions found", result: T.QUERY_TIMEOUT })
    expect(Either.isLeft(r) && r.left._tag).toBe("QueryTimeoutError")
  })

  it("a NOTOK envelope reads its result text", () => {
    // contract.getsourcecode.sourcify.8.json / .9.json, contract.getabi.rotki.2.json, unknown.unknown.foundry.1.json
    const tags = [
      [{ status: "0", message: "NOTOK", result: "Invalid API Key" }, "InvalidApiKeyError"],
      [{ status: "0", message: "NOTOK", result: T.MAX_RATE_LIMIT_REACHED_WITH_HINT }, "RateLimitError"],
      [{ status: "0", message: "NOTOK", result: "Contract source code not verified" }, "NotOkError"],
      [{ status: "0", message: "NOTOK", result: "Missing/Invalid API Key" }, "InvalidApiKeyError"]
    ] as const
    for (const [b, tag] of tags) {
      const r = body(b)
      expect(Either.isLeft(r) && r.left._tag).toBe(tag)
    }
  })

  it("a status-0 answer with a non-text result falls back to its message", () => {
    const r = body({ status: "0", message: T.MAX_RATE_LIMIT_REACHED, result: null })
    expect(Either.isLeft(r) && r.left._tag).toBe("RateLimitError")
  })

  it("JSON-RPC: result → success, error → JsonRpcError with the node's code, message and revert data", () => {
    expect(body({ jsonrpc: "2.0", id: 73, result: "0x1d9d2db2" })).toEqual(Either.right({ _tag: "Result", result: "0x1d9d2db2" }))
    // proxy.eth_call.rotki.2.json
    const r = body({ jsonrpc: "2.0", id: 1, error: { code: 3, message: "execution reverted", data: "0x77" } })
    expect(Either.isLeft(r) && r.left).toMatchObject({ _tag: "JsonRpcError", code: 3, detail: "execution reverted", data: "0x77" })
    expect(Either.isLeft(r) && Errors.isTransient(r.left)).toBe(false)
    expect(Either.isLeft(r) && Errors.isRevert(r.left)).toBe(true)
    const plain = body({ jsonrpc: "2.0", id: 1, error: { code: -32000, message: "rlp: value size exceeds available input length" } })
    expect(Either.isLeft(plain) && plain.left).toMatchObject({ _tag: "JsonRpcError", code: -32000 })
    expect(Either.isLeft(plain) && "data" in plain.left).toBe(false)
    expect(Either.isLeft(plain) && plain.left.message).toBe(
      "account/txlist on chain 1: JSON-RPC error -32000: rlp: value size exceeds available input length"
    )
    // a code that is not a number stays a NotOkError with the node's words
    const odd = body({ jsonrpc: "2.0", id: 1, error: { code: "x", message: "odd" } })
    expect(Either.isLeft(odd) && odd.left._tag).toBe("NotOkError")
  })

  it("a NOTOK envelope on a proxy call (has status, no jsonrpc) is an error", () => {
    // proxy.eth_call.rotki.3.json on chain 10 with a free key
    const proxyCtx = { chainId: 10, module: "proxy", action: "eth_gasPrice" }
    const r = Classify.classifyBody(proxyCtx, {
      status: "0",
      message: "NOTOK",
      result:
        "Free API access is not supported for this chain. Please upgrade your api plan for full chain coverage. https://etherscan.io/apis"
    })
    expect(Either.isLeft(r) && r.left._tag).toBe("ChainNotOnPlanError")
  })

  it("unexpected shapes are non-transient DecodeErrors", () => {
    for (const b of [[1, 2], "text", 42, null, { foo: 1 }, { status: "2", result: 1 }, { status: "1" }, { jsonrpc: "2.0" }]) {
      const r = body(b)
      expect(Either.isLeft(r) && r.left._tag).toBe("DecodeError")
      expect(Either.isLeft(r) && r.left._tag === "DecodeError" && r.left.transient).toBe(false)
    }
  })
})

const response = (status: number, text: string, contentType?: string) =>
  Classify.classifyResponse(ctx, { status, body: text, contentType })

describe("classifyResponse", () => {
  it("HTML with HTTP 200 (a Cloudflare page) → transient DecodeError naming the page", () => {
    const r = response(200, "<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>…</body></html>", "text/html")
    expect(Either.isLeft(r) && r.left._tag).toBe("DecodeError")
    expect(Either.isLeft(r) && r.left._tag === "DecodeError" && r.left.transient).toBe(true)
    expect(Either.isLeft(r) && r.left.detail).toContain("Just a moment")
  })

  it("truncated JSON, plain text and empty bodies → transient DecodeError", () => {
    for (const text of ["{\"status\":\"1\",\"message\":\"OK\",\"result\":[{\"blockNumber\":\"1", "busy", "", "   "]) {
      const r = response(200, text)
      expect(Either.isLeft(r) && r.left._tag === "DecodeError" && r.left.transient).toBe(true)
    }
  })

  it("HTTP ≥ 400 → TransportError with the status; 408/429/5xx transient, other 4xx not", () => {
    for (const [status, transient] of [[429, true], [500, true], [502, true], [503, true], [504, true], [408, true], [400, false], [403, false], [404, false]] as const) {
      const r = response(status, "<html><title>Error</title></html>")
      expect(Either.isLeft(r) && r.left._tag).toBe("TransportError")
      if (Either.isLeft(r) && r.left._tag === "TransportError") {
        expect(r.left.status).toBe(status)
        expect(Errors.isTransient(r.left)).toBe(transient)
      }
    }
  })

  it("valid JSON goes through classifyBody", () => {
    expect(response(200, JSON.stringify({ status: "1", message: "OK", result: "1" }))).toEqual(
      Either.right({ _tag: "Result", result: "1" })
    )
  })
})

describe("isTransient", () => {
  it("never for key, plan, chain, input and window errors", () => {
    const base = { chainId: 1, module: "m", action: "a", detail: "d" }
    const never: ReadonlyArray<Errors.ExplorerError> = [
      new Errors.InvalidApiKeyError(base),
      new Errors.PlanTierError(base),
      new Errors.ChainNotOnPlanError(base),
      new Errors.UnsupportedChainError(base),
      new Errors.InvalidInputError(base),
      new Errors.ResultWindowError(base),
      new Errors.NotOkError({ ...base, serverMessage: "NOTOK" }),
      new Errors.DecodeError({ ...base, transient: false }),
      new Errors.RateLimitError({ ...base, scope: "day" })
    ]
    for (const e of never) expect(Errors.isTransient(e)).toBe(false)
    expect(Errors.isTransient(new Errors.TransportError(base))).toBe(true)
    expect(Errors.isTransient(new Errors.RateLimitError({ ...base, scope: "unknown" }))).toBe(true)
  })
})
