/**
 * `explorer-etl call` names the operations added for issue 16 with the API's parameter names:
 * balancemulti's comma-separated `address`, gasestimate's `gasprice`, getcontractcreation's
 * `contractaddresses`, chainsize's `clienttype`/`syncmode`, the proxy's `boolean` and hex parameters,
 * checkverifystatus's `guid`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { toMethodParams } from "../../src/cli/CallCommand.js"
import * as Params from "../../src/Params.js"

const A = "0x" + "a".repeat(40)
const B = "0x" + "b".repeat(40)

describe("call: issue 16 parameters", () => {
  it.effect("balancemulti address=a,b becomes a list, sent comma-separated", () =>
    Effect.gen(function*() {
      const params = yield* toMethodParams("balancemulti", 1, [["address", `${A}, ${B}`]])
      expect(params).toEqual({ chainId: 1, address: [A, B] })
      const checked = Params.check("balancemulti", params)
      expect(checked._tag).toBe("Right")
      expect(Params.toWire(params)).toEqual({ address: `${A},${B}` })
    }))

  it.effect("gasestimate gasprice=… is wei (a bigint) sent as gasprice", () =>
    Effect.gen(function*() {
      const params = yield* toMethodParams("gasestimate", 1, [["gasprice", "2000000000"]])
      expect(params).toEqual({ chainId: 1, gasPrice: 2_000_000_000n })
      expect(Params.check("gasestimate", params)._tag).toBe("Right")
      expect(Params.toWire(params)).toEqual({ gasprice: "2000000000" })
    }))

  it("refuses 21 addresses and a missing gas price before sending", () => {
    expect(Params.check("balancemulti", { address: Array.from({ length: 21 }, () => A) })._tag).toBe("Left")
    expect(Params.check("balancemulti", { address: [] })._tag).toBe("Left")
    expect(Params.check("gasestimate", {})._tag).toBe("Left")
    expect(Params.check("getblockcountdown", { blockNo: -1 })._tag).toBe("Left")
  })

  it.effect("getcontractcreation contractaddresses=a,b becomes a list; chainsize clienttype/syncmode; eth_getBlockByNumber boolean", () =>
    Effect.gen(function*() {
      const creation = yield* toMethodParams("getcontractcreation", 1, [["contractaddresses", `${A},${B}`]])
      expect(creation).toEqual({ chainId: 1, contractAddresses: [A, B] })
      expect(Params.check("getcontractcreation", creation)._tag).toBe("Right")
      expect(Params.toWire(creation)).toEqual({ contractaddresses: `${A},${B}` })
      const size = yield* toMethodParams("chainsize", 1, [["startdate", "2025-01-01"], ["enddate", "2025-01-02"], ["clienttype", "parity"], ["syncmode", "archive"]])
      expect(Params.check("chainsize", size)._tag).toBe("Right")
      expect(Params.toWire(size)).toEqual({ startdate: "2025-01-01", enddate: "2025-01-02", clienttype: "parity", syncmode: "archive" })
      const block = yield* toMethodParams("eth_getBlockByNumber", 1, [["tag", "0x10"], ["boolean", "true"]])
      expect(block).toEqual({ chainId: 1, tag: "0x10", boolean: true })
      expect(Params.toWire(block)).toEqual({ tag: "0x10", boolean: "true" })
      const estimate = yield* toMethodParams("eth_estimateGas", 1, [["to", A], ["value", "0xff22"], ["gasPrice", "0x51da038cc"]])
      expect(Params.check("eth_estimateGas", estimate)._tag).toBe("Right")
      expect(Params.toWire(estimate)).toEqual({ to: A, value: "0xff22", gasprice: "0x51da038cc" })
    }))

  it.effect("checkverifystatus guid=… is sent as guid; a blank or spaced GUID is refused", () =>
    Effect.gen(function*() {
      const guid = "ezq878u486pzijkvvmerl6a9mzwhv6sefgvqi5tkwceejc7tvsq"
      const params = yield* toMethodParams("checkverifystatus", 1, [["guid", guid]])
      expect(params).toEqual({ chainId: 1, guid })
      expect(Params.check("checkverifystatus", params)._tag).toBe("Right")
      expect(Params.toWire(params)).toEqual({ guid })
      for (const bad of ["", "  ", "a b", "g".repeat(101)]) expect(Params.check("checkverifystatus", { guid: bad })._tag).toBe("Left")
      expect(Params.check("checkverifystatus", {})._tag).toBe("Left")
    }))
})
