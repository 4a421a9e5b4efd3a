/**
 * The Parquet writer, proved by a real DuckDB reading the files back: column types, exact values (uint256
 * amounts byte for byte), row counts, statistics; a file written across a "kill" (writer dropped, torn
 * bytes after the committed length) and a resume equals, byte for byte, the file written in one go;
 * empty files; many row groups; the bytes hyparquet-writer's own ParquetWriter writes.
 */
import { type DuckDBConnection, DuckDBInstance, type Json } from "@duckdb/node-api"
import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { ByteWriter } from "hyparquet-writer/src/bytewriter.js"
import { ParquetWriter as HyparquetWriter } from "hyparquet-writer/src/parquet-writer.js"
import { Erc20Transfer, NormalTransaction } from "../../src/schemas/account.js"
import { LogFileRow } from "../../src/schemas/logs.js"
import { TopHolder } from "../../src/schemas/token.js"
import { schemaElementOf } from "../../src/sinks/internal-parquet/columns.js"
import * as Parquet from "../../src/sinks/Parquet.js"

// ---------------------------------------------------------------------------------------------------------
// Oracle rows and DuckDB

const hex = (n: number | bigint, width: number): string => n.toString(16).padStart(width, "0")
const uint256Max = 2n ** 256n - 1n
/** Amounts around every limit a reader could trip on: int64, uint64, int128, uint256. */
const amounts = ["0", "1", String(2n ** 63n - 1n), String(2n ** 63n), String(2n ** 64n), String(2n ** 127n), String(uint256Max)]
const tokenNames = ["Plain Token", "Comma, \"Quoted\"", "Ünïcødé 🚀 代币", "=SUM(A1)", ""]

/** The encoded form of an ERC-20 transfer, as the client hands it to a file (methodId absent on some). */
const transfer = (i: number): Erc20Transfer.Encoded => {
  const block = 18_000_000 + Math.floor(i / 3)
  return {
    blockNumber: String(block),
    timeStamp: String(1_700_000_000 + (block - 18_000_000) * 12),
    hash: "0x" + hex(BigInt(i) * 0x9e3779b97f4a7c15n, 64),
    nonce: String(i % 977),
    blockHash: "0x" + hex(BigInt(block) * 0x51ed27n, 64),
    from: "0x" + hex((i * 7919) % 65_521, 40),
    contractAddress: "0x" + hex(i % 3, 40),
    to: "0x" + hex((i * 104_729) % 65_537, 40),
    value: amounts[i % amounts.length] as string,
    tokenName: tokenNames[i % tokenNames.length] as string,
    tokenSymbol: `TK${i % 3}`,
    tokenDecimal: "18",
    transactionIndex: String(i % 150),
    gas: String(21_000 + i),
    gasPrice: String(uint256Max - BigInt(i)),
    gasUsed: String(21_000 + (i % 1000)),
    cumulativeGasUsed: String(1_000_000 + i),
    input: "deprecated",
    ...(i % 4 === 0 ? {} : { methodId: "0xa9059cbb", functionName: "transfer(address,uint256)" }),
    confirmations: String(1000 - (i % 1000))
  }
}
const transfers = (from: number, to: number): Array<Erc20Transfer.Encoded> =>
  Array.from({ length: to - from }, (_, k) => transfer(from + k))

type Rows = ReadonlyArray<Record<string, Json>>

/** A DuckDB connection for the test's scope. */
const duckdb = Effect.acquireRelease(
  Effect.promise(() => DuckDBInstance.create(":memory:", { threads: "1" }).then((db) => db.connect())),
  (connection) => Effect.sync(() => connection.closeSync())
)
const query = (connection: DuckDBConnection, sql: string): Effect.Effect<Rows> =>
  Effect.promise(() => connection.runAndReadAll(sql)).pipe(Effect.map((reader) => reader.getRowObjectsJson()))
const describeTypes = (connection: DuckDBConnection, file: string) =>
  query(connection, `DESCRIBE SELECT * FROM read_parquet('${file}')`).pipe(
    Effect.map((rows) => Object.fromEntries(rows.map((r) => [r["column_name"], r["column_type"]])))
  )

/** Writes `groups` as row groups (each its own call) and finishes: the file's summary and last state. */
const writeFile = (file: string, columns: ReadonlyArray<Parquet.Column>, groups: ReadonlyArray<ReadonlyArray<Parquet.Row>>) =>
  Effect.gen(function*() {
    const writer = yield* Parquet.open(file, columns)
    for (const group of groups) yield* writer.writeRowGroup(group)
    return yield* writer.finish
  }).pipe(Effect.scoped)

const chunked = <A>(rows: ReadonlyArray<A>, size: number): Array<ReadonlyArray<A>> =>
  Array.from({ length: Math.ceil(rows.length / size) }, (_, k) => rows.slice(k * size, (k + 1) * size))

const tempFolder = Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped({ prefix: "parquet-" }))

// ---------------------------------------------------------------------------------------------------------

describe("columnsOf", () => {
  it("types the library's records from their schemas", () => {
    const byName = (columns: ReadonlyArray<Parquet.Column>) => Object.fromEntries(columns.map((c) => [c.name, c.type]))
    const erc20 = Either.getOrThrow(Parquet.columnsOf(Erc20Transfer))
    expect(erc20.map((c) => c.name)).toEqual(Object.keys(Erc20Transfer.fields))
    expect(byName(erc20)).toMatchObject({
      blockNumber: "int64", timeStamp: "timestamp", hash: "string", nonce: "int64", from: "string", value: "decimalString",
      gasPrice: "decimalString", tokenDecimal: "int64", methodId: "string", confirmations: "int64"
    })
    const logs = Either.getOrThrow(Parquet.columnsOf(LogFileRow))
    expect(logs.slice(0, 5)).toEqual([
      { name: "address", type: "string" },
      ...[0, 1, 2, 3].map((i) => ({ name: `topic${i}`, type: "string", field: "topics", index: i }))
    ])
    const normal = Either.getOrThrow(Parquet.columnsOf(NormalTransaction))
    expect(normal.filter((c) => c.emptyAsNull === true).map((c) => c.name)).toEqual(["blockHash", "to", "contractAddress"])
    expect(byName(normal)).toMatchObject({ nonce: "int64", txreceipt_status: "bool", isError: "bool" })
    // The built-in table: a quantity already divided by the decimals, sent as text.
    expect(byName(Either.getOrThrow(Parquet.columnsOf(TopHolder)))).toEqual({
      TokenHolderAddress: "string", TokenHolderQuantity: "decimalString", TokenHolderAddressType: "string"
    })
  })

  it("adds float companions, a chain id column and overrides on request; reads a Schema.Class; refuses a non-struct", () => {
    const columns = Either.getOrThrow(
      Parquet.columnsOf(Erc20Transfer, { floats: true, chainId: true, overrides: { gas: "int64" } })
    )
    expect(columns[0]).toEqual({ name: "chainid", type: "int64" })
    expect(columns.find((c) => c.name === "gas")).toEqual({ name: "gas", type: "int64" })
    expect(columns.filter((c) => c.type === "float64").map((c) => c.name)).toEqual([
      "value_float", "gasPrice_float", "gasUsed_float", "cumulativeGasUsed_float"
    ])
    class Row extends Schema.Class<Row>("Row")({
      block: Schema.Int,
      price: Schema.NumberFromString,
      amount: Schema.BigInt,
      ok: Schema.Boolean
    }) {}
    expect(Either.getOrThrow(Parquet.columnsOf(Row))).toEqual([
      { name: "block", type: "int64" },
      { name: "price", type: "float64" },
      { name: "amount", type: "decimalString" },
      { name: "ok", type: "bool" }
    ])
    const refused = Parquet.columnsOf(Schema.String)
    expect(Either.isLeft(refused) && refused.left.reason).toBe("InvalidInput")
  })
})

describe("files DuckDB reads", () => {
  it.scoped("every column with its type and exact value, in several row groups", () =>
    Effect.gen(function*() {
      const folder = yield* tempFolder
      const file = `${folder}/transfers.parquet`
      const columns = yield* Parquet.columnsOf(Erc20Transfer, { floats: true })
      const rows = transfers(0, 250)
      const done = yield* writeFile(file, columns, chunked(rows, 100))
      expect(done).toMatchObject({ rows: 250, rowGroups: 3 })
      const db = yield* duckdb
      expect(yield* describeTypes(db, file)).toMatchObject({
        blockNumber: "BIGINT", timeStamp: "TIMESTAMP WITH TIME ZONE", hash: "VARCHAR", nonce: "BIGINT", from: "VARCHAR",
        value: "VARCHAR", value_float: "DOUBLE", tokenName: "VARCHAR", tokenDecimal: "BIGINT", gasPrice: "VARCHAR",
        methodId: "VARCHAR", confirmations: "BIGINT"
      })
      const back = yield* query(
        db,
        `SELECT * EXCLUDE (timeStamp), epoch(timeStamp)::BIGINT AS seconds FROM read_parquet('${file}')`
      )
      expect(back.length).toBe(250)
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i] as Erc20Transfer.Encoded
        const got = back[i] as Record<string, Json>
        expect(got["value"]).toBe(row.value) // uint256 text, byte for byte
        expect(got["gasPrice"]).toBe(row.gasPrice)
        expect(String(got["seconds"])).toBe(row.timeStamp)
        expect(String(got["blockNumber"])).toBe(row.blockNumber)
        expect(got["tokenName"]).toBe(row.tokenName)
        expect(got["methodId"]).toBe(row.methodId ?? null)
        expect(got["value_float"]).toBe(Number(row.value))
      }
      const [stats] = yield* query(db, `SELECT count(*) AS n, count(methodId) AS withMethod FROM read_parquet('${file}')`)
      expect(stats).toEqual({ n: "250", withMethod: String(rows.filter((r) => r.methodId !== undefined).length) })
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("logs: topics in topic0..topic3, missing ones NULL; fields the API leaves empty are NULL", () =>
    Effect.gen(function*() {
      const folder = yield* tempFolder
      const logsFile = `${folder}/logs.parquet`
      const topic = (n: number) => "0x" + hex(n, 64)
      const logs: Array<typeof LogFileRow.Encoded> = [0, 1, 4].map((count, i) => ({
        address: "0x" + hex(i, 40),
        topics: Array.from({ length: count }, (_, t) => topic(t + 1)),
        data: i === 0 ? "0x" : "0x" + "ff".repeat(200),
        blockNumber: String(i),
        ...(i === 1 ? {} : { blockHash: topic(99) }),
        timeStamp: "0",
        gasPrice: String(uint256Max),
        gasUsed: "0",
        logIndex: String(i),
        transactionHash: topic(1000 + i),
        transactionIndex: "0"
      }))
      yield* writeFile(logsFile, yield* Parquet.columnsOf(LogFileRow), [logs])
      const db = yield* duckdb
      const back = yield* query(db, `SELECT topic0, topic3, data, blockHash, gasPrice FROM read_parquet('${logsFile}')`)
      expect(back).toEqual([
        { topic0: null, topic3: null, data: "0x", blockHash: topic(99), gasPrice: String(uint256Max) },
        { topic0: topic(1), topic3: null, data: "0x" + "ff".repeat(200), blockHash: null, gasPrice: String(uint256Max) },
        { topic0: topic(1), topic3: topic(4), data: "0x" + "ff".repeat(200), blockHash: topic(99), gasPrice: String(uint256Max) }
      ])

      const txFile = `${folder}/txs.parquet`
      const tx = (to: string, nonce: string, status: string, isError: string): NormalTransaction.Encoded => ({
        blockNumber: "1", blockHash: "", timeStamp: "1438269973", hash: "0x" + hex(1, 64), nonce, transactionIndex: "0",
        from: "GENESIS", to, value: "5000000000000000000000", gas: "0", gasPrice: "0", input: "", contractAddress: "",
        cumulativeGasUsed: "0", txreceipt_status: status, gasUsed: "0", confirmations: "1", isError
      })
      yield* writeFile(txFile, yield* Parquet.columnsOf(NormalTransaction), [[
        tx("", "", "", "0"),
        tx("0x" + hex(5, 40), "7", "1", "1")
      ]])
      expect(yield* query(db, `SELECT "to", nonce, txreceipt_status, isError, input, blockHash FROM read_parquet('${txFile}')`)).toEqual([
        { to: null, nonce: null, txreceipt_status: null, isError: false, input: "", blockHash: null },
        { to: "0x" + hex(5, 40), nonce: "7", txreceipt_status: true, isError: true, input: "", blockHash: null }
      ])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("zero rows: a valid file with its columns", () =>
    Effect.gen(function*() {
      const folder = yield* tempFolder
      const file = `${folder}/empty.parquet`
      const columns = yield* Parquet.columnsOf(Erc20Transfer)
      const writer = yield* Parquet.open(file, columns)
      expect(yield* writer.writeRowGroup([])).toEqual(Parquet.emptyState)
      expect(yield* writer.finish).toMatchObject({ rows: 0, rowGroups: 0 })
      const db = yield* duckdb
      expect(yield* query(db, `SELECT count(*) AS n FROM read_parquet('${file}')`)).toEqual([{ n: "0" }])
      expect(Object.keys(yield* describeTypes(db, file))).toEqual(columns.map((c) => c.name))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("100,000 rows in 1,000-row groups, with per-row-group statistics", () =>
    Effect.gen(function*() {
      const folder = yield* tempFolder
      const file = `${folder}/large.parquet`
      const columns: ReadonlyArray<Parquet.Column> = [
        { name: "blockNumber", type: "int64" },
        { name: "timeStamp", type: "timestamp" },
        { name: "from", type: "string" },
        { name: "value", type: "decimalString" },
        { name: "isError", type: "bool" }
      ]
      const writer = yield* Parquet.open(file, columns)
      for (let g = 0; g < 100; g++) {
        const rows = Array.from({ length: 1000 }, (_, k) => {
          const i = g * 1000 + k
          return {
            blockNumber: String(i),
            timeStamp: String(1_600_000_000 + i),
            from: "0x" + hex(i % 5000, 40),
            value: String(BigInt(i) * 10n ** 60n),
            isError: i % 10 === 0 ? "1" : "0"
          }
        })
        yield* writer.writeRowGroup(rows)
      }
      expect(yield* writer.finish).toMatchObject({ rows: 100_000, rowGroups: 100 })
      const db = yield* duckdb
      expect(yield* query(db, `SELECT count(*) AS n, sum(blockNumber) AS blocks, count(DISTINCT "from") AS senders,
        sum(isError::INT) AS errors, max(epoch(timeStamp))::BIGINT AS last FROM read_parquet('${file}')`)).toEqual([
        { n: "100000", blocks: String((99_999 * 100_000) / 2), senders: "5000", errors: "10000", last: "1600099999" }
      ])
      expect(yield* query(db, `SELECT value FROM read_parquet('${file}') WHERE blockNumber IN (0, 54321, 99999) ORDER BY blockNumber`))
        .toEqual([{ value: "0" }, { value: String(54_321n * 10n ** 60n) }, { value: String(99_999n * 10n ** 60n) }])
      const stats = yield* query(db, `SELECT row_group_id AS g, stats_min_value AS lo, stats_max_value AS hi
        FROM parquet_metadata('${file}') WHERE path_in_schema = 'blockNumber' AND row_group_id IN (0, 99) ORDER BY g`)
      expect(stats).toEqual([{ g: "0", lo: "0", hi: "999" }, { g: "99", lo: "99000", hi: "99999" }])
      expect(yield* query(db, `SELECT count(stats_min_value) AS n FROM parquet_metadata('${file}') WHERE path_in_schema = 'from'`))
        .toEqual([{ n: "0" }])
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("kill and resume", () => {
  it.scoped("a file resumed after a torn write equals the file written in one go, byte for byte", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const folder = yield* tempFolder
      const columns = yield* Parquet.columnsOf(Erc20Transfer, { floats: true })
      const groups = chunked(transfers(0, 700), 100)
      const whole = `${folder}/whole.parquet`
      const oneGo = yield* writeFile(whole, columns, groups)

      const partial = `${folder}/.resumed.parquet.partial`
      // First run: three row groups committed, a fourth torn; the writer is dropped unfinished.
      const checkpoint = yield* Effect.gen(function*() {
        const writer = yield* Parquet.open(partial, columns)
        for (const group of groups.slice(0, 3)) yield* writer.writeRowGroup(group)
        // What a checkpoint file holds: the durable state as JSON text.
        return JSON.stringify(yield* writer.sync)
      }).pipe(Effect.scoped)
      const committed = (yield* fs.stat(partial)).size
      yield* fs.writeFile(partial, new Uint8Array(5000).fill(0xab), { flag: "a" })
      expect((yield* fs.stat(partial)).size).toBe(committed + 5000n)

      // Second run: the checkpoint read back, the rest written, the footer at the end.
      const state = yield* Schema.decodeUnknown(Schema.parseJson(Parquet.State))(checkpoint)
      expect(state.bytes).toBe(Number(committed))
      expect(Parquet.rowsOf(state)).toBe(300)
      const resumed = yield* Effect.gen(function*() {
        const writer = yield* Parquet.open(partial, columns, { resume: state })
        for (const group of groups.slice(3)) yield* writer.writeRowGroup(group)
        return yield* writer.finish
      }).pipe(Effect.scoped)

      expect(resumed).toEqual(oneGo)
      expect(Buffer.compare(yield* fs.readFile(partial), yield* fs.readFile(whole))).toBe(0)
      const db = yield* duckdb
      const answers = (file: string) =>
        query(db, `SELECT count(*) AS n, count(DISTINCT hash) AS hashes, max(value) AS v, sum(value_float) AS f,
          string_agg(tokenName, '|' ORDER BY hash) AS names FROM read_parquet('${file}')`)
      expect(yield* answers(partial)).toEqual(yield* answers(whole))
      expect(yield* query(db, `SELECT * FROM read_parquet('${partial}') EXCEPT ALL SELECT * FROM read_parquet('${whole}')`)).toEqual([])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a finished file extends: a copy opened with the state finish returned takes more row groups", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const folder = yield* tempFolder
      const columns = yield* Parquet.columnsOf(Erc20Transfer)
      const groups = chunked(transfers(0, 500), 100)
      const whole = `${folder}/whole.parquet`
      yield* writeFile(whole, columns, groups)
      const published = `${folder}/published.parquet`
      const first = yield* writeFile(published, columns, groups.slice(0, 2))
      expect(first.state.bytes).toBeLessThan(first.bytes)

      const partial = `${folder}/.published.parquet.partial`
      yield* fs.copyFile(published, partial)
      const extended = yield* Effect.gen(function*() {
        const writer = yield* Parquet.open(partial, columns, { resume: first.state })
        for (const group of groups.slice(2)) yield* writer.writeRowGroup(group)
        return yield* writer.finish
      }).pipe(Effect.scoped)
      expect(extended).toMatchObject({ rows: 500, rowGroups: 5 })
      expect(Buffer.compare(yield* fs.readFile(partial), yield* fs.readFile(whole))).toBe(0)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a resume can start from the magic number alone and write the footer only", () =>
    Effect.gen(function*() {
      const folder = yield* tempFolder
      const file = `${folder}/.x.partial`
      const columns = yield* Parquet.columnsOf(LogFileRow)
      const first = yield* Parquet.open(file, columns).pipe(Effect.map((w) => w.state()), Effect.scoped)
      expect(first).toEqual(Parquet.emptyState)
      yield* Effect.flatMap(Parquet.open(file, columns, { resume: first }), (w) => w.finish).pipe(Effect.scoped)
      const db = yield* duckdb
      expect(yield* query(db, `SELECT count(*) AS n FROM read_parquet('${file}')`)).toEqual([{ n: "0" }])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("refuses a checkpoint that does not describe the file", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const folder = yield* tempFolder
      const file = `${folder}/.t.partial`
      const columns = yield* Parquet.columnsOf(Erc20Transfer)
      const state = yield* Effect.gen(function*() {
        const writer = yield* Parquet.open(file, columns)
        return yield* writer.writeRowGroup(transfers(0, 10))
      }).pipe(Effect.scoped)
      const reason = (resume: Parquet.State, cols: ReadonlyArray<Parquet.Column> = columns, path = file) =>
        Parquet.open(path, cols, { resume }).pipe(Effect.scoped, Effect.flip, Effect.map((e) => [e.reason, e.detail]))
      const [group] = state.rowGroups
      if (group === undefined) throw new Error("no row group")

      expect(yield* reason({ ...state, bytes: state.bytes + 1 })).toEqual([
        "StateMismatch", expect.stringContaining("the row groups end at byte")
      ])
      expect(yield* reason(state, columns.slice(1))).toEqual(["StateMismatch", expect.stringContaining("columns")])
      expect(yield* reason({ ...state, rowGroups: [{ ...group, offset: 5 }] })).toEqual([
        "StateMismatch", expect.stringContaining("starts at byte 5")
      ])
      const texts = columns.map((c) => ({ ...c, type: "string" as const }))
      expect(yield* reason(state, texts)).toEqual(["StateMismatch", expect.stringContaining("statistics unexpected")])
      // A shorter file (the checkpoint is of another file), then a file that is not Parquet.
      yield* fs.truncate(file, state.bytes - 1)
      expect(yield* reason(state)).toEqual(["StateMismatch", expect.stringContaining("fewer than")])
      const other = `${folder}/other`
      yield* fs.writeFile(other, new Uint8Array(state.bytes).fill(1))
      expect(yield* reason(state, columns, other)).toEqual(["StateMismatch", expect.stringContaining("PAR1")])
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("cells that do not fit", () => {
  it.scoped("fail with Encode before anything is written; the writer goes on; a finished writer refuses", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const folder = yield* tempFolder
      const file = `${folder}/bad.parquet`
      const columns: ReadonlyArray<Parquet.Column> = [
        { name: "block", type: "int64" },
        { name: "value", type: "decimalString" },
        { name: "flag", type: "bool" }
      ]
      const writer = yield* Parquet.open(file, columns)
      const good = { block: "1", value: "10", flag: "1" }
      const before = yield* writer.writeRowGroup([good])
      const failure = (row: Parquet.Row) => Effect.flip(writer.writeRowGroup([good, row]))
      expect(yield* failure({ ...good, value: "12e3" })).toMatchObject({
        reason: "Encode", detail: expect.stringContaining("row 1 of the row group, column value")
      })
      expect((yield* failure({ ...good, block: String(2n ** 63n) })).detail).toContain("64-bit")
      expect((yield* failure({ ...good, flag: "yes" })).detail).toContain("flag")
      expect((yield* fs.stat(file)).size).toBe(BigInt(before.bytes))
      // Hex is read as the getLogs writes it ("0x" is zero) and the amount is written in decimal.
      yield* writer.writeRowGroup([{ block: "0x1a", value: "0x", flag: true }, { block: 3, value: "0xff", flag: "false" }])
      yield* writer.finish
      expect((yield* Effect.flip(writer.writeRowGroup([good]))).detail).toContain("already finished")
      const db = yield* duckdb
      expect(yield* query(db, `SELECT * FROM read_parquet('${file}')`)).toEqual([
        { block: "1", value: "10", flag: true },
        { block: "26", value: "0", flag: true },
        { block: "3", value: "255", flag: false }
      ])
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("the encoding is hyparquet-writer's", () => {
  it.scoped("same bytes as its ParquetWriter for the same row groups (page indexes off)", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const folder = yield* tempFolder
      const file = `${folder}/same.parquet`
      const columns: ReadonlyArray<Parquet.Column> = [
        { name: "block", type: "int64" },
        { name: "time", type: "timestamp" },
        { name: "hash", type: "string" },
        { name: "note", type: "string" },
        { name: "amount", type: "decimalString" },
        { name: "amount_float", type: "float64", field: "amount" },
        { name: "ok", type: "bool" }
      ]
      const rows = Array.from({ length: 50 }, (_, i) => ({
        block: i % 7 === 0 ? "" : String(i - 20),
        time: String(1_700_000_000 + i),
        hash: i % 5 === 0 ? "" : "0x" + hex(i % 9, 64),
        // Unique values (plain pages, no dictionary), some not ASCII.
        note: i % 6 === 0 ? "" : `Ünïcødé 🚀 代币 ${i} ` + "x".repeat(i),
        amount: String(BigInt(i % 3) * 10n ** 30n),
        ok: i % 3 === 0 ? "1" : "0"
      }))
      const groups = chunked(rows, 20)
      // SNAPPY: hyparquet-writer's own compressor, as its ParquetWriter uses by default.
      yield* Effect.gen(function*() {
        const writer = yield* Parquet.open(file, columns, { codec: "SNAPPY" })
        for (const group of groups) yield* writer.writeRowGroup(group)
        yield* writer.finish
      }).pipe(Effect.scoped)

      const reference = new ByteWriter()
      const hyparquet = new HyparquetWriter({
        writer: reference,
        schema: [{ name: "root", num_children: columns.length }, ...columns.map(schemaElementOf)],
        createdBy: "explorer-etl (hyparquet-writer)",
        kvMetadata: [{ key: "explorer-etl.columns", value: JSON.stringify(columns.map(({ name, type }) => ({ name, type }))) }]
      })
      for (const group of groups) {
        const values = (pick: (row: (typeof rows)[number]) => unknown) => group.map(pick)
        const columnData = [
          { name: "block", data: values((r) => (r.block === "" ? null : BigInt(r.block))) },
          { name: "time", data: values((r) => BigInt(r.time) * 1000n) },
          { name: "hash", data: values((r) => r.hash), statistics: false },
          { name: "note", data: values((r) => r.note), statistics: false },
          { name: "amount", data: values((r) => r.amount), statistics: false },
          { name: "amount_float", data: values((r) => Number(r.amount)) },
          { name: "ok", data: values((r) => r.ok === "1") }
        ].map((c) => ({ ...c, offsetIndex: false }))
        yield* Effect.sync(() => hyparquet.write({ columnData, rowGroupSize: group.length }))
      }
      hyparquet.finish()
      expect(Buffer.from(yield* fs.readFile(file)).toString("hex")).toBe(Buffer.from(reference.getBytes()).toString("hex"))
    }).pipe(Effect.provide(NodeContext.layer)))
})
