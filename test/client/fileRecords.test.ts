/**
 * A list operation's records as a file writes them (internal/fileRecords.ts): the same request and errors
 * as the named method, the answer read a slice at a time whatever its text, the map's failure and torn
 * answers.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc, Metric, Schema } from "effect"
import * as Client from "../../src/ExplorerClient.js"
import { sliceSteps } from "../../src/internal/fileRecords.js"
import { textPieces } from "../../src/internal/textPieces.js"
import * as Schemas from "../../src/schemas/index.js"
import * as F from "./fixtures.js"
import { clientOn, driven, fakeHttp, ok } from "./helpers.js"

describe("fileRecords and fileRecordsMapped", () => {
  it.scoped("fileRecords: the records as a file writes them, the same request, the same errors", () =>
    driven(Effect.gen(function*() {
      const fake = fakeHttp((r) =>
        r.params.action === "getLogs"
          ? ok([F.log, { ...F.log, logIndex: "0x", gasPrice: "0x" }])
          : r.params.startblock === "13"
          ? ok([{ ...F.normalTransaction, hash: "0x12" }])
          : ok([F.normalTransaction, { ...F.normalTransaction, brandNewField: "42" }])
      )
      const client = yield* clientOn(fake)
      const encodeAs = <A, I>(row: Schema.Schema<A, I>, rows: ReadonlyArray<A>) => Schema.encodeSync(Schema.Array(row))(rows)
      const declared = (row: { readonly fields: object }, records: ReadonlyArray<object>) =>
        records.map((r) => Object.fromEntries(Object.keys(row.fields).flatMap((k) => (k in r ? [[k, (r as Record<string, unknown>)[k]]] : []))))

      const logs = yield* client.fileRecords("getLogs", { address: F.ADDRESS, fromBlock: 1, toBlock: 2 }, Schemas.LogFileRow)
      expect(declared(Schemas.LogFileRow, logs)).toStrictEqual(
        encodeAs(Schemas.LogFileRow, yield* client.getLogs({ address: F.ADDRESS, fromBlock: 1, toBlock: 2 }))
      )
      expect(logs[1]?.logIndex).toBe("0")
      const txs = yield* client.fileRecords("txlist", { address: F.ADDRESS }, Schemas.NormalTransaction)
      expect(declared(Schemas.NormalTransaction, txs)).toStrictEqual(
        encodeAs(Schemas.NormalTransaction, yield* client.txlist({ address: F.ADDRESS }))
      )
      // The same request as the method's, parameter for parameter.
      const [viaFile, viaMethod] = fake.seen.filter((r) => r.params.action === "getLogs")
      expect(viaFile?.params).toStrictEqual(viaMethod?.params)

      // A record that does not fit: the method's DecodeError, after one request.
      const before = fake.seen.length
      const bad = yield* Effect.flip(client.fileRecords("txlist", { address: F.ADDRESS, startBlock: 13 }, Schemas.NormalTransaction))
      expect(bad._tag === "DecodeError" && !bad.transient).toBe(true)
      expect(fake.seen.length).toBe(before + 1)
      // Bad input: refused before anything is sent.
      const refused = yield* Effect.flip(client.fileRecords("txlist", { address: "nope" }, Schemas.NormalTransaction))
      expect(refused._tag).toBe("InvalidInputError")
      expect(fake.seen.length).toBe(before + 1)
    })))

  it.live("a large answer is read without holding the event loop: a timer due meanwhile fires before its records are handed over", () =>
    Effect.scoped(Effect.gen(function*() {
      // 10,000 transactions, ~7 MB: a page of a paid plan, whose reading takes 100 ms or more. A page read in
      // one go holds every timer due meanwhile, the key's limiter among them (its next start is late).
      const page = ok(Array.from({ length: 10_000 }, (_, i) => ({ ...F.normalTransaction, blockNumber: String(100 + i) })))
      let fired = false
      const fake = fakeHttp(() => {
        setTimeout(() => void (fired = true), 0)
        return page
      })
      const client = yield* clientOn(fake, { plan: "standard" })
      const rows = yield* client.fileRecords("txlist", { address: F.ADDRESS }, Schemas.NormalTransaction)
      expect(rows.length).toBe(10_000)
      expect(fired).toBe(true)
    })))

  it.scoped("fileRecordsMapped: a large answer read a slice at a time gives fileRecords' records, whatever its text", () =>
    driven(Effect.gen(function*() {
      // ~2 MB of answer: many slices of ~48 KB.
      const many = (name: (i: number) => string) =>
        Array.from({ length: 3000 }, (_, i) => ({ ...F.normalTransaction, blockNumber: String(100 + i), functionName: name(i) }))
      const clean = many(() => "transfer(address to, uint256 value)")
      // Texts holding what a slice cut looks for, inside strings: a cut there must not split a record.
      const tricky = many((i) => (i % 5 === 0 ? "f(},{\"blockNumber\":\"1\"},{)" : "g(\\\"},{\\\")"))
      const bodies: Record<string, string> = {
        clean: JSON.stringify({ status: "1", message: "OK", result: clean }),
        tricky: JSON.stringify({ status: "1", message: "OK", result: tricky }),
        spaced: JSON.stringify({ status: "1", message: "OK", result: clean }, null, 1),
        legacy: JSON.stringify({ status: "1", message: "OK-Missing/Invalid API Key, rate limit of 1/5sec applied", result: clean })
      }
      const cases = [["clean", clean], ["tricky", tricky], ["spaced", clean], ["legacy", clean]] as const
      // The case is told by the start block asked for.
      const fake = fakeHttp((r) => ({ text: bodies[cases[Number(r.params.startblock)]?.[0] ?? ""] ?? "", contentType: "application/json" }))
      const client = yield* clientOn(fake)
      for (const [i, [name, expected]] of cases.entries()) {
        const params = { address: F.ADDRESS, startBlock: i }
        const slices: Array<number> = []
        const lines = yield* client.fileRecordsMapped("txlist", params, Schemas.NormalTransaction, (rows) => {
          slices.push(rows.length)
          return Either.right(rows.map((row) => `${row.blockNumber}:${row.functionName}`))
        })
        expect(lines).toStrictEqual(expected.map((row) => `${row.blockNumber}:${row.functionName}`))
        const records = yield* client.fileRecords("txlist", params, Schemas.NormalTransaction)
        expect(records.map((row) => `${row.blockNumber}:${row.functionName}`)).toStrictEqual(lines)
        // A plain list answer is read in slices. Read whole: pretty-printed text, and an answer whose slice
        // cut fell inside a text (the slice does not parse: the records are never split wrongly).
        if (name === "spaced" || name === "tricky") expect(slices).toStrictEqual([3000])
        else expect(slices.length).toBeGreaterThan(1)
      }
    })))

  it.scoped("a typed list call reads a plain list answer in slices too, with the records and errors of a whole read", () =>
    driven(Effect.gen(function*() {
      const records = Array.from({ length: 3000 }, (_, i) => ({ ...F.normalTransaction, blockNumber: String(100 + i) }))
      const bodies = [
        JSON.stringify({ status: "1", message: "OK", result: records }),
        // Read whole: pretty-printed, and a record the fast decoder refuses (the schema's error).
        JSON.stringify({ status: "1", message: "OK", result: records }, null, 1),
        JSON.stringify({ status: "1", message: "OK", result: records.map((r, i) => (i === 2500 ? { ...r, hash: "0x12" } : r)) }),
        JSON.stringify({ status: "0", message: "No transactions found", result: [] })
      ]
      const fake = fakeHttp((r) => ({ text: bodies[Number(r.params.startblock)] ?? "", contentType: "application/json" }))
      const client = yield* clientOn(fake, { retry: { times: 0 } })
      const sliced = Metric.value(Client.metrics.slicedAnswers)
      const read = (i: number) =>
        Effect.gen(function*() {
          const before = (yield* sliced).count
          const got = yield* Effect.either(client.txlist({ address: F.ADDRESS, startBlock: i }))
          return { got, sliced: (yield* sliced).count - before }
        })
      const plain = yield* read(0)
      expect(plain.sliced).toBe(1)
      const expected = Schema.decodeUnknownSync(Schema.Array(Schemas.NormalTransaction))(records)
      expect(plain.got).toStrictEqual(Either.right(expected))
      const spaced = yield* read(1)
      expect(spaced).toStrictEqual({ got: Either.right(expected), sliced: 0 })
      const bad = yield* read(2)
      expect(bad.sliced).toBe(0)
      expect(Either.isLeft(bad.got) && bad.got.left._tag).toBe("DecodeError")
      expect(yield* read(3)).toStrictEqual({ got: Either.right([]), sliced: 0 })
    })))

  it.scoped("fileRecordsMapped: an answer that arrives in pieces gives the same records in the same slices, however it is cut", () =>
    driven(Effect.gen(function*() {
      // Characters of 1 to 4 bytes in UTF-8 (a cut may fall inside one), and texts holding what a cut looks for.
      const names = ["transfer(address to, uint256 value)", "café €5", "g(\\\"},{\\\")", "🦄 mint", "f(},{)"]
      const records = (n: number, name: (i: number) => string) =>
        Array.from({ length: n }, (_, i) => ({ ...F.normalTransaction, blockNumber: String(100 + i), functionName: name(i) }))
      const bodies = {
        large: JSON.stringify({ status: "1", message: "OK", result: records(3000, (i) => names[i % 2] as string) }),
        tricky: JSON.stringify({ status: "1", message: "OK", result: records(3000, (i) => names[i % names.length] as string) }),
        small: JSON.stringify({ status: "1", message: "OK", result: records(20, (i) => names[i % 4] as string) }),
        spaced: JSON.stringify({ status: "1", message: "OK", result: records(20, (i) => names[i % 4] as string) }, null, 1),
        empty: JSON.stringify({ status: "1", message: "OK", result: [] }),
        // A byte-order mark before the answer (dropped, as response.text drops it), one inside a text (kept).
        marked: `\uFEFF${JSON.stringify({ status: "1", message: "OK", result: records(20, (i) => `\uFEFF${names[i % 4] as string}`) })}`,
        refused: JSON.stringify({ status: "0", message: "NOTOK", result: "Max calls per sec rate limit reached (2/sec)" })
      }
      // A seeded generator: the same cuts at every run.
      let seed = 7
      const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n
      // Cuts inside every `},{` of the body (after its `}`, then after its `,`, in turn).
      const insideCuts = (body: string) => {
        const bytes = new TextEncoder().encode(body)
        const lengths: Array<number> = []
        let last = 0
        for (let i = 0; i + 2 < bytes.length; i++) {
          if (bytes[i] === 125 && bytes[i + 1] === 44 && bytes[i + 2] === 123) {
            const at = i + 1 + (lengths.length % 2)
            lengths.push(at - last)
            last = at
          }
        }
        return [...lengths, bytes.length]
      }
      const cuttings = (body: string): Record<string, ReadonlyArray<number> | undefined> => ({
        whole: undefined,
        bytes: [1],
        uneven: [1, 2, 3, 5, 8, 13, 49_151, 49_152, 49_153, 65_536],
        random: Array.from({ length: 400 }, () => 1 + random(20_000)),
        inside: insideCuts(body)
      })
      let reply: { readonly body: string; readonly pieces: ReadonlyArray<number> | undefined } = { body: "", pieces: undefined }
      const fake = fakeHttp(() => ({ text: reply.body, contentType: "application/json", pieces: reply.pieces }))
      const client = yield* clientOn(fake, { retry: { times: 0 } })
      const read = (body: string, pieces: ReadonlyArray<number> | undefined) =>
        Effect.gen(function*() {
          reply = { body, pieces }
          const slices: Array<number> = []
          const lines = yield* client.fileRecordsMapped("txlist", { address: F.ADDRESS }, Schemas.NormalTransaction, (rows) => {
            slices.push(rows.length)
            return Either.right(rows.map((row) => `${row.blockNumber}:${row.functionName}`))
          }).pipe(Effect.either)
          return { lines: Either.map(lines, (l) => l.join("\n")), slices }
        })
      for (const [name, body] of Object.entries(bodies)) {
        // A 3,000-record body one byte at a time is 2 MB of pieces: only the small ones are read so.
        const wanted = Object.entries(cuttings(body)).filter(([cut]) => cut !== "bytes" || body.length < 100_000)
        const whole = yield* read(body, undefined)
        for (const [cut, pieces] of wanted) {
          const got = yield* read(body, pieces)
          expect({ name, cut, lines: got.lines, slices: got.slices }).toStrictEqual({ name, cut, lines: whole.lines, slices: whole.slices })
        }
        if (name === "large") expect(whole.slices.length).toBeGreaterThan(20)
        if (name === "tricky") expect(whole.slices).toStrictEqual([3000])
        if (name === "refused") expect(Either.isLeft(whole.lines) && whole.lines.left._tag).toBe("RateLimitError")
        if (name === "marked") expect(whole.lines).toStrictEqual(Either.right(records(20, (i) => `\uFEFF${names[i % 4] as string}`).map((r) => `${r.blockNumber}:${r.functionName}`).join("\n")))
        if (name === "small") expect(whole.lines).toStrictEqual(Either.right(records(20, (i) => names[i % 4] as string).map((r) => `${r.blockNumber}:${r.functionName}`).join("\n")))
      }
    })))

  it("a body's bytes decode to response.text's text however the connection cuts them, invalid bytes and marks included", () => {
    // Bytes of text (1 to 4 bytes a character), byte-order marks, and bytes no UTF-8 allows, in any order.
    const part = fc.oneof(
      fc.string({ unit: "binary", maxLength: 8 }).map((t) => [...new TextEncoder().encode(t)]),
      fc.constant([0xef, 0xbb, 0xbf]),
      fc.array(fc.integer({ min: 0x80, max: 0xff }), { maxLength: 3 })
    )
    fc.assert(
      fc.property(fc.array(part, { maxLength: 12 }), fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 8 }), (parts, cuts) => {
        const bytes = Uint8Array.from(parts.flat())
        const chunks: Array<Uint8Array> = []
        for (let at = 0, i = 0; at < bytes.length; i++) {
          const length = cuts[i % cuts.length] as number
          chunks.push(bytes.subarray(at, at + length))
          at += length
        }
        expect([...textPieces(chunks)].join("")).toBe(new TextDecoder().decode(bytes))
      }),
      { numRuns: 3000 }
    )
  })

  it("a body given as one chunk of many pieces decodes to the same text, characters across the pieces' cuts included", () => {
    // ~100 KB of text, decoded in 32 KB pieces: an ASCII run of any length first moves the multi-byte
    // characters (and an invalid byte, a mark) across the cuts.
    const tail = new TextEncoder().encode("é€😀".repeat(12_000))
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 70_000 }), fc.boolean(), (ascii, invalid) => {
        const head = new TextEncoder().encode("\uFEFF" + "a".repeat(ascii))
        const bytes = Uint8Array.from([...head, ...(invalid ? [0xff, 0xc3] : []), ...tail])
        expect([...textPieces([bytes])].join("")).toBe(new TextDecoder().decode(bytes))
      }),
      { numRuns: 60 }
    )
  })

  it("a body in pieces is parsed as its pieces come: the text held never grows much beyond a slice", () => {
    // 2,000 records of ~1 KB, the body in pieces of one record, cut inside each `},{`: a slice is handed
    // over once ~48 KB past its start have been read, whatever the cuts.
    const body = JSON.stringify({ status: "1", message: "OK", result: Array.from({ length: 2000 }, (_, i) => ({ i, a: "x".repeat(1000) })) })
    const pieces: Array<string> = []
    let last = 0
    for (let i = body.indexOf("},{"); i >= 0; i = body.indexOf("},{", i + 1)) {
      const at = i + 1 + (pieces.length % 2)
      pieces.push(body.slice(last, at))
      last = at
    }
    pieces.push(body.slice(last))
    let pulled = 0
    let handed = 0
    let most = 0
    const counted = function*() {
      for (const piece of pieces) {
        pulled += piece.length
        most = Math.max(most, pulled - handed)
        yield piece
      }
    }
    const steps = sliceSteps(counted(), (records) => {
      handed += JSON.stringify(records).length - 1
      return Either.right(records)
    })
    let step = steps.next()
    while (step.done !== true) step = steps.next()
    expect(step.value?._tag === "Sliced" && step.value.rows.length).toBe(2000)
    expect(handed).toBeGreaterThan(body.length - 100)
    // Read and not yet handed over, at most: a slice (48 KB and the record that ends it) and a piece.
    expect(most).toBeLessThan(48 * 1024 + 3 * 1024)
  })

  it.scoped("fileRecordsMapped: the map's failure ends the call once; a torn answer is retried like any other", () =>
    driven(Effect.gen(function*() {
      const body = JSON.stringify({ status: "1", message: "OK", result: [F.normalTransaction, F.normalTransaction] })
      let calls = 0
      const fake = fakeHttp((r) =>
        r.params.startblock === "1" && calls++ === 0
          ? { text: `${body.slice(0, -4)}]}`, contentType: "application/json" }
          : { text: body, contentType: "application/json" }
      )
      const client = yield* clientOn(fake)
      const failed = yield* Effect.flip(
        client.fileRecordsMapped("txlist", { address: F.ADDRESS }, Schemas.NormalTransaction, () => Either.left("no room" as const))
      )
      expect(failed).toBe("no room")
      expect(fake.seen).toHaveLength(1)
      // A body cut short (ending on "]}" all the same): a transient DecodeError, retried.
      const rows = yield* client.fileRecordsMapped("txlist", { address: F.ADDRESS, startBlock: 1 }, Schemas.NormalTransaction, (r) =>
        Either.right(r))
      expect(rows).toHaveLength(2)
      expect(fake.seen).toHaveLength(3)
      expect((yield* client.stats).retries).toBe(1)
    })))
})
