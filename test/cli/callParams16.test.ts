/**
 * `explorer-etl call` names the operations added for issue 16 with the API's parameter names:
 * balancemulti's comma-separated `address`, gasestimate's `gasprice`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { toMethodParams } from "../../src/cli/CallCommand.js"
import * as Params from "../../src/internal/params.js"

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
})
