/**
 * The export runner on real files (NodeContext, temporary folders): atomic publish, checkpoints and
 * resume, incremental runs with confirmations, fingerprint refusal, the manifest and its hash, the
 * progress display. Synthetic deterministic sources; no wall-clock assertions (TestClock).
 */
import { FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { parse } from "csv-parse/sync"
import { Deferred, Effect, Exit, Fiber, Schema, Stream, TestClock } from "effect"
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import * as Exports from "../../src/Exports.js"
import * as Checkpoint from "../../src/sinks/Checkpoint.js"
import * as Format from "../../src/sinks/Format.js"
import * as Manifest from "../../src/sinks/Manifest.js"
import type { ProgressOutput } from "../../src/sinks/Reporter.js"
import type { BlockBatch } from "../../src/streams/engine/BlockCursor.js"
import * as Progress from "../../src/streams/Progress.js"
import * as Sources from "../../src/streams/Sources.js"
import { rowsBetween, syntheticSource, type Transfer, Transfer as TransferSchema } from "./fixtures/synthetic.js"

const quiet = { quiet: true } as const

const blocks = syntheticSource

/** The exact text an export of blocks from..to must produce. */
const expectedText = (format: Format.FileFormat, from: number, to: number) =>
  Effect.gen(function*() {
    const encoder = yield* Format.encoder(TransferSchema, { format })
    return encoder.header + (yield* encoder.encode(rowsBetween(from, to)))
  })

const sha256 = (bytes: Uint8Array): string => `sha256:${createHash("sha256").update(bytes).digest("hex")}`

/** A fresh folder for one test, removed with the scope. */
const tempFolder = Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped({ prefix: "sinks-" }))

const read = (path: string) => Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(path))
const exists = (path: string) => Effect.flatMap(FileSystem.FileSystem, (fs) => fs.exists(path))
const listing = (folder: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readDirectory(folder)).pipe(Effect.map((names) => names.sort()))
const readState = (out: string) =>
  read(Checkpoint.statePath(out)).pipe(Effect.flatMap(Schema.decodeUnknown(Schema.parseJson(Checkpoint.State))))

const capture = (isTTY: boolean) => {
  const written: Array<string> = []
  const output: ProgressOutput = { isTTY, write: (text) => void written.push(text) }
  return { output, text: () => written.join(""), writes: written }
}

describe("Exports.toFile: block-ordered sources", () => {
  it.scoped("writes the exact CSV, a published state, and a manifest whose hash matches the file", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const folder = yield* tempFolder
      const out = path.join(folder, "transfers.csv")
      const summary = yield* Exports.toFile(blocks(300), { out, ...quiet })
      const text = yield* read(out)
      expect(text).toBe(yield* expectedText("csv", 1, 300))
      const oracle = rowsBetween(1, 300)
      expect(summary.rowsWritten).toBe(oracle.length)
      expect(summary.mode).toBe("fresh")

      const manifest = yield* Manifest.read(out)
      expect(manifest).toEqual(summary.manifest)
      expect(manifest.file).toBe("transfers.csv")
      expect(manifest.dataset).toBe("transfers")
      expect(manifest.query).toEqual({ address: "0xabc", topic0: "0xddf2" })
      expect(manifest.chainIds).toEqual([1])
      expect(manifest.plan).toBe("standard")
      expect(manifest.format).toBe("csv")
      expect(manifest.columns[4]).toBe("topic0")
      expect(manifest.rows).toBe(oracle.length)
      expect(manifest.blockRange).toEqual({ from: 1, to: 300 })
      expect(manifest.completeness).toEqual({ status: "complete" })
      const bytes = readFileSync(out)
      expect(manifest.bytes).toBe(bytes.byteLength)
      expect(manifest.contentHash).toBe(sha256(bytes))
      expect(manifest.tool.name).toBe("explorer-etl")

      const state = yield* readState(out)
      expect(state.phase).toBe("published")
      expect(state.completeThrough).toBe(300)
      expect(state.rows).toBe(oracle.length)
      expect(state.bytes).toBe(bytes.byteLength)
      expect(state.contentHash).toBe(manifest.contentHash)
      // Nothing else is left beside the output.
      expect(yield* listing(folder)).toEqual(["transfers.csv", "transfers.csv.manifest.json", "transfers.csv.state.json"])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("writes the exact JSONL (.ndjson too)", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const folder = yield* tempFolder
      const out = path.join(folder, "transfers.ndjson")
      yield* Exports.toFile(blocks(150), { out, ...quiet })
      const text = yield* read(out)
      expect(text).toBe(yield* expectedText("jsonl", 1, 150))
      const decoded = text.split("\n").slice(0, -1).map((line) => Schema.decodeUnknownSync(TransferSchema)(JSON.parse(line)))
      expect(decoded).toEqual(rowsBetween(1, 150))
      expect((yield* Manifest.read(out)).format).toBe("jsonl")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a failing source leaves the previous file byte-identical; resume then finishes the same file", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const folder = yield* tempFolder
      const out = path.join(folder, "transfers.csv")
      yield* Exports.toFile(blocks(50, { query: { v: 1 } }), { out, ...quiet })
      const previous = readFileSync(out)

      const failed = yield* Effect.exit(
        Exports.toFile(blocks(400, { failAtBlock: 200, query: { v: 2 } }), { out, ...quiet })
      )
      expect(Exit.isFailure(failed)).toBe(true)
      expect(readFileSync(out).equals(previous)).toBe(true)
      // The checkpoint of the failed run is kept beside it, for resume.
      const state = yield* readState(out)
      expect(state.phase).toBe("writing")
      expect(state.completeThrough).toBeLessThan(200)
      expect(state.completeThrough).toBeGreaterThan(150)
      expect(yield* exists(path.join(folder, ".transfers.csv.partial"))).toBe(true)

      const resumed = yield* Exports.toFile(blocks(400, { query: { v: 2 } }), { out, resume: true, ...quiet })
      expect(resumed.mode).toBe("resumed")
      expect(yield* read(out)).toBe(yield* expectedText("csv", 1, 400))
      expect(resumed.manifest.rows).toBe(rowsBetween(1, 400).length)
      expect(resumed.rowsWritten).toBe(rowsBetween(state.completeThrough + 1, 400).length)
      expect(yield* exists(path.join(folder, ".transfers.csv.partial"))).toBe(false)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("resume cuts a torn tail written after the last checkpoint", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const folder = yield* tempFolder
      const out = path.join(folder, "transfers.jsonl")
      yield* Effect.exit(Exports.toFile(blocks(300, { failAtBlock: 120 }), { out, ...quiet }))
      const temp = path.join(folder, ".transfers.jsonl.partial")
      // A crash mid-write: rows and half a row after the checkpointed bytes, more than the rest of the export.
      yield* fs.writeFileString(temp, "{\"blockNumber\":\"999\"}\n".repeat(20_000) + "{\"blockNumber\":\"999\",\"hash\":\"0xtorn", {
        flag: "a"
      })
      const state = yield* readState(out)
      expect(Number((yield* fs.stat(temp)).size)).toBeGreaterThan(state.bytes)
      yield* Exports.toFile(blocks(300), { out, resume: true, ...quiet })
      expect(yield* read(out)).toBe(yield* expectedText("jsonl", 1, 300))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("an interrupted export keeps its checkpoint, and resume finishes the same file", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const folder = yield* tempFolder
      const out = path.join(folder, "transfers.csv")
      const reached = yield* Deferred.make<void>()
      const source = blocks(300)
      const gated: typeof source = {
        ...source,
        batches: (range, options) =>
          source.batches(range, options).pipe(
            Stream.tap((batch: BlockBatch<Transfer>) =>
              // The batch ending on block 93 never arrives: blocks 1..90 are written.
              batch.completeThrough >= 93 ? Deferred.succeed(reached, undefined).pipe(Effect.zipRight(Effect.never)) : Effect.void
            )
          )
      }
      const fiber = yield* Effect.fork(Exports.toFile(gated, { out, ...quiet }))
      yield* Deferred.await(reached)
      yield* Fiber.interrupt(fiber)
      expect(yield* exists(out)).toBe(false)
      const state = yield* readState(out)
      expect(state.phase).toBe("writing")
      expect(state.completeThrough).toBe(90)
      expect(state.rows).toBe(rowsBetween(1, 90).length)
      const resumed = yield* Exports.toFile(blocks(300), { out, resume: true, ...quiet })
      expect(resumed.mode).toBe("resumed")
      expect(yield* read(out)).toBe(yield* expectedText("csv", 1, 300))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("an incremental run appends exactly the new final blocks, respecting confirmations", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const folder = yield* tempFolder
      const out = path.join(folder, "transfers.csv")
      const first = yield* Exports.toFile(blocks(200), { out, confirmations: 10, ...quiet })
      expect(first.manifest.blockRange).toEqual({ from: 1, to: 190 })
      expect(first.manifest.completeness).toEqual({ status: "complete" })
      expect(yield* read(out)).toBe(yield* expectedText("csv", 1, 190))

      // The chain grew by 60 blocks.
      const second = yield* Exports.toFile(blocks(260), { out, confirmations: 10, resume: true, ...quiet })
      expect(second.mode).toBe("extended")
      expect(second.rowsWritten).toBe(rowsBetween(191, 250).length)
      expect(second.manifest.rows).toBe(rowsBetween(1, 250).length)
      expect(second.manifest.blockRange).toEqual({ from: 1, to: 250 })
      expect(yield* read(out)).toBe(yield* expectedText("csv", 1, 250))
      const records = parse(yield* read(out)) as Array<Array<string>>
      expect(records.length - 1).toBe(second.manifest.rows)
      expect(second.manifest.contentHash).toBe(sha256(readFileSync(out)))

      // Nothing new is final: the file stays, the manifest says so.
      const before = readFileSync(out)
      const third = yield* Exports.toFile(blocks(255), { out, confirmations: 10, resume: true, ...quiet })
      expect(third.mode).toBe("unchanged")
      expect(third.rowsWritten).toBe(0)
      expect(third.manifest.rows).toBe(second.manifest.rows)
      expect(readFileSync(out).equals(before)).toBe(true)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a fixed toBlock past latest − confirmations is reported truncated, and a later run completes it", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const folder = yield* tempFolder
      const out = path.join(folder, "transfers.csv")
      const first = yield* Exports.toFile(blocks(100, { toBlock: 150 }), { out, confirmations: 5, ...quiet })
      expect(first.manifest.blockRange).toEqual({ from: 1, to: 95 })
      expect(first.manifest.completeness.status).toBe("truncated")
      const second = yield* Exports.toFile(blocks(400, { toBlock: 150 }), { out, confirmations: 5, resume: true, ...quiet })
      expect(second.manifest.completeness).toEqual({ status: "complete" })
      expect(yield* read(out)).toBe(yield* expectedText("csv", 1, 150))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("refuses to resume another query's checkpoint, and starts fresh without resume", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const folder = yield* tempFolder
      const out = path.join(folder, "transfers.csv")
      yield* Exports.toFile(blocks(100, { query: { address: "0xa" } }), { out, ...quiet })
      const before = readFileSync(out)
      const refused = yield* Effect.flip(
        Exports.toFile(blocks(100, { query: { address: "0xb" } }), { out, resume: true, ...quiet })
      )
      expect(refused._tag).toBe("SinkError")
      expect(refused._tag === "SinkError" && refused.reason).toBe("StateMismatch")
      expect(readFileSync(out).equals(before)).toBe(true)
      // Another first block is another file too.
      const other = yield* Effect.flip(
        Exports.toFile(blocks(100, { query: { address: "0xa" }, fromBlock: 2 }), { out, resume: true, ...quiet })
      )
      expect(other._tag === "SinkError" && other.reason).toBe("StateMismatch")
      const fresh = yield* Exports.toFile(blocks(100, { query: { address: "0xb" } }), { out, ...quiet })
      expect(fresh.mode).toBe("fresh")
      expect(fresh.manifest.query).toEqual({ address: "0xb" })
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("refuses to extend a file changed since its export", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const folder = yield* tempFolder
      const out = path.join(folder, "transfers.csv")
      yield* Exports.toFile(blocks(100), { out, ...quiet })
      const text = yield* read(out)
      // Same length, different content: only the hash can tell.
      expect(text.startsWith("blockNumber,")).toBe(true)
      yield* fs.writeFileString(out, text.replace("blockNumber,", "blockNumbeR,"))
      const refused = yield* Effect.flip(Exports.toFile(blocks(200), { out, resume: true, ...quiet }))
      expect(refused._tag === "SinkError" && refused.reason).toBe("StateMismatch")
      expect(yield* exists(path.join(folder, ".transfers.csv.partial"))).toBe(false)
      // With no new block either: the manifest is not rewritten over a file it does not describe.
      const unchanged = yield* Effect.flip(Exports.toFile(blocks(100), { out, resume: true, ...quiet }))
      expect(unchanged._tag === "SinkError" && unchanged.reason).toBe("StateMismatch")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("recognises a crash between the rename and the final state, and a lost temporary file", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const folder = yield* tempFolder
      const out = path.join(folder, "transfers.csv")
      yield* Exports.toFile(blocks(100), { out, ...quiet })
      const state = yield* readState(out)
      const rewrite = (phase: Checkpoint.Phase) =>
        Checkpoint.write(out, { ...state, phase })
      // Renamed but the state still says "publishing": the file is recognised by its hash and extended.
      yield* rewrite("publishing")
      const extended = yield* Exports.toFile(blocks(150), { out, resume: true, ...quiet })
      expect(extended.mode).toBe("extended")
      expect(yield* read(out)).toBe(yield* expectedText("csv", 1, 150))
      // An unfinished state whose temporary file is gone: start over.
      yield* Effect.exit(Exports.toFile(blocks(300, { failAtBlock: 200 }), { out, ...quiet }))
      yield* fs.remove(path.join(folder, ".transfers.csv.partial"))
      const fresh = yield* Exports.toFile(blocks(300), { out, resume: true, ...quiet })
      expect(fresh.mode).toBe("fresh")
      expect(yield* read(out)).toBe(yield* expectedText("csv", 1, 300))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("resume without a state file is a fresh export", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const folder = yield* tempFolder
      const out = path.join(folder, "transfers.csv")
      const summary = yield* Exports.toFile(blocks(60), { out, resume: true, ...quiet })
      expect(summary.mode).toBe("fresh")
      expect(yield* read(out)).toBe(yield* expectedText("csv", 1, 60))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("refuses bad options before touching a file", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const folder = yield* tempFolder
      const bad = [
        Exports.toFile(blocks(10), { out: path.join(folder, "sub", "x.txt"), ...quiet }),
        Exports.toFile(blocks(10), { out: path.join(folder, "sub", "x.csv"), confirmations: -1, ...quiet }),
        Exports.toFile(blocks(10, { fromBlock: 5, toBlock: 4 }), { out: path.join(folder, "sub", "x.csv"), ...quiet })
      ]
      const refused: Array<string | undefined> = []
      for (const run of bad) {
        const error = yield* Effect.flip(run)
        expect(error._tag === "SinkError" && error.reason).toBe("InvalidInput")
        refused.push(error._tag === "SinkError" ? error.option : undefined)
      }
      // The option at fault is named, for the CLI to report it as its flag.
      expect(refused).toEqual(["out", "confirmations", undefined])
      expect(yield* listing(folder)).toEqual([])
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("Exports.toFile: row sources", () => {
  const Holder = Schema.Struct({ address: Schema.String, tokenName: Schema.String, balance: Schema.BigInt })
  const holders = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      chain: i % 2 === 0 ? 1 : 137,
      row: { address: `0x${i.toString(16).padStart(40, "0")}`, tokenName: i % 3 === 0 ? "=cmd|' /C calc'!A0" : `T${i}`, balance: 10n ** 30n + BigInt(i) }
    }))

  it.scoped("writes a chainid column when the export spans chains, and no state file", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const folder = yield* tempFolder
      const out = path.join(folder, "holders.csv")
      const data = holders(25)
      const chainOf = new Map(data.map((d) => [d.row, d.chain]))
      const summary = yield* Exports.toFile(Sources.fromStream({
        dataset: "tokenHolders",
        chainId: { chainIds: [1, 137], chainIdOf: (row) => chainOf.get(row) ?? 0 },
        plan: "free",
        query: { contractAddress: "0xt" },
        schema: Holder,
        rows: Stream.fromIterable(data.map((d) => d.row))
      }), { out, ...quiet })
      const records = parse(yield* read(out)) as Array<Array<string>>
      expect(records[0]).toEqual(["chainid", "address", "tokenName", "balance"])
      expect(records.slice(1)).toEqual(data.map((d) => [
        String(d.chain),
        d.row.address,
        d.row.tokenName.startsWith("=") ? `'${d.row.tokenName}` : d.row.tokenName,
        d.row.balance.toString()
      ]))
      expect(summary.manifest.chainIds).toEqual([1, 137])
      expect(summary.manifest.blockRange).toBeNull()
      expect(summary.manifest.rows).toBe(25)
      expect(yield* listing(folder)).toEqual(["holders.csv", "holders.csv.manifest.json"])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a failing stream leaves no file, no temporary file, and the previous file byte-identical", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const folder = yield* tempFolder
      const out = path.join(folder, "holders.jsonl")
      const job = (stream: Stream.Stream<typeof Holder.Type, string>) =>
        Sources.fromStream({ dataset: "tokenHolders", chainId: 1, plan: "free", query: {}, schema: Holder, rows: stream })
      const rowsOf = holders(10).map((d) => d.row)
      const failing = Stream.fromIterable(rowsOf).pipe(Stream.concat(Stream.fail("boom")))

      const first = yield* Effect.flip(Exports.toFile(job(failing), { out, ...quiet }))
      expect(first).toBe("boom")
      expect(yield* listing(folder)).toEqual([])

      yield* Exports.toFile(job(Stream.fromIterable(rowsOf)), { out, ...quiet })
      const previous = readFileSync(out)
      const manifest = yield* read(Manifest.manifestPath(out))
      yield* Effect.flip(Exports.toFile(job(failing.pipe(Stream.take(5), Stream.concat(Stream.fail("boom")))), { out, ...quiet }))
      expect(readFileSync(out).equals(previous)).toBe(true)
      expect(yield* read(Manifest.manifestPath(out))).toBe(manifest)
      expect(yield* listing(folder)).toEqual(["holders.jsonl", "holders.jsonl.manifest.json"])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("takes completeness from the stream's progress: a truncated list says so in the manifest", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const folder = yield* tempFolder
      const out = path.join(folder, "holders.csv")
      // The stream says on the progress cell it is handed that it stopped early.
      const stream = (options: Sources.StreamOptions) =>
        Stream.fromIterable(holders(4).map((d) => d.row)).pipe(
          Stream.concat(Stream.fromEffect(Progress.update(options.progress, (p) => ({
            ...p,
            calls: 3,
            completeness: "truncated" as const,
            truncatedReason: "result window of 10000 rows reached after 4 rows"
          }))).pipe(Stream.drain))
        )
      const summary = yield* Exports.toFile(
        Sources.fromStream({ dataset: "tokenHolders", chainId: 1, plan: "free", query: {}, schema: Holder, rows: stream }),
        { out, ...quiet }
      )
      expect(summary.manifest.completeness).toEqual({
        status: "truncated",
        reason: "result window of 10000 rows reached after 4 rows"
      })
      expect(summary.manifest.calls).toBe(3)
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("progress display", () => {
  /** An export stopped after its first batch until `go` completes, with a progress ref counting calls. */
  const gatedExport = (out: string, output: ProgressOutput, extra: Partial<Exports.ToFileOptions> = {}) =>
    Effect.gen(function*() {
      const go = yield* Deferred.make<void>()
      const reached = yield* Deferred.make<void>()
      const source = blocks(100)
      const fiber = yield* Effect.fork(Exports.toFile({
        ...source,
        // Each batch counts as a call on the progress cell the export hands its source.
        batches: (range, options) =>
          source.batches(range, options).pipe(
            Stream.tap((batch: BlockBatch<Transfer>) =>
              Progress.update(options?.progress, (p) => ({ ...p, calls: p.calls + 1 })).pipe(
                // Batches end on blocks 3, 6, …: the one ending on 51 waits, so blocks 1..48 are written.
                Effect.zipRight(
                  batch.completeThrough === 51
                    ? Deferred.succeed(reached, undefined).pipe(Effect.zipRight(Deferred.await(go)))
                    : Effect.void
                )
              )
            )
          )
      }, { out, progressOutput: output, ...extra }))
      yield* Deferred.await(reached)
      return { go, fiber }
    })

  it.scoped("redraws one line on a TTY and ends with the summary", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const folder = yield* tempFolder
      const out = path.join(folder, "transfers.csv")
      const tty = capture(true)
      const { fiber, go } = yield* gatedExport(out, tty.output)
      yield* TestClock.adjust("2 seconds")
      const during = tty.text()
      expect(during.startsWith("\r")).toBe(true)
      expect(during).not.toContain("\n")
      const last = during.split("\r").at(-1) ?? ""
      expect(last).toContain("transfers chain 1")
      expect(last).toContain(`${rowsBetween(1, 48).length} rows`)
      expect(last).toContain("17 calls")
      expect(last).toContain("block 48")
      expect(last).toContain("48.0%")
      expect(last).toContain("ETA")
      yield* Deferred.succeed(go, undefined)
      const summary = yield* Fiber.join(fiber)
      const text = tty.text()
      expect(text.endsWith("\n")).toBe(true)
      const final = text.split("\r\x1b[K").at(-1) ?? ""
      expect(final).toBe(
        `wrote ${rowsBetween(1, 100).length} rows to ${out} (complete, blocks 1..100) in 2.0 s, 34 calls\n`
      )
      expect(summary.manifest.calls).toBe(34)
      expect(summary.manifest.durationMs).toBe(2000)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("prints plain lines every few seconds when not a TTY", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const folder = yield* tempFolder
      const out = path.join(folder, "transfers.csv")
      const pipe = capture(false)
      const { fiber, go } = yield* gatedExport(out, pipe.output, { progressEvery: "5 seconds" })
      yield* TestClock.adjust("4 seconds")
      expect(pipe.writes).toEqual([])
      yield* TestClock.adjust("6 seconds")
      expect(pipe.writes.length).toBe(2)
      for (const line of pipe.writes) {
        expect(line.endsWith("\n")).toBe(true)
        expect(line).not.toContain("\r")
        expect(line).toContain("block 48")
      }
      yield* Deferred.succeed(go, undefined)
      yield* Fiber.join(fiber)
      expect(pipe.writes.at(-1)).toMatch(/^wrote \d+ rows to .*transfers\.csv \(complete, blocks 1\.\.100\) in 10\.0 s, 34 calls\n$/)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("prints nothing when quiet", () =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const folder = yield* tempFolder
      const out = path.join(folder, "transfers.csv")
      const tty = capture(true)
      const { fiber, go } = yield* gatedExport(out, tty.output, { quiet: true })
      yield* TestClock.adjust("10 seconds")
      yield* Deferred.succeed(go, undefined)
      yield* Fiber.join(fiber)
      expect(tty.writes).toEqual([])
      expect(yield* exists(out)).toBe(true)
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("manifest", () => {
  it("names the package's version", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      name: string
      version: string
    }
    expect(Manifest.tool).toEqual({ name: pkg.name, version: pkg.version })
  })

  it("checkpoint fingerprints ignore key order and differ per query, format and columns", () => {
      const base = { dataset: "logs", chainIds: [1], query: { a: 1, b: [1n, "x"] }, format: "csv" as const, columns: ["x"], fromBlock: 0 }
      expect(Checkpoint.fingerprint(base)).toBe(Checkpoint.fingerprint({ ...base, query: { b: [1n, "x"], a: 1 } }))
      expect(Checkpoint.fingerprint(base)).not.toBe(Checkpoint.fingerprint({ ...base, query: { a: 2, b: [1n, "x"] } }))
      expect(Checkpoint.fingerprint(base)).not.toBe(Checkpoint.fingerprint({ ...base, format: "jsonl" }))
      expect(Checkpoint.fingerprint(base)).not.toBe(Checkpoint.fingerprint({ ...base, columns: ["y"] }))
  })
})
