/** The bodies every answer comes in (src/schemas/envelope.ts): the envelope and the JSON-RPC forms. */
import { describe, expect, it } from "@effect/vitest"
import * as S from "../../src/schemas/index.js"
import { encodes, fails, ok } from "./helpers.js"

describe("envelopes", () => {
  it("Envelope keeps any result untouched", () => {
    for (const body of [
      { status: "1", message: "OK", result: "172774397764084972158218" },
      { status: "0", message: "No transactions found", result: [] },
      { status: "0", message: "No data found", result: null },
      { status: "0", message: "NOTOK", result: "Invalid API Key" }
    ]) {
      expect(encodes(S.Envelope, ok(S.Envelope, body))).toStrictEqual(body)
    }
    expect(fails(S.Envelope, { status: 1, message: "OK", result: "1" })).toBe(true)
  })
  it("JsonRpcResponse tells a failure from a success, with null results allowed", () => {
    const failure = { jsonrpc: "2.0", id: 1, error: { code: 3, message: "execution reverted", data: "0x77209fe8" } }
    const missing = { jsonrpc: "2.0", id: 1, result: null }
    const decodedFailure = ok(S.JsonRpcResponse, failure)
    expect("error" in decodedFailure && decodedFailure.error.code).toBe(3)
    expect(encodes(S.JsonRpcResponse, decodedFailure)).toStrictEqual(failure)
    expect(encodes(S.JsonRpcResponse, ok(S.JsonRpcResponse, missing))).toStrictEqual(missing)
    expect(fails(S.JsonRpcFailure, missing)).toBe(true)
    expect(fails(S.JsonRpcError, { code: "3", message: "x" })).toBe(true)
  })
  it("JsonRpcResult decodes the result with the given schema", () => {
    const body = { jsonrpc: "2.0", id: 73, result: "0x1d9d2db2" }
    expect(ok(S.GasPriceResponse, body).result).toBe(496840114n)
    expect(encodes(S.GasPriceResponse, ok(S.GasPriceResponse, body))).toStrictEqual(body)
  })
})
