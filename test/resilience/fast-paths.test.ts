/**
 * "Never lose a row" also means the fast paths write exactly what the slow, obvious code writes: the
 * client's record decoding (the schemas' fast path, keeping unknown fields as `onExcessProperty:
 * "preserve"` does), the sinks' encoder (fast-path encoding, plain cells written as they are, CSV through csv-stringify
 * with the sink's cast) — each checked against the schema and a plain csv-stringify on generated records.
 */
import { describe, expect, it } from "@effect/vitest"
import { stringify } from "csv-stringify/sync"
import { Arbitrary, Effect, Either, FastCheck as fc, Schema } from "effect"
import * as Client from "../../src/ExplorerClient.js"
import * as Schemas from "../../src/schemas/index.js"
import * as Format from "../../src/sinks/Format.js"

/** The CSV options the sinks document (RFC 4180, LF records, every record ended). */
const csvOptions = {
  delimiter: ",",
  quote: "\"",
  escape: "\"",
  record_delimiter: "\n",
  quote_record_delimiter: true,
  eof: true,
  header: false,
  escape_formulas: false
} as const

/** The record schemas the exports write. */
const records = {
  NormalTransaction: Schemas.NormalTransaction,
  InternalTransaction: Schemas.InternalTransaction,
  Erc20Transfer: Schemas.Erc20Transfer,
  Erc721Transfer: Schemas.Erc721Transfer,
  Erc1155Transfer: Schemas.Erc1155Transfer,
  Log: Schemas.Log,
  LogFileRow: Schemas.LogFileRow,
  TokenHolder: Schemas.TokenHolder,
  TokenBalance: Schemas.TokenBalance,
  NftBalance: Schemas.NftBalance,
  TopHolder: Schemas.TopHolder,
  DailyGasUsed: Schemas.DailyGasUsed,
  DailyTxCount: Schemas.DailyTxCount,
  AddressTag: Schemas.AddressTag
} as const

type Row = Schema.Struct<Schema.Struct.Fields>
type Plain = Schema.Schema<Record<string, unknown>, Record<string, unknown>>
const rowSchemas = Object.entries(records) as unknown as ReadonlyArray<readonly [string, Row]>
/** The same schema seen as plain records (for the generic helpers of Schema and Arbitrary). */
const plainOf = (row: Row): Plain => row as unknown as Plain

const withoutUndefined = <A extends object>(record: A): A =>
  Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as A

/** An EVM log has at most four topics (the CSV layout's topic0..topic3); the schema does not say so. */
const atMostFourTopics = (r: Record<string, unknown>): Record<string, unknown> =>
  Array.isArray(r.topics) ? { ...r, topics: r.topics.slice(0, 4) } : r

/** Generated records of a schema, a few per run. */
const recordsOf = (row: Row) =>
  fc.array(Arbitrary.make(plainOf(row)).map((r) => atMostFourTopics(withoutUndefined(r))), { minLength: 1, maxLength: 4 })

/** Cells the way the sinks' header describes them, written the obvious way (the reference). */
const referenceCell = (value: unknown, guard: boolean): string => {
  const text = (s: string) => (guard ? Format.guardFormula(s) : s)
  if (typeof value === "string") return text(value)
  if (typeof value === "number") return Number.isInteger(value) && Math.abs(value) >= 1e21 ? BigInt(value).toString() : String(value)
  if (typeof value === "bigint") return value.toString()
  if (typeof value === "boolean") return value ? "true" : "false"
  if (value === undefined || value === null) return ""
  return text(JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)))
}

/** What the encoder must write: `Schema.encode` per row, then csv-stringify or JSON.stringify of the line. */
const reference = (row: Row, rows: ReadonlyArray<Record<string, unknown>>, format: Format.FileFormat): string => {
  const fields = Either.getOrThrow(Format.fieldsOf(plainOf(row)))
  const encode = Schema.encodeSync(plainOf(row))
  let text = ""
  for (const r of rows) {
    const e = encode(r)
    if (format === "jsonl") {
      const line: Record<string, unknown> = {}
      for (const f of fields) {
        const v = e[f.name]
        if (v !== undefined) line[f.name] = typeof v === "bigint" ? v.toString() : v
      }
      text += JSON.stringify(line) + "\n"
    } else {
      const cells = fields.flatMap((f) => {
        const v = e[f.name]
        return f.topics
          ? [0, 1, 2, 3].map((i) => referenceCell(Array.isArray(v) ? v[i] : undefined, true))
          : [referenceCell(v, true)]
      })
      text += stringify([cells], csvOptions)
    }
  }
  return text
}

describe("CSV cells through the sink's csv-stringify settings", () => {
  it("csvRecord (with the sink's cast) quotes text cells as a plain csv-stringify does, for any cells", () => {
    const cell = fc.oneof(
      fc.string(),
      fc.string({ unit: fc.constantFrom("a", ",", "\"", "\n", "\r", " ", "=", "é", "\u2028") }),
      fc.constant("")
    )
    fc.assert(
      fc.property(fc.array(cell, { minLength: 1, maxLength: 6 }), (cells) => {
        expect(Format.csvRecord(cells)).toBe(stringify([cells], csvOptions))
      }),
      { numRuns: 500 }
    )
  })
})

describe("the client's fast record decoding", () => {
  for (const [name, row] of rowSchemas) {
    it(`${name}: same records as the schema with onExcessProperty "preserve", unknown fields kept in the same key order`, () => {
      const decodeFast = Schemas.recordsFastPath(row, { onExcessProperty: "preserve" }).decode
      const decodeSlow = Schema.decodeUnknownSync(Schema.Array(plainOf(row)), { onExcessProperty: "preserve" })
      const encode = Schema.encodeSync(Schema.Array(plainOf(row)))
      // Keys the struct does not declare (inherited names such as "constructor" included).
      const undeclared = fc.string({ minLength: 1, maxLength: 8 }).filter((k) => k !== "__proto__" && !Object.hasOwn(row.fields, k))
      const extra = fc.dictionary(fc.oneof(undeclared, fc.constantFrom("constructor", "toString", "extra_field")), fc.jsonValue(), { maxKeys: 3 })
      fc.assert(
        fc.property(recordsOf(row), fc.array(extra, { minLength: 4, maxLength: 4 }), (rows, extras) => {
          // The wire form with a few keys the schema does not declare, before and after the known ones.
          const wire = encode(rows).map((r, i) => ({ ...extras[i], ...r, ...extras[(i + 1) % 4] }))
          const fast = decodeFast(wire)
          const slow = decodeSlow(wire)
          expect(fast).toStrictEqual(slow)
          expect(fast?.map((r) => Object.keys(r))).toStrictEqual(slow.map((r) => Object.keys(r)))
        }),
        { numRuns: 30 }
      )
    })
  }

  it("every list operation of the client decodes through the fast path", () => {
    const lists = Object.entries(Client.Results).filter(([, s]) => s.ast._tag === "TupleType").map(([name]) => name)
    expect(lists).toContain("txlist")
    expect(lists).toContain("getLogs")
    for (const [, row] of rowSchemas) expect(Schemas.plainTextFields(row).size).toBeGreaterThan(0)
  })
})

describe("the sinks' encoder on its fast path", () => {
  for (const [name, row] of rowSchemas) {
    for (const format of ["csv", "jsonl"] as const) {
      it.effect(`${name} ${format}: the text of Schema.encode + ${format === "csv" ? "csv-stringify" : "JSON.stringify"}`, () =>
        Effect.gen(function*() {
          const encoder = yield* Format.encoder(plainOf(row), { format })
          const plain = Schemas.plainTextFields(row)
          const encode = Schema.encodeSync(plainOf(row))
          fc.assert(
            fc.property(recordsOf(row), (rows) => {
              expect(Effect.runSync(encoder.encode(rows))).toBe(reference(row, rows, format))
              // What the encoder writes without any check is plain text indeed.
              for (const r of rows) {
                const e = encode(r)
                for (const key of plain) {
                  const v = e[key]
                  const texts = Array.isArray(v) ? v : v === undefined ? [] : [v]
                  for (const t of texts) expect(t).toMatch(/^[0-9A-Za-z_]*$/)
                }
              }
            }),
            { numRuns: 25 }
          )
        }))
    }
  }

  it.effect("a record that does not encode fails the chunk with its index, on the fast path too", () =>
    Effect.gen(function*() {
      const encoder = yield* Format.encoder(Schemas.TokenHolder, { format: "csv" })
      const good = { TokenHolderAddress: "0x00000000000000000000000000000000000000aa", TokenHolderQuantity: 5n }
      const bad = { ...good, TokenHolderQuantity: 5 } as unknown as Schemas.TokenHolder
      const error = yield* Effect.flip(encoder.encode([good, bad]))
      expect(error.reason).toBe("Encode")
      expect(error.detail).toContain("record 1")
    }))
})
