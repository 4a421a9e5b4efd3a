/**
 * The file formats: columns from the record schema, CSV and JSONL round-trips, RFC 4180 quoting of the
 * token names users cannot trust, the formula guard, topics, bigints, nulls and the chainid column, and
 * each row's own line cut out of csv-stringify's text.
 */
import { describe, expect, it } from "@effect/vitest"
import { parse } from "csv-parse/sync"
import { stringify } from "csv-stringify/sync"
import { Effect, Either, FastCheck as fc, Schema } from "effect"
import * as Csv from "../../src/sinks/Csv.js"
import * as Format from "../../src/sinks/Format.js"
import { names, rowsBetween, type Transfer, Transfer as TransferSchema } from "./fixtures/synthetic.js"

const oracle = rowsBetween(1, 120)

/** Parses CSV text into header + records of strings (csv-parse, RFC 4180). */
const parseCsv = (text: string): { header: Array<string>; records: Array<Array<string>> } => {
  const all = parse(text, { relax_column_count: false }) as Array<Array<string>>
  const [header, ...records] = all
  return { header: header ?? [], records }
}

/** Rebuilds a record's encoded form from its CSV cells (the inverse of the CSV layout, guard off). */
const fromCells = (header: ReadonlyArray<string>, cells: ReadonlyArray<string>): Record<string, unknown> => {
  const get = (column: string) => cells[header.indexOf(column)] as string
  const topics: Array<string> = []
  for (let i = 0; i < 4; i++) {
    const t = get(`topic${i}`)
    if (t !== "") topics.push(t)
  }
  return {
    blockNumber: get("blockNumber"),
    hash: get("hash"),
    tokenName: get("tokenName"),
    value: get("value"),
    topics,
    isError: get("isError"),
    confirmations: Number(get("confirmations")),
    ...(get("blockHash") === "" ? {} : { blockHash: get("blockHash") }),
    note: get("note") === "" ? null : get("note"),
    data: get("data")
  }
}

describe("columns", () => {
  it.effect("follow the encoded side's field order, topics expanded to topic0..topic3 in CSV", () =>
    Effect.gen(function*() {
      const csv = yield* Format.encoder(TransferSchema, { format: "csv" })
      expect(csv.columns).toEqual([
        "blockNumber", "hash", "tokenName", "value", "topic0", "topic1", "topic2", "topic3",
        "isError", "confirmations", "blockHash", "note", "data"
      ])
      expect(csv.header).toBe(csv.columns.join(",") + "\n")
      const jsonl = yield* Format.encoder(TransferSchema, { format: "jsonl" })
      expect(jsonl.columns).toEqual([
        "blockNumber", "hash", "tokenName", "value", "topics", "isError", "confirmations", "blockHash", "note", "data"
      ])
      expect(jsonl.header).toBe("")
    }))

  it.effect("come from a Schema.Class and from a transformed struct too", () =>
    Effect.gen(function*() {
      class Row extends Schema.Class<Row>("Row")({ b: Schema.NumberFromString, a: Schema.String }) {}
      expect((yield* Format.encoder(Row, { format: "csv" })).columns).toEqual(["b", "a"])
      const Renamed = Schema.Struct({ x: Schema.String, y: Schema.NumberFromString }).pipe(
        Schema.rename({ x: "renamedX" })
      )
      expect((yield* Format.encoder(Renamed, { format: "csv" })).columns).toEqual(["x", "y"])
    }))

  it.effect("put chainid first when rows carry their chain", () =>
    Effect.gen(function*() {
      const csv = yield* Format.encoder(TransferSchema, { format: "csv", chainIdOf: () => 137 })
      expect(csv.columns[0]).toBe("chainid")
      const text = yield* csv.encode(oracle.slice(0, 2))
      for (const record of parseCsv(csv.header + text).records) expect(record[0]).toBe("137")
      const jsonl = yield* Format.encoder(TransferSchema, { format: "jsonl", chainIdOf: () => 10 })
      const line = (yield* jsonl.encode(oracle.slice(0, 1))).split("\n")[0] as string
      expect(Object.keys(JSON.parse(line))[0]).toBe("chainid")
      expect(JSON.parse(line).chainid).toBe(10)
    }))

  it.effect("refuse a schema whose encoded side is not a struct", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Format.encoder(Schema.NumberFromString, { format: "csv" }))
      expect(error._tag).toBe("SinkError")
      expect(error.reason).toBe("InvalidInput")
    }))

  it.effect("follow the file name's extension, and refuse an unknown one", () =>
    Effect.gen(function*() {
      expect(yield* Format.formatOf("a/b.CSV")).toBe("csv")
      expect(yield* Format.formatOf("b.jsonl")).toBe("jsonl")
      expect(yield* Format.formatOf("b.ndjson")).toBe("jsonl")
      expect(yield* Format.formatOf("b.txt", "csv")).toBe("csv")
      const error = yield* Effect.flip(Format.formatOf("b.txt"))
      expect(error.reason).toBe("InvalidInput")
    }))
})

describe("CSV", () => {
  it.effect("round-trips through csv-parse and the record schema (guard off)", () =>
    Effect.gen(function*() {
      const csv = yield* Format.encoder(TransferSchema, { format: "csv", formulaGuard: false })
      const text = csv.header + (yield* csv.encode(oracle))
      const { header, records } = parseCsv(text)
      expect(header).toEqual(csv.columns)
      expect(records.length).toBe(oracle.length)
      const decoded = records.map((cells) => Schema.decodeUnknownSync(TransferSchema)(fromCells(header, cells)))
      expect(decoded).toEqual(oracle)
    }))

  it.effect("quotes commas, quotes, CR and LF per RFC 4180, and leaves unicode as it is", () =>
    Effect.gen(function*() {
      const csv = yield* Format.encoder(Schema.Struct({ tokenName: Schema.String, symbol: Schema.String }), {
        format: "csv"
      })
      const rows = [
        { tokenName: "Comma, Inc", symbol: "C,C" },
        { tokenName: "Quote \"Q\" Coin", symbol: "\"" },
        { tokenName: "Line\nBreak", symbol: "CR\rOnly" },
        { tokenName: "Ünïcødé 🚀 代币", symbol: "plain" }
      ]
      const text = yield* csv.encode(rows)
      expect(text).toBe(
        "\"Comma, Inc\",\"C,C\"\n" +
          "\"Quote \"\"Q\"\" Coin\",\"\"\"\"\n" +
          "\"Line\nBreak\",\"CR\rOnly\"\n" +
          "Ünïcødé 🚀 代币,plain\n"
      )
      const { records } = parseCsv(csv.header + text)
      expect(records).toEqual(rows.map((r) => [r.tokenName, r.symbol]))
    }))

  it.effect("guards formula starters by default and keeps the rest of the cell whole", () =>
    Effect.gen(function*() {
      const Row = Schema.Struct({ name: Schema.String, amount: Schema.Number, raw: Schema.BigIntFromSelf })
      const guarded = yield* Format.encoder(Row, { format: "csv" })
      const rows = names.map((name) => ({ name, amount: -5, raw: -7n }))
      const { records } = parseCsv(guarded.header + (yield* guarded.encode(rows)))
      records.forEach((cells, i) => {
        const name = names[i] as string
        const starter = name.length > 0 && ["=", "+", "-", "@", "\t", "\r"].includes(name[0] as string)
        expect(cells[0]).toBe(starter ? `'${name}` : name)
        // Numbers are not text: never prefixed.
        expect(cells[1]).toBe("-5")
        expect(cells[2]).toBe("-7")
      })
      expect(records.map((r) => r[0])).toContain("'=HYPERLINK(\"http://evil\",\"x\")")
      expect(records.map((r) => r[0])).toContain("'\tTabbed")
      expect(records.map((r) => r[0])).toContain("'Already quoted")

      const open = yield* Format.encoder(Row, { format: "csv", formulaGuard: false })
      const plain = parseCsv(open.header + (yield* open.encode(rows))).records
      expect(plain.map((r) => r[0])).toEqual(names)
    }))

  it("writes records byte for byte as csv-stringify does, line by line (property)", () => {
    // Cells as exports hold them (hex, numbers, addresses: plain text) mixed with text to quote or
    // guard, numbers, bigints and flags, and what only csv-stringify writes (dates, arrays, objects).
    const cell = fc.oneof(
      { weight: 6, arbitrary: fc.stringMatching(/^[0-9a-zA-Z_.]{0,12}$/) },
      { weight: 3, arbitrary: fc.string({ unit: fc.constantFrom("a", "0", ".", ",", "\"", "\n", "\r", "\t", "=", "+", "-", "@", " ", "'", "é", "＝") }) },
      { weight: 2, arbitrary: fc.oneof(fc.double(), fc.integer(), fc.bigInt(), fc.boolean(), fc.constantFrom(1e21, -1e22, -0, Number.NaN)) },
      { weight: 1, arbitrary: fc.constantFrom(undefined, null, "", -5, 0.5, 12n, true, false, ["x", "y,z"], { a: 1 }, new Date(0)) }
    )
    const record = fc.array(cell, { minLength: 1, maxLength: 6 })
    fc.assert(
      fc.property(fc.array(record, { maxLength: 12 }), fc.constantFrom(undefined, 0, 1), (records, guardFrom) => {
        const options = Csv.csvOptions(guardFrom)
        const lines = Csv.csvWriter(guardFrom)(records)
        expect(lines.join("")).toBe(stringify(records, options))
        expect(lines).toEqual(records.map((record) => stringify([record], options)))
      }),
      { numRuns: 2000 }
    )
  })

  it("guardFormula prefixes exactly = + - @ tab CR", () => {
    expect(["=1", "+1", "-1", "@a", "\tx", "\rx"].map(Format.guardFormula)).toEqual(
      ["'=1", "'+1", "'-1", "'@a", "'\tx", "'\rx"]
    )
    expect(["", "a=1", " =1", "'x", "\n=1", "0x12", "ＡＢ"].map(Format.guardFormula)).toEqual(
      ["", "a=1", " =1", "'x", "\n=1", "0x12", "ＡＢ"]
    )
  })

  it.effect("writes topics as topic0..topic3 (missing ones empty), bigints exactly, null and absent as empty", () =>
    Effect.gen(function*() {
      const csv = yield* Format.encoder(TransferSchema, { format: "csv" })
      const big = 2n ** 200n + 1n
      const row: Transfer = {
        blockNumber: 7,
        hash: "0x01",
        tokenName: "T",
        value: big,
        topics: ["0xaa", "0xbb"],
        isError: true,
        confirmations: 12,
        note: null,
        data: "0x"
      }
      const text = yield* csv.encode([row])
      expect(text).toBe(`7,0x01,T,${big.toString()},0xaa,0xbb,,,1,12,,,0x\n`)
      expect(big.toString()).toBe("1606938044258990275541962092341162602522202993782792835301377")
    }))

  it.effect("writes other arrays and objects as JSON text, booleans as true/false", () =>
    Effect.gen(function*() {
      const Row = Schema.Struct({ tags: Schema.Array(Schema.String), meta: Schema.Struct({ a: Schema.Number }), ok: Schema.Boolean })
      const csv = yield* Format.encoder(Row, { format: "csv" })
      const text = yield* csv.encode([{ tags: ["x", "y"], meta: { a: 1 }, ok: false }])
      expect(parseCsv(csv.header + text).records).toEqual([["[\"x\",\"y\"]", "{\"a\":1}", "false"]])
    }))

  it.effect("guards text only: not the chain id, numbers or bigints; JSON text too; not the full-width starters", () =>
    Effect.gen(function*() {
      const Row = Schema.Struct({
        name: Schema.String,
        amount: Schema.Number,
        meta: Schema.Array(Schema.String),
        raw: Schema.BigIntFromSelf,
        at: Schema.DateFromSelf,
        flag: Schema.Boolean
      })
      const csv = yield* Format.encoder(Row, { format: "csv", chainIdOf: () => -1 })
      const text = yield* csv.encode([
        { name: "=1,2", amount: -1e21, meta: ["-x"], raw: -5n, at: new Date(Date.UTC(2024, 1, 29, 12)), flag: true },
        { name: "＝SUM(A1)", amount: 0.5, meta: [], raw: 0n, at: new Date(0), flag: false },
        { name: "\r=x", amount: Number.NaN, meta: ["a,\"b\""], raw: 1n, at: new Date(0), flag: false }
      ])
      expect(text).toBe(
        "-1,\"'=1,2\",-1000000000000000000000,\"[\"\"-x\"\"]\",-5,2024-02-29T12:00:00.000Z,true\n" +
          "-1,＝SUM(A1),0.5,[],0,1970-01-01T00:00:00.000Z,false\n" +
          // The JSON text ["a,\"b\""], its quotes doubled.
          String.raw`-1,"'` + "\r" + String.raw`=x",NaN,"[""a,\""b\""""]",1,1970-01-01T00:00:00.000Z,false` + "\n"
      )
    }))

  it.effect("fails the chunk with a typed error on a value no cell can hold, instead of throwing", () =>
    Effect.gen(function*() {
      const csv = yield* Format.encoder(Schema.Struct({ a: Schema.Unknown }), { format: "csv" })
      const error = yield* Effect.flip(csv.encode([{ a: "fine" }, { a: () => 1 }]))
      expect(error._tag).toBe("SinkError")
      expect(error.reason).toBe("Encode")
      expect(Either.isLeft(csv.lines([{ a: Symbol("s") }]))).toBe(true)
    }))

  it.effect("refuses more than four topics instead of dropping one", () =>
    Effect.gen(function*() {
      const csv = yield* Format.encoder(Schema.Struct({ topics: Schema.Array(Schema.String) }), { format: "csv" })
      const error = yield* Effect.flip(csv.encode([{ topics: ["1", "2", "3", "4", "5"] }]))
      expect(error.reason).toBe("Encode")
    }))

  it.effect("fails with a typed error on a record that does not encode", () =>
    Effect.gen(function*() {
      const csv = yield* Format.encoder(Schema.Struct({ n: Schema.NumberFromString.pipe(Schema.int()) }), {
        format: "csv"
      })
      const error = yield* Effect.flip(csv.encode([{ n: 1.5 }]))
      expect(error.reason).toBe("Encode")
    }))
})

describe("JSONL", () => {
  it.effect("round-trips through JSON.parse and the record schema", () =>
    Effect.gen(function*() {
      const jsonl = yield* Format.encoder(TransferSchema, { format: "jsonl" })
      const text = yield* jsonl.encode(oracle)
      expect(text.endsWith("\n")).toBe(true)
      const lines = text.split("\n").slice(0, -1)
      expect(lines.length).toBe(oracle.length)
      const decoded = lines.map((line) => Schema.decodeUnknownSync(TransferSchema)(JSON.parse(line)))
      expect(decoded).toEqual(oracle)
    }))

  it.effect("keeps topics as an array, bigints as exact strings, null as null, absent keys absent", () =>
    Effect.gen(function*() {
      const jsonl = yield* Format.encoder(TransferSchema, { format: "jsonl" })
      const big = 10n ** 40n + 3n
      const text = yield* jsonl.encode([{
        blockNumber: 1,
        hash: "0x1",
        tokenName: "Line\nBreak \"q\" 🚀",
        value: big,
        topics: ["0xaa"],
        isError: false,
        confirmations: 3,
        note: null,
        data: "0x"
      }])
      expect(text.split("\n").length).toBe(2)
      const parsed = JSON.parse(text)
      expect(parsed).toEqual({
        blockNumber: "1",
        hash: "0x1",
        tokenName: "Line\nBreak \"q\" 🚀",
        value: big.toString(),
        topics: ["0xaa"],
        isError: "0",
        confirmations: 3,
        note: null,
        data: "0x"
      })
      expect("blockHash" in parsed).toBe(false)
    }))

  it.effect("writes a bigint left on the encoded side as an exact decimal string", () =>
    Effect.gen(function*() {
      const Row = Schema.Struct({ raw: Schema.BigIntFromSelf, nested: Schema.Array(Schema.BigIntFromSelf) })
      const jsonl = yield* Format.encoder(Row, { format: "jsonl" })
      const text = yield* jsonl.encode([{ raw: 2n ** 70n, nested: [2n ** 65n] }])
      expect(JSON.parse(text)).toEqual({ raw: (2n ** 70n).toString(), nested: [(2n ** 65n).toString()] })
      expect(Either.isRight(Schema.decodeUnknownEither(Schema.Struct({ raw: Schema.BigInt }))(JSON.parse(text)))).toBe(true)
    }))
})

describe("lines (a row's text on its own)", () => {
  it.effect("JSONL objects (Parquet's rows) are what JSON.parse reads back from the lines, without the text", () =>
    Effect.gen(function*() {
      for (const chainIdOf of [undefined, () => 137]) {
        const jsonl = yield* Format.encoder(TransferSchema, { format: "jsonl", chainIdOf })
        const objects = jsonl.objects
        expect(objects).toBeDefined()
        if (objects === undefined) return
        expect(Either.getOrThrow(objects(oracle))).toEqual(Either.getOrThrow(jsonl.lines(oracle)).map((l) => JSON.parse(l)))
      }
      // Values JSON writes its own way: nested bigints, -0, NaN, dates, functions (left out), escapes.
      const Odd = Schema.Struct({
        big: Schema.BigIntFromSelf,
        nested: Schema.Unknown,
        zero: Schema.Number,
        nan: Schema.Number,
        when: Schema.Unknown,
        f: Schema.Unknown,
        text: Schema.String,
        list: Schema.Array(Schema.String)
      })
      const odd = yield* Format.encoder(Odd, { format: "jsonl" })
      const rows = [{
        big: 2n ** 70n, nested: { a: [1n, { b: 2n ** 65n }], c: null }, zero: -0, nan: Number.NaN,
        when: new Date(0), f: () => 1, text: "q\"\n\u2028🚀", list: ["0xaa", "b\"c"]
      }]
      const read = Either.getOrThrow(odd.lines(rows)).map((l) => JSON.parse(l) as unknown)
      const built = odd.objects === undefined ? [] : Either.getOrThrow(odd.objects(rows))
      expect(built).toEqual(read)
      expect(built[0]).not.toHaveProperty("f")
      expect(Object.is((built[0] as { zero: number }).zero, 0)).toBe(true)
      // CSV has no objects: its rows are text.
      expect((yield* Format.encoder(TransferSchema, { format: "csv" })).objects).toBeUndefined()
    }))

  it.effect("joined, the lines are the encoded text, in both formats, with and without the chainid column", () =>
    Effect.gen(function*() {
      const encoded = oracle.map((row) => Schema.encodeSync(TransferSchema)(row))
      for (const format of ["csv", "jsonl"] as const) {
        for (const chainIdOf of [undefined, () => 137]) {
          const decodedSide = yield* Format.encoder(TransferSchema, { format, chainIdOf })
          const lines = Either.getOrThrow(decodedSide.lines(oracle))
          expect(lines.length).toBe(oracle.length)
          for (const line of lines) expect(line.endsWith("\n")).toBe(true)
          expect(lines.join("")).toBe(yield* decodedSide.encode(oracle))
        }
        const encodedSide = yield* Format.encodedEncoder(TransferSchema, { format })
        expect(Either.getOrThrow(encodedSide.lines(encoded)).join("")).toBe(yield* encodedSide.encode(encoded))
      }
    }))

  it.effect("CSV: a line ends at its record's LF, never at an LF or CR inside a quoted cell", () =>
    Effect.gen(function*() {
      const csv = yield* Format.encoder(Schema.Struct({ a: Schema.String, b: Schema.String }), { format: "csv" })
      const rows = [
        { a: "one\ntwo", b: "\"q\"\n" },
        { a: "", b: "" },
        { a: "\n", b: "\"" },
        { a: "x\r\ny", b: "=\n" },
        { a: "plain", b: "end" }
      ]
      const lines = Either.getOrThrow(csv.lines(rows))
      expect(lines).toEqual([
        "\"one\ntwo\",\"\"\"q\"\"\n\"\n",
        ",\n",
        "\"\n\",\"\"\"\"\n",
        "\"x\r\ny\",\"'=\n\"\n",
        "plain,end\n"
      ])
      expect(lines.join("")).toBe(yield* csv.encode(rows))
      expect(parseCsv(csv.header + lines.join("")).records).toEqual([
        ["one\ntwo", "\"q\"\n"],
        ["", ""],
        ["\n", "\""],
        ["x\r\ny", "'=\n"],
        ["plain", "end"]
      ])
      expect(Either.getOrThrow(csv.lines([]))).toEqual([])
    }))

  it.effect("fails with the same typed error as encode", () =>
    Effect.gen(function*() {
      const csv = yield* Format.encoder(Schema.Struct({ topics: Schema.Array(Schema.String) }), { format: "csv" })
      const failed = csv.lines([{ topics: ["1"] }, { topics: ["1", "2", "3", "4", "5"] }])
      expect(Either.isLeft(failed) && failed.left.reason).toBe("Encode")
    }))
})
