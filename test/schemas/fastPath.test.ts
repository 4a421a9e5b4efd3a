/**
 * The fast path of record lists (src/schemas/fastPath.ts): it agrees with the schemas on generated records,
 * leaves to them whatever it is not sure of, and transcodes the wire's encoding straight to a file's.
 */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Effect, Either, FastCheck as fc, Schema } from "effect"
import * as S from "../../src/schemas/index.js"

const address = (n: number) => "0x" + n.toString(16).padStart(40, "0")

/** Drops keys whose value is `undefined` (a JSON answer never has them; the fast path leaves them to the schema). */
const withoutUndefined = <A extends object>(record: A): A =>
  Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as A

describe("decodeRecords / encodeRecords", () => {
  const checkAgainstSchema = <Fields extends Schema.Struct.Fields>(name: string, row: Schema.Struct<Fields>) =>
    it(`${name}: the fast path agrees with the schema on generated records`, () => {
      const schema = Schema.Array(row) as unknown as Schema.Schema<ReadonlyArray<Schema.Struct<Fields>["Type"]>, ReadonlyArray<unknown>>
      const fast = S.recordsFastPath(row)
      const isRecord = Schema.is(Schema.typeSchema(row))
      fc.assert(
        fc.property(fc.array(Arbitrary.make(row).map(withoutUndefined), { maxLength: 3 }), (records) => {
          expect(records.every((r) => isRecord(r))).toBe(true)
          const wire = Schema.encodeSync(schema)(records)
          const decoded = fast.decode(wire)
          expect(decoded).toStrictEqual(records)
          expect(fast.encode(records)).toStrictEqual(wire)
        }),
        { numRuns: 20 }
      )
    })
  checkAgainstSchema("NormalTransaction", S.NormalTransaction)
  checkAgainstSchema("InternalTransaction", S.InternalTransaction)
  checkAgainstSchema("Erc20Transfer", S.Erc20Transfer)
  checkAgainstSchema("Erc1155Transfer", S.Erc1155Transfer)
  checkAgainstSchema("Log", S.Log)
  checkAgainstSchema("ContractSource", S.ContractSource)
  checkAgainstSchema("DailyTxCount", S.DailyTxCount)
  checkAgainstSchema("AddressTag", S.AddressTag)

  it.effect("invalid records fail with the schema's own ParseError", () =>
    Effect.gen(function*() {
      const bad = [{ blockNumber: "0x10", timeStamp: "1", hash: "x" }]
      const fast = yield* Effect.either(S.decodeRecords(S.Erc20Transfer)(bad))
      const slow = Either.mapLeft(Schema.decodeUnknownEither(Schema.Array(S.Erc20Transfer))(bad), (e) => e.message)
      expect(Either.isLeft(fast)).toBe(true)
      expect(Either.mapLeft(fast, (e) => e.message)).toStrictEqual(slow)
      expect(S.recordsFastPath(S.Erc20Transfer).decode(bad)).toBeUndefined()
      expect(S.recordsFastPath(S.Erc20Transfer).decode({ not: "an array" })).toBeUndefined()
    }))

  it.effect("structs with fields it does not know are left to the schema", () =>
    Effect.gen(function*() {
      const WithDefault = Schema.Struct({ n: S.DecimalInt, m: Schema.optionalWith(S.DecimalInt, { default: () => 7 }) })
      expect(S.recordsFastPath(WithDefault).decode([{ n: "1" }])).toBeUndefined()
      expect(yield* S.decodeRecords(WithDefault)([{ n: "1" }])).toStrictEqual([{ n: 1, m: 7 }])
      const WithNumber = Schema.Struct({ n: S.DecimalInt, x: Schema.NumberFromString })
      expect(S.recordsFastPath(WithNumber).decode([{ n: "1", x: "2.5" }])).toStrictEqual([{ n: 1, x: 2.5 }])
    }))

  it.effect("values of the wrong type are refused when encoding", () =>
    Effect.gen(function*() {
      const row = { TokenHolderAddress: address(1), TokenHolderQuantity: 5 } as unknown as S.TokenHolder
      expect(S.recordsFastPath(S.TokenHolder).encode([row])).toBeUndefined()
      const result = yield* Effect.either(S.encodeRecords(S.TokenHolder)([row]))
      expect(Either.isLeft(result)).toBe(true)
      const ok = yield* S.encodeRecords(S.TokenHolder)([{ TokenHolderAddress: address(1), TokenHolderQuantity: 5n }])
      expect(ok).toStrictEqual([{ TokenHolderAddress: address(1), TokenHolderQuantity: "5" }])
    }))
})

describe("transcodeRecords (the export path)", () => {
  /** What the schemas give: decode with `wire`, encode with `file`. */
  const viaSchemas = <W extends Schema.Struct.Fields, F extends Schema.Struct.Fields>(
    wire: Schema.Struct<W>,
    file: Schema.Struct<F>,
    input: ReadonlyArray<unknown>
  ) => Schema.encodeSync(Schema.Array(file) as unknown as Schema.Schema<unknown, unknown>)(
    Schema.decodeUnknownSync(Schema.Array(wire) as unknown as Schema.Schema<unknown, unknown>)(input)
  )

  /** The declared fields of each record, as a file reads them (keys beyond them stay in place). */
  const declaredOnly = (fields: ReadonlyArray<string>, records: ReadonlyArray<unknown>) =>
    records.map((r) =>
      Object.fromEntries(fields.filter((k) => (r as Record<string, unknown>)[k] !== undefined).map((k) => [k, (r as Record<string, unknown>)[k]]))
    )

  const agrees = <W extends Schema.Struct.Fields, F extends Schema.Struct.Fields>(name: string, wire: Schema.Struct<W>, file: Schema.Struct<F>) =>
    it(`${name}: gives what decoding and encoding give, on generated records`, () => {
      const transcode = S.transcodeRecords(wire, file)
      expect(transcode).toBeDefined()
      const encodeWire = Schema.encodeSync(Schema.Array(wire) as unknown as Schema.Schema<unknown, ReadonlyArray<unknown>>)
      fc.assert(
        fc.property(fc.array(Arbitrary.make(wire).map(withoutUndefined), { maxLength: 3 }), (records) => {
          const input = encodeWire(records)
          const expected = viaSchemas(wire, file, input)
          const out = transcode?.(structuredClone(input))
          expect(out).toBeDefined()
          expect(declaredOnly(Object.keys(file.fields), out ?? [])).toStrictEqual(expected)
        }),
        { numRuns: 30 }
      )
    })
  agrees("Log → LogFileRow (hex to decimal)", S.Log, S.LogFileRow)
  agrees("NormalTransaction", S.NormalTransaction, S.NormalTransaction)
  agrees("InternalTransaction", S.InternalTransaction, S.InternalTransaction)
  agrees("Erc20Transfer", S.Erc20Transfer, S.Erc20Transfer)
  agrees("Erc721Transfer", S.Erc721Transfer, S.Erc721Transfer)
  agrees("Erc1155Transfer", S.Erc1155Transfer, S.Erc1155Transfer)

  const log = (i: number): Record<string, unknown> => ({
    address: address(i),
    topics: [`0x${"ab".repeat(32)}`],
    data: "0x",
    blockNumber: "0x1a",
    timeStamp: "0x5f5e100",
    gasPrice: "0x",
    gasUsed: "0x5208",
    logIndex: "0x",
    transactionHash: `0x${"cd".repeat(32)}`,
    transactionIndex: "0x1",
    extra: "kept"
  })

  it("rewrites the differing fields in place and keeps undeclared keys", () => {
    const input = [log(1)]
    const out = S.transcodeRecords(S.Log, S.LogFileRow)?.(input)
    expect(out).toBe(input)
    expect(out?.[0]).toMatchObject({ blockNumber: "26", timeStamp: "100000000", gasPrice: "0", gasUsed: "21000", logIndex: "0", transactionIndex: "1", extra: "kept" })
  })

  it("writes hex amounts of any length in exact decimal (through a number up to 13 digits, a bigint past)", () => {
    for (const digits of [1, 12, 13, 14, 15, 64]) {
      const gasPrice = "0x" + "f".repeat(digits)
      const out = S.transcodeRecords(S.Log, S.LogFileRow)?.([{ ...log(1), gasPrice, blockNumber: "0x1fffffffffffff" }])
      expect(out?.[0]?.gasPrice).toBe(BigInt(gasPrice).toString())
      expect(out?.[0]?.blockNumber).toBe(String(Number.MAX_SAFE_INTEGER))
    }
    // a block number past 2^53 cannot be a number: the transcoder leaves it to the schemas, which refuse it
    expect(S.transcodeRecords(S.Log, S.LogFileRow)?.([{ ...log(1), blockNumber: "0x20000000000000" }])).toBeUndefined()
  })

  it("refuses exactly what the schemas refuse: a log with one code unit of any value in a hex field", () => {
    const decodeLogs = Schema.decodeUnknownEither(Schema.Array(S.Log))
    const hexKeys = ["address", "data", "blockNumber", "timeStamp", "gasPrice", "gasUsed", "logIndex", "transactionHash", "transactionIndex", "topics"] as const
    fc.assert(
      fc.property(fc.constantFrom(...hexKeys), fc.nat(200), fc.integer({ min: 0, max: 0xffff }), fc.boolean(), (key, i, code, replace) => {
        const record: Record<string, unknown> = { ...log(1), data: "0x" + "c0ffee".repeat(20) }
        const text = key === "topics" ? (record.topics as Array<string>)[0] as string : record[key] as string
        const at = i % (text.length + 1)
        const changed = text.slice(0, at) + String.fromCharCode(code) + text.slice(replace ? at + 1 : at)
        const input = [log(2), key === "topics" ? { ...record, topics: [changed] } : { ...record, [key]: changed }]
        const before = structuredClone(input)
        const out = S.transcodeRecords(S.Log, S.LogFileRow)?.(input)
        if (Either.isLeft(decodeLogs(before))) {
          expect(out).toBeUndefined()
          expect(input).toStrictEqual(before)
        } else {
          expect(declaredOnly(Object.keys(S.LogFileRow.fields), out ?? [])).toStrictEqual(viaSchemas(S.Log, S.LogFileRow, before))
        }
      }),
      { numRuns: 3000 }
    )
  })

  it("gives up on any invalid value, leaving the whole answer as it came (the schemas then report it)", () => {
    for (const [key, bad] of [["transactionHash", "0x12"], ["topics", ["0xzz"]], ["blockNumber", "0x01"], ["gasPrice", 7], ["data", "0xgg"]] as const) {
      const input = [log(1), { ...log(2), [key]: bad }]
      const before = structuredClone(input)
      expect(S.transcodeRecords(S.Log, S.LogFileRow)?.(input)).toBeUndefined()
      expect(input).toStrictEqual(before)
      expect(() => viaSchemas(S.Log, S.LogFileRow, input)).toThrow()
    }
    expect(S.transcodeRecords(S.Log, S.LogFileRow)?.([{ ...log(1), transactionHash: undefined }])).toBeUndefined()
    expect(S.transcodeRecords(S.Log, S.LogFileRow)?.({ not: "a list" })).toBeUndefined()
    expect(S.transcodeRecords(S.Log, S.LogFileRow)?.([null])).toBeUndefined()
  })

  it("an optional field the wire may leave out is left out of the file record too", () => {
    const { blockHash: _, ...noHash } = { ...log(1), blockHash: `0x${"ef".repeat(32)}` }
    const out = S.transcodeRecords(S.Log, S.LogFileRow)?.([noHash])
    expect(out?.[0]).not.toHaveProperty("blockHash")
  })

  it("is not offered when the file needs a field the wire lacks, or a kind it does not know", () => {
    expect(S.transcodeRecords(S.Log, Schema.Struct({ missing: S.DecimalInt }))).toBeUndefined()
    const WithDefault = Schema.Struct({ n: S.DecimalInt, m: Schema.optionalWith(S.DecimalInt, { default: () => 7 }) })
    expect(S.transcodeRecords(WithDefault, WithDefault)).toBeUndefined()
  })
})
