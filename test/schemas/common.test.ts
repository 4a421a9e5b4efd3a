/** The field codecs of src/schemas/common.ts: exact round trips, canonical text only, no rounding. */
import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc, Schema } from "effect"
import * as S from "../../src/schemas/index.js"
import { decode, encodeFails, encodes, fails, ok } from "./helpers.js"

describe("DecimalInt", () => {
  it("decodes canonical decimals to numbers and back", () => {
    expect(ok(S.DecimalInt, "0")).toBe(0)
    expect(ok(S.DecimalInt, "23467053")).toBe(23467053)
    expect(ok(S.DecimalInt, "9007199254740991")).toBe(Number.MAX_SAFE_INTEGER)
    expect(encodes(S.DecimalInt, 1759129619)).toBe("1759129619")
  })
  it("rejects unsafe integers instead of rounding", () => {
    expect(fails(S.DecimalInt, "9007199254740992")).toBe(true)
    expect(fails(S.DecimalInt, "99999999999999999999")).toBe(true)
    expect(encodeFails(S.DecimalInt, 2 ** 53)).toBe(true)
    expect(encodeFails(S.DecimalInt, 1.5)).toBe(true)
    expect(encodeFails(S.DecimalInt, -1)).toBe(true)
  })
  it("rejects what could not be written back unchanged, and non-decimals", () => {
    for (const bad of ["", "007", "-1", "1.0", "1e3", " 1", "0x10", "abc"]) expect(fails(S.DecimalInt, bad)).toBe(true)
    expect(fails(S.DecimalInt, 12)).toBe(true)
  })
  it("round-trips every safe non-negative integer", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (n) => {
      const s = encodes(S.DecimalInt, n)
      return ok(S.DecimalInt, s) === n && s === String(n)
    }))
  })
})

describe("DecimalBigInt", () => {
  it("keeps amounts past 2^53 exact", () => {
    const wei = "172774397764084972158218"
    expect(ok(S.DecimalBigInt, wei)).toBe(172774397764084972158218n)
    expect(encodes(S.DecimalBigInt, ok(S.DecimalBigInt, wei))).toBe(wei)
    expect(ok(S.DecimalBigInt, "9007199254740993")).toBe(2n ** 53n + 1n)
  })
  it("rejects non-canonical text and negative values", () => {
    for (const bad of ["", "01", "-5", "1.5", "0x1"]) expect(fails(S.DecimalBigInt, bad)).toBe(true)
    expect(encodeFails(S.DecimalBigInt, -1n)).toBe(true)
  })
  it("round-trips any non-negative bigint", () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 2n ** 256n }), (n) => ok(S.DecimalBigInt, encodes(S.DecimalBigInt, n)) === n))
  })
})

describe("HexInt / HexBigInt (getLogs hex)", () => {
  it("\"0x\" is zero and zero encodes back to \"0x\"", () => {
    expect(ok(S.HexInt, "0x")).toBe(0)
    expect(encodes(S.HexInt, 0)).toBe("0x")
    expect(ok(S.HexBigInt, "0x")).toBe(0n)
    expect(encodes(S.HexBigInt, 0n)).toBe("0x")
  })
  it("non-zero values round-trip exactly", () => {
    expect(ok(S.HexInt, "0x1a")).toBe(26)
    expect(encodes(S.HexInt, 26)).toBe("0x1a")
    expect(ok(S.HexInt, "0xc48174")).toBe(12878196)
    expect(ok(S.HexBigInt, "0x2e90edd000")).toBe(200000000000n)
    expect(encodes(S.HexBigInt, 200000000000n)).toBe("0x2e90edd000")
  })
  it("rejects forms that would not encode back unchanged, and unsafe numbers", () => {
    for (const bad of ["0x0", "0x01", "0x1A", "1a", "", "0X1a", "0xg"]) {
      expect(fails(S.HexInt, bad)).toBe(true)
      expect(fails(S.HexBigInt, bad)).toBe(true)
    }
    expect(fails(S.HexInt, "0x20000000000000")).toBe(true) // 2^53
    expect(ok(S.HexBigInt, "0x20000000000000")).toBe(2n ** 53n)
  })
  it("reads any text exactly as the pattern and parseInt do (one-pass reader of short values)", () => {
    const reference = (s: string): number | undefined => {
      if (!/^0x(?:[1-9a-f][0-9a-f]*)?$/.test(s)) return undefined
      const n = s.length === 2 ? 0 : Number.parseInt(s.slice(2), 16)
      return Number.isSafeInteger(n) ? n : undefined
    }
    const hexLike = fc.tuple(
      fc.constantFrom("0x", "0X", "0", "x", "", "00x", " 0x"),
      fc.stringOf(fc.constantFrom(..."0123456789abcdefABCDEFgx \u0660\uff10"), { maxLength: 16 })
    ).map(([prefix, digits]) => prefix + digits)
    fc.assert(
      fc.property(fc.oneof(hexLike, fc.string()), (s) => {
        const want = reference(s)
        const got = decode(S.HexInt)(s)
        expect(Either.getOrUndefined(got)).toBe(want)
        expect(Either.isLeft(decode(S.HexBigInt)(s))).toBe(!/^0x(?:[1-9a-f][0-9a-f]*)?$/.test(s))
      }),
      { numRuns: 5000 }
    )
  })
  it("round-trips any value", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (n) => ok(S.HexInt, encodes(S.HexInt, n)) === n))
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 2n ** 256n }), (n) => ok(S.HexBigInt, encodes(S.HexBigInt, n)) === n))
  })
})

describe("HexQuantity / HexQuantityBigInt (JSON-RPC)", () => {
  it("zero is \"0x0\"", () => {
    expect(ok(S.HexQuantity, "0x0")).toBe(0)
    expect(encodes(S.HexQuantity, 0)).toBe("0x0")
    expect(encodes(S.HexQuantityBigInt, 0n)).toBe("0x0")
    expect(fails(S.HexQuantity, "0x")).toBe(true)
    expect(fails(S.HexQuantityBigInt, "0x00")).toBe(true)
  })
  it("eth_gasPrice result decodes to wei", () => {
    expect(ok(S.GasPrice, "0x12dbf9ea00")).toBe(81000000000n)
    expect(encodes(S.GasPrice, 81000000000n)).toBe("0x12dbf9ea00")
  })
})

describe("EmptyAsNull", () => {
  const NullableInt = S.EmptyAsNull(S.DecimalInt)
  it("\"\" ↔ null", () => {
    expect(ok(NullableInt, "")).toBeNull()
    expect(encodes(NullableInt, null)).toBe("")
  })
  it("other values go through the inner schema", () => {
    expect(ok(NullableInt, "8")).toBe(8)
    expect(encodes(NullableInt, 8)).toBe("8")
    expect(fails(NullableInt, "x")).toBe(true)
    expect(fails(NullableInt, "9007199254740993")).toBe(true)
  })
  it("works for flags and addresses", () => {
    const status = S.EmptyAsNull(S.BooleanFromDigit)
    expect([ok(status, ""), ok(status, "1"), ok(status, "0")]).toStrictEqual([null, true, false])
    const to = S.EmptyAsNull(S.AddressField)
    expect(ok(to, "")).toBeNull()
    expect(ok(to, "0xddbd2b932c763ba5b1b7ae3b362eac3e8d40121a")).toBe("0xddbd2b932c763ba5b1b7ae3b362eac3e8d40121a")
  })
})

describe("EmptyAsNull around a schema of another origin", () => {
  const NullableNumber = S.EmptyAsNull(Schema.NumberFromString)
  it("\"\" ↔ null and other text through the inner schema", () => {
    expect(ok(NullableNumber, "")).toBeNull()
    expect(ok(NullableNumber, "1.5")).toBe(1.5)
    expect(encodes(NullableNumber, null)).toBe("")
    expect(encodes(NullableNumber, 1.5)).toBe("1.5")
    expect(fails(NullableNumber, "x")).toBe(true)
  })
})

describe("BooleanFromDigit", () => {
  it("\"0\"/\"1\" ↔ false/true; anything else fails", () => {
    expect(ok(S.BooleanFromDigit, "1")).toBe(true)
    expect(ok(S.BooleanFromDigit, "0")).toBe(false)
    expect(encodes(S.BooleanFromDigit, true)).toBe("1")
    for (const bad of ["", "2", "true", 1]) expect(fails(S.BooleanFromDigit, bad)).toBe(true)
  })
})

describe("JsonInt", () => {
  it("accepts the JSON number and a decimal string, encodes the number", () => {
    expect(ok(S.JsonInt, 498856)).toBe(498856)
    expect(ok(S.JsonInt, "1721899658")).toBe(1721899658)
    expect(ok(S.JsonInt, "-1")).toBe(-1)
    expect(encodes(S.JsonInt, 498856)).toBe(498856)
  })
  it("rejects fractions, unsafe integers and text", () => {
    for (const bad of [1.5, 2 ** 53, Number.NaN, "1.5", "", "x", "9007199254740993", null]) {
      expect(fails(S.JsonInt, bad)).toBe(true)
    }
  })
})

describe("JsonNumber", () => {
  it("accepts a JSON number or a decimal text, encodes the number", () => {
    expect(ok(S.JsonNumber, 17.67)).toBe(17.67)
    expect(ok(S.JsonNumber, "0.8464")).toBe(0.8464)
    expect(encodes(S.JsonNumber, 17.67)).toBe(17.67)
    for (const bad of [Number.POSITIVE_INFINITY, "2,408.028", "", "1e3"]) expect(fails(S.JsonNumber, bad)).toBe(true)
  })
})

describe("address and hash fields (permissive)", () => {
  const addr = "0xddbd2b932c763ba5b1b7ae3b362eac3e8d40121a"
  const checksummed = "0x0000db5C8B030AE20308AC975898E09741E70000"
  const hash = "0x40eb908387324f2b575b4879cd9d7188f69c8fc9d87c901b9e2daaea4b442170"
  it("AddressField takes hex in any case and the GENESIS pseudo-sender", () => {
    for (const good of [addr, checksummed, "GENESIS"]) expect(ok(S.AddressField, good)).toBe(good)
    for (const bad of ["", "0x123", addr.slice(2), `${addr}0`, "genesis"]) expect(fails(S.AddressField, bad)).toBe(true)
  })
  it("HashField takes 32-byte hashes and GENESIS_<address>", () => {
    for (const good of [hash, hash.toUpperCase().replace("0X", "0x"), `GENESIS_${addr.slice(2)}`]) {
      expect(ok(S.HashField, good)).toBe(good)
    }
    for (const bad of ["", "GENESIS", hash.slice(0, 65), `GENESIS_${addr}`]) expect(fails(S.HashField, bad)).toBe(true)
  })
})

describe("fieldTests (the export path's checks of addresses and hashes)", () => {
  const patterns = {
    address: /^(?:0x[0-9a-fA-F]{40}|GENESIS)$/,
    hash: /^(?:0x[0-9a-fA-F]{64}|GENESIS_[0-9a-fA-F]{40})$/,
    hexData: /^0x[0-9a-fA-F]*$/,
    hash32: /^0x[0-9a-fA-F]{64}$/
  } as const
  // Beyond ASCII: code units whose low byte is a hex digit (U+0130, U+0161, U+FF10, U+0446), a lone
  // surrogate, so that a table indexed by code unit must refuse them as the regular expression does.
  const hexChars = fc.constantFrom(..."0123456789abcdefABCDEFgxX G_ENSI\u00e9\u0660\u0130\u0161\uff10\u0446\ud800\u0000".split(""))
  const candidates = fc.oneof(
    fc.string(),
    fc.tuple(fc.constantFrom("0x", "0X", "GENESIS_", "GENESIS", ""), fc.array(hexChars, { maxLength: 70 })).map(([p, cs]) => p + cs.join("")),
    fc.tuple(fc.constantFrom(40, 64), fc.nat(63)).map(([n, i]) => {
      const digits = "a".repeat(n).split("")
      digits[i % n] = "g"
      return "0x" + digits.join("")
    }),
    // A valid text with one code unit of any value put in anywhere (the hot path's tables see every one).
    fc.tuple(fc.constantFrom(40, 64, 0, 7, 300), fc.nat(400), fc.integer({ min: 0, max: 0xffff })).map(([n, i, code]) => {
      const digits = "0x" + "aF3".repeat(n).slice(0, n)
      const at = i % (digits.length + 1)
      return digits.slice(0, at) + String.fromCharCode(code) + digits.slice(at + 1)
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
