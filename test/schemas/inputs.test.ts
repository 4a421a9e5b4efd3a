/** The validators of what a caller passes (src/schemas/inputs.ts): stricter than the record fields. */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, FastCheck as fc } from "effect"
import * as S from "../../src/schemas/index.js"
import { fails, ok } from "./helpers.js"

describe("input validators (strict)", () => {
  const addr = "0xddbd2b932c763ba5b1b7ae3b362eac3e8d40121a"
  const checksummed = "0x0000db5C8B030AE20308AC975898E09741E70000"
  const hash = "0x40eb908387324f2b575b4879cd9d7188f69c8fc9d87c901b9e2daaea4b442170"
  it("Address accepts only 0x + 40 hex, either case", () => {
    expect(ok(S.Address, addr)).toBe(addr)
    expect(ok(S.Address, checksummed)).toBe(checksummed)
    for (const bad of ["GENESIS", "", addr.slice(0, 41), `${addr}00`, "0xZZbd2b932c763ba5b1b7ae3b362eac3e8d40121a", hash]) {
      expect(fails(S.Address, bad)).toBe(true)
    }
  })
  it("Hash32 / TxHash / Topic accept only 0x + 64 hex", () => {
    for (const schema of [S.Hash32, S.TxHash, S.Topic]) {
      expect(ok(schema, hash)).toBe(hash)
      for (const bad of [`GENESIS_${addr.slice(2)}`, addr, `${hash}0`, hash.slice(2)]) expect(fails(schema, bad)).toBe(true)
    }
  })
  it("IsoDate accepts real calendar dates only", () => {
    for (const good of ["2019-02-01", "2024-02-29", "2000-02-29", "2026-12-31"]) expect(ok(S.IsoDate, good)).toBe(good)
    for (const bad of ["2026-02-30", "2023-02-29", "1900-02-29", "2026-13-01", "2026-00-10", "2026-04-31", "2026-1-01", "20260101", "2026-01-01T00:00:00Z", ""]) {
      expect(fails(S.IsoDate, bad)).toBe(true)
    }
  })
  it("IsoDate's arbitrary gives valid dates", () => {
    fc.assert(fc.property(Arbitrary.make(S.IsoDate), (d) => S.isIsoDate(d)), { numRuns: 50 })
  })
  it("BlockNumberInput is a non-negative safe integer", () => {
    expect(ok(S.BlockNumberInput, 0)).toBe(0)
    expect(ok(S.BlockNumberInput, 23467053)).toBe(23467053)
    for (const bad of [-1, 1.5, 2 ** 53, Number.NaN, "1"]) expect(fails(S.BlockNumberInput, bad)).toBe(true)
  })
  it("Sort, Closest and TopicOperator are the documented literals", () => {
    expect(ok(S.Sort, "asc")).toBe("asc")
    expect(ok(S.Closest, "after")).toBe("after")
    expect(ok(S.TopicOperator, "or")).toBe("or")
    expect(fails(S.Sort, "ASC")).toBe(true)
    expect(fails(S.Closest, "nearest")).toBe(true)
    expect(fails(S.TopicOperator, "xor")).toBe(true)
  })
})
