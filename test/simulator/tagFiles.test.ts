import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Effect, Either, FastCheck as fc } from "effect"
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

// Records from the schemas' own arbitraries (quotes, `;`, `,` and empty list items come up), plus the
// cells a CSV writer most often gets wrong.
const tags = fc.array(Arbitrary.make(S.AddressTag), { maxLength: 5 })
const labels = fc.array(Arbitrary.make(S.LabelMaster), { maxLength: 5 })
const awkward: ReadonlyArray<S.AddressTag> = [
  phishing,
  { ...phishing, nametag: "two\r\nlines", notes_2: "\n", url: ";", labels: ["[\"a\"]"], labels_slug: ["a,b", ""], other_attributes: ["\uFEFF"] }
]

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
    expect(read(S.parseAddressTagsCsv(addressTagsCsv(awkward)))).toEqual(Either.right(awkward))
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
    expect(addressTagsCsv(awkward)).toBe(S.formatAddressTagsCsv(awkward))
    fc.assert(fc.property(tags, (rows) => addressTagsCsv(rows) === S.formatAddressTagsCsv(rows)), { numRuns: 200 })
    fc.assert(fc.property(labels, (rows) => labelMasterCsv(rows) === S.formatLabelMasterCsv(rows)), { numRuns: 100 })
  })
})
