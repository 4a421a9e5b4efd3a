import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc, Schema } from "effect"
import * as S from "../../src/schemas/index.js"

const HEADER =
  "\"address\";\"nametag\";\"internal_nametag\";\"url\";\"shortdescription\";\"notes_1\";\"notes_2\";\"labels\";\"labels_slug\";\"reputation\";\"other_attributes\";\"lastupdatedtimestamp\""

/** The sample file of the exportaddresstags docs page (vendor example, two rows). */
const docsSample = [
  HEADER,
  "\"0x0000000000000000000000000000000000001111\";\"Fake_Phishing589039\";\"\";\"\";\"\";\"There are reports that this address was used in a Phishing scam. Please exercise caution when interacting with it. Reported by HashDit.\";\"\";\"Phish / Hack\";\"phish-hack\";\"2\";\"\";\"1728292621\"",
  "\"0x00000000001adc2c0b202d0f72ad9d50f0675296\";\"Fake_Phishing1334182\";\"\";\"\";\"\";\"There are reports that this address was used in a Phishing scam. Please exercise caution when interacting with it. Reported by BlockSec.\";\"\";\"Phish / Hack\";\"phish-hack\";\"2\";\"\";\"1757057505\""
].join("\n") + "\n"

/** The getaddresstag docs example (vendor example). */
const coinbase: S.AddressTag.Encoded = {
  address: "0xa9d1e08c7793af67e9d92fe308d5697fb81d3e43",
  nametag: "Coinbase 10",
  internal_nametag: "",
  url: "https://coinbase.com",
  shortdescription: "",
  notes_1: "",
  notes_2: "",
  labels: ["Coinbase", "Exchange"],
  labels_slug: ["coinbase", "exchange"],
  reputation: 0,
  other_attributes: [],
  lastupdatedtimestamp: 1721899658
}

const parseFails = (text: string) =>
  parseAddressTagsEither(text).pipe(Either.isLeft)
const parseAddressTagsEither = (text: string) => Effect.runSync(Effect.either(S.parseAddressTagsCsv(text)))

describe("AddressTag (getaddresstag JSON)", () => {
  it("decodes the docs example and encodes it back unchanged", () => {
    const tag = Schema.decodeUnknownSync(S.AddressTag, { onExcessProperty: "error" })(coinbase)
    expect(tag.labels).toStrictEqual(["Coinbase", "Exchange"])
    expect(tag.reputation).toBe(0)
    expect(Schema.encodeSync(S.AddressTag)(tag)).toStrictEqual(coinbase)
  })
  it("has the field order of the docs (the CSV header)", () => {
    expect(Object.keys(S.AddressTag.fields)).toStrictEqual(S.addressTagColumns)
    expect(S.formatAddressTagsCsv([]).split("\r\n")[0]).toBe(HEADER)
  })
})

describe("LabelMaster", () => {
  it("decodes the docs example (timestamp a JSON number)", () => {
    const wire: S.LabelMaster.Encoded = {
      labelname: "Axelar",
      labelslug: "axelar",
      shortdescription: "Axelar is a decentralized interoperability network.",
      notes: "",
      lastupdatedtimestamp: 1712897117
    }
    const label = Schema.decodeUnknownSync(S.LabelMaster, { onExcessProperty: "error" })(wire)
    expect(label.lastupdatedtimestamp).toBe(1712897117)
    expect(Schema.encodeSync(S.LabelMaster)(label)).toStrictEqual(wire)
  })
})

describe("exportaddresstags CSV", () => {
  it.effect("reads the docs sample file", () =>
    Effect.gen(function*() {
      const rows = yield* S.parseAddressTagsCsv(docsSample)
      expect(rows).toHaveLength(2)
      expect(rows[0]).toStrictEqual({
        address: "0x0000000000000000000000000000000000001111",
        nametag: "Fake_Phishing589039",
        internal_nametag: "",
        url: "",
        shortdescription: "",
        notes_1:
          "There are reports that this address was used in a Phishing scam. Please exercise caution when interacting with it. Reported by HashDit.",
        notes_2: "",
        labels: ["Phish / Hack"],
        labels_slug: ["phish-hack"],
        reputation: 2,
        other_attributes: [],
        lastupdatedtimestamp: 1728292621
      })
    }))

  it.effect("writes every cell quoted, ; between cells, CRLF line ends, lists joined with ,", () =>
    Effect.gen(function*() {
      const tag = Schema.decodeUnknownSync(S.AddressTag)(coinbase)
      const text = S.formatAddressTagsCsv([tag])
      expect(text).toBe(
        HEADER + "\r\n" +
          "\"0xa9d1e08c7793af67e9d92fe308d5697fb81d3e43\";\"Coinbase 10\";\"\";\"https://coinbase.com\";\"\";\"\";\"\";\"Coinbase,Exchange\";\"coinbase,exchange\";\"0\";\"\";\"1721899658\"\r\n"
      )
      expect(yield* S.parseAddressTagsCsv(text)).toStrictEqual([tag])
    }))

  it("writes lists that a , join would garble as JSON array text", () => {
    expect(S.formatListCell([])).toBe("")
    expect(S.formatListCell(["a", "b"])).toBe("a,b")
    expect(S.formatListCell(["a,b", "c"])).toBe("[\"a,b\",\"c\"]")
    expect(S.formatListCell([""])).toBe("[\"\"]")
    expect(S.formatListCell(["[x]"])).toBe("[\"[x]\"]")
    expect(S.parseListCell("[\"a,b\",\"c\"]")).toStrictEqual(["a,b", "c"])
    expect(S.parseListCell("[not json")).toStrictEqual(["[not json"])
    expect(S.parseListCell("Phish / Hack")).toStrictEqual(["Phish / Hack"])
  })

  it("parse(format(rows)) gives the rows back, whatever the text in the cells", () => {
    const text = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.string({ unit: "grapheme", maxLength: 12 }),
      fc.constantFrom("", ";", "\"", "\"\"", "\r\n", "\n", "\r", ",", "[", "[\"a\"]", "a,b", " x ", "\uFEFF")
    )
    const tag = fc.record({
      address: fc.stringMatching(/^0x[0-9a-fA-F]{40}$/),
      nametag: text,
      internal_nametag: text,
      url: text,
      shortdescription: text,
      notes_1: text,
      notes_2: text,
      labels: fc.array(text, { maxLength: 4 }),
      labels_slug: fc.array(text, { maxLength: 4 }),
      reputation: fc.integer({ min: -5, max: 5 }),
      other_attributes: fc.array(text, { maxLength: 3 }),
      lastupdatedtimestamp: fc.integer({ min: 0, max: 2 ** 40 })
    })
    fc.assert(
      fc.property(fc.array(tag, { maxLength: 5 }), (rows) => {
        const back = parseAddressTagsEither(S.formatAddressTagsCsv(rows))
        return Either.isRight(back) && JSON.stringify(back.right) === JSON.stringify(rows)
      }),
      { numRuns: 100 }
    )
  })

  it.effect("the AddressTagsCsv schema encodes to the same text formatAddressTagsCsv writes", () =>
    Effect.gen(function*() {
      const rows = yield* S.parseAddressTagsCsv(docsSample)
      expect(yield* Schema.encode(S.AddressTagsCsv)(rows)).toBe(S.formatAddressTagsCsv(rows))
    }))

  it.effect("accepts LF or CRLF, a byte-order mark, unquoted cells and reordered columns", () =>
    Effect.gen(function*() {
      const reordered = [
        "\uFEFFlastupdatedtimestamp;address;nametag;internal_nametag;url;shortdescription;notes_1;notes_2;labels;labels_slug;reputation;other_attributes",
        "1721899658;0xa9d1e08c7793af67e9d92fe308d5697fb81d3e43;Coinbase 10;;https://coinbase.com;;;;Coinbase,Exchange;coinbase,exchange;0;"
      ].join("\r\n")
      const rows = yield* S.parseAddressTagsCsv(reordered)
      expect(rows).toStrictEqual([Schema.decodeUnknownSync(S.AddressTag)(coinbase)])
      expect(yield* S.parseAddressTagsCsv(HEADER)).toStrictEqual([])
    }))

  it("fails with a ParseError on malformed files", () => {
    const row = docsSample.split("\n")[1] ?? ""
    expect(parseFails(`${HEADER}\n"0x0000000000000000000000000000000000001111";"unterminated`)).toBe(true)
    expect(parseFails(`${HEADER}\n${row};"extra cell"`)).toBe(true)
    expect(parseFails(`${HEADER}\n${row.replace("\"2\"", "\"two\"")}`)).toBe(true)
    expect(parseFails(`${HEADER}\n${row.replace("0x0000000000000000000000000000000000001111", "0x1111")}`)).toBe(true)
    expect(parseFails(HEADER.replace("\"reputation\";", "") + "\n")).toBe(true)
    expect(parseFails(`${HEADER}\n"a"b;"c"`)).toBe(true)
    expect(parseFails("")).toBe(true)
    const left = parseAddressTagsEither(`${HEADER}\n${row};"x"`)
    expect(Either.isLeft(left) && left.left._tag).toBe("ParseError")
  })
})

describe("getlabelmasterlist CSV", () => {
  it.effect("round-trips through format and parse", () =>
    Effect.gen(function*() {
      const labels: ReadonlyArray<S.LabelMaster> = [
        { labelname: "Axelar", labelslug: "axelar", shortdescription: "a; \"quoted\"\nnote", notes: "", lastupdatedtimestamp: 1712897117 },
        { labelname: "Phish / Hack", labelslug: "phish-hack", shortdescription: "", notes: "x", lastupdatedtimestamp: 0 }
      ]
      const text = S.formatLabelMasterCsv(labels)
      expect(text.split("\r\n")[0]).toBe("\"labelname\";\"labelslug\";\"shortdescription\";\"notes\";\"lastupdatedtimestamp\"")
      expect(yield* S.parseLabelMasterCsv(text)).toStrictEqual(labels)
    }))
})
