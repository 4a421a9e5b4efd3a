import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc } from "effect"
import * as S from "../../src/schemas/index.js"
import { addressTagsCsv, labelMasterCsv } from "../../src/simulator/tagFiles.js"

/** The header of the exportaddresstags file as the facts file quotes the docs (§2.24). */
const DOCS_HEADER =
  "\"address\";\"nametag\";\"internal_nametag\";\"url\";\"shortdescription\";\"notes_1\";\"notes_2\";\"labels\";\"labels_slug\";\"reputation\";\"other_attributes\";\"lastupdatedtimestamp\""

const phishing: S.AddressTag = {
  address: "0x0000000000000000000000000000000000001111",
  nametag: "Fake_Phishing589039",
  internal_nametag: "",
  url: "",
  shortdescription: "",
  notes_1: "Reported by \"HashDit\"; exercise caution.",
  notes_2: "",
  labels: ["Phish / Hack"],
  labels_slug: ["phish-hack"],
  reputation: 2,
  other_attributes: [],
  lastupdatedtimestamp: 1728292621
}

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom("", ";", "\"", "\"\"", "\r\n", "\n", ",", "[", "[\"a\"]", "a,b", " x ", "\uFEFF")
)
const tags = fc.array(
  fc.record({
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
  }),
  { maxLength: 5 }
)
const labels = fc.array(
  fc.record({ labelname: text, labelslug: text, shortdescription: text, notes: text, lastupdatedtimestamp: fc.nat() }),
  { maxLength: 5 }
)

describe("the simulator's tag files", () => {
  it("exportaddresstags: the docs' header, every cell quoted, ; between cells, CRLF, lists joined with ,", () => {
    expect(addressTagsCsv([])).toBe(DOCS_HEADER + "\r\n")
    expect(addressTagsCsv([phishing, { ...phishing, labels: ["a,b", "c"], labels_slug: [""], other_attributes: ["[x]"] }])).toBe(
      DOCS_HEADER + "\r\n" +
        "\"0x0000000000000000000000000000000000001111\";\"Fake_Phishing589039\";\"\";\"\";\"\";\"Reported by \"\"HashDit\"\"; exercise caution.\";\"\";\"Phish / Hack\";\"phish-hack\";\"2\";\"\";\"1728292621\"\r\n" +
        "\"0x0000000000000000000000000000000000001111\";\"Fake_Phishing589039\";\"\";\"\";\"\";\"Reported by \"\"HashDit\"\"; exercise caution.\";\"\";\"[\"\"a,b\"\",\"\"c\"\"]\";\"[\"\"\"\"]\";\"2\";\"[\"\"[x]\"\"]\";\"1728292621\"\r\n"
    )
  })

  it("getlabelmasterlist: the fields of the JSON records as the header", () => {
    expect(labelMasterCsv([{ labelname: "Axelar", labelslug: "axelar", shortdescription: "", notes: "", lastupdatedtimestamp: 1712897117 }]))
      .toBe("\"labelname\";\"labelslug\";\"shortdescription\";\"notes\";\"lastupdatedtimestamp\"\r\n\"Axelar\";\"axelar\";\"\";\"\";\"1712897117\"\r\n")
  })

  // Two independent copies, the server's writer and the client's parser: each checks the other.
  it("the client's parser reads back every file the simulator writes", () => {
    const read = <A>(effect: Effect.Effect<A, unknown>) => Effect.runSync(Effect.either(effect))
    fc.assert(
      fc.property(tags, (rows) => {
        const back = read(S.parseAddressTagsCsv(addressTagsCsv(rows)))
        return Either.isRight(back) && JSON.stringify(back.right) === JSON.stringify(rows)
      }),
      { numRuns: 200 }
    )
    fc.assert(
      fc.property(labels, (rows) => {
        const back = read(S.parseLabelMasterCsv(labelMasterCsv(rows)))
        return Either.isRight(back) && JSON.stringify(back.right) === JSON.stringify(rows)
      }),
      { numRuns: 100 }
    )
  })

  it("writes the same bytes as the library's own writer, where both write", () => {
    fc.assert(fc.property(tags, (rows) => addressTagsCsv(rows) === S.formatAddressTagsCsv(rows)), { numRuns: 200 })
    fc.assert(fc.property(labels, (rows) => labelMasterCsv(rows) === S.formatLabelMasterCsv(rows)), { numRuns: 100 })
  })
})
