/**
 * Parquet exports of a block-ordered source through `Exports.toFile`, read back by a real DuckDB: a
 * child process killed with SIGKILL mid-export and resumed ends with exactly the rows of an
 * uninterrupted export; so does an export whose source fails midway; a later run extends the finished
 * file with the new blocks; row groups hold a fixed row count between checkpoints.
 */
import type { Json } from "@duckdb/node-api"
import { duckdbRows } from "../duckdb.js"
import { FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as Checkpoint from "../../src/sinks/Checkpoint.js"
import * as Exports from "../../src/Exports.js"
import * as Parquet from "../../src/sinks/Parquet.js"
import { rowsBetween, syntheticSource } from "./fixtures/synthetic.js"

const childScript = fileURLToPath(new URL("./fixtures/export-child.ts", import.meta.url))

/** Every row of a Parquet file, in order, as DuckDB reads it. */
const rowsOf = (file: string): Effect.Effect<ReadonlyArray<Record<string, Json>>> =>
  duckdbRows(`SELECT * FROM read_parquet('${file}')`)

/** The rows a DuckDB reads from the synthetic rows of blocks from..to (the oracle, not another export). */
const oracleRows = (from: number, to: number, dataBytes?: number) =>
  rowsBetween(from, to, dataBytes).map((t) => ({
    blockNumber: t.blockNumber,
    hash: t.hash,
    tokenName: t.tokenName,
    value: t.value.toString(),
    topic0: t.topics[0] ?? null,
    topic1: t.topics[1] ?? null,
    topic2: t.topics[2] ?? null,
    topic3: t.topics[3] ?? null,
    isError: t.isError,
    confirmations: t.confirmations,
    blockHash: t.blockHash ?? null,
    note: t.note,
    data: t.data
  }))

const exited = (child: ChildProcess) =>
  Effect.async<number | null>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.succeed(child.exitCode))
    child.once("exit", (code) => resume(Effect.succeed(code)))
  })

const decodeState = Schema.decodeUnknownOption(Schema.parseJson(Checkpoint.State))

describe("Parquet.rowGroups", () => {
  it.scoped("writes full row groups as rows come; a mark cuts a smaller one, and sync returns the state up to it", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const folder = yield* fs.makeTempDirectoryScoped({ prefix: "sinks-parquet-groups-" })
      const file = path.join(folder, "groups.parquet")
      const writer = yield* Parquet.open(file, [{ name: "n", type: "int64" }])
      const groups = Parquet.rowGroups(writer, 10)
      const rows = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => ({ n: String(from + k) }))
      yield* groups.add(rows(0, 25))
      expect(writer.state().rowGroups.map((g) => g.rows)).toEqual([10, 10])
      groups.mark()
      yield* groups.add(rows(25, 37))
      // The cut group (5 rows) was written before the next full one; sync's state ends at the mark.
      expect(writer.state().rowGroups.map((g) => g.rows)).toEqual([10, 10, 5, 10])
      const marked = yield* groups.sync
      expect(marked.rowGroups.map((g) => g.rows)).toEqual([10, 10, 5])
      expect(groups.pending()).toBe(2)
      yield* groups.flush
      const finished = yield* writer.finish
      expect(finished.state.rowGroups.map((g) => g.rows)).toEqual([10, 10, 5, 10, 2])
      expect((yield* rowsOf(file)).map((r) => r["n"])).toEqual(rows(0, 37).map((r) => r.n))
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("Parquet.rowGroups by characters", () => {
  it.scoped("rows given with their text's length are cut at `bytes` characters as well as at `size` rows", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const folder = yield* fs.makeTempDirectoryScoped({ prefix: "sinks-parquet-bytes-" })
      const file = path.join(folder, "bytes.parquet")
      const writer = yield* Parquet.open(file, [{ name: "n", type: "int64" }])
      const groups = Parquet.rowGroups(writer, 10, 100)
      const rows = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => ({ n: String(from + k) }))
      // Wide rows (30 characters): a group at the row that reaches 100 characters, the 4th.
      yield* groups.add(rows(0, 9), Array.from({ length: 9 }, () => 30))
      expect(writer.state().rowGroups.map((g) => g.rows)).toEqual([4, 4])
      // Narrow ones (5 characters): 10 rows first; and without lengths, rows alone count.
      yield* groups.add(rows(9, 30), Array.from({ length: 21 }, () => 5))
      expect(writer.state().rowGroups.map((g) => g.rows)).toEqual([4, 4, 10, 10])
      yield* groups.add(rows(30, 45))
      yield* groups.flush
      const finished = yield* writer.finish
      expect(finished.state.rowGroups.map((g) => g.rows)).toEqual([4, 4, 10, 10, 10, 7])
      expect((yield* rowsOf(file)).map((r) => r["n"])).toEqual(rows(0, 45).map((r) => r.n))
    }).pipe(Effect.provide(NodeContext.layer)))

  it("rowChars counts a row as its JSONL line's length, without writing the line", () => {
    // What exports count a row group by, whether its rows come from a page or from a spool's lines.
    const rows: ReadonlyArray<Parquet.Row> = [
      { blockNumber: "19000000", hash: `0x${"ab".repeat(32)}`, isError: false, value: "0", note: "" },
      { address: `0x${"cd".repeat(20)}`, topics: [`0x${"01".repeat(32)}`, `0x${"02".repeat(32)}`], data: "0x", logIndex: "7" },
      { address: `0x${"cd".repeat(20)}`, topics: [], data: `0x${"0f".repeat(96)}`, gasUsed: null }
    ]
    for (const row of rows) {
      const line = JSON.stringify(row) + "\n"
      expect(Math.abs(Parquet.rowChars(row) - line.length)).toBeLessThanOrEqual(8)
    }
  })
})

describe("Parquet exports of block-ordered sources", () => {
  it.scoped("hold the oracle's rows; a source failing midway keeps a checkpoint that resume finishes", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const folder = yield* fs.makeTempDirectoryScoped({ prefix: "sinks-parquet-" })
      const out = path.join(folder, "transfers.parquet")
      const failing = syntheticSource(500, { toBlock: 400, failAtBlock: 250 })
      const failed = yield* Effect.flip(Exports.toFile(failing, { out, quiet: true, checkpointEvery: 0 }))
      expect(failed._tag).toBe("SourceFailed")
      const state = Option.getOrThrow(decodeState(yield* fs.readFileString(Checkpoint.statePath(out))))
      expect(state).toMatchObject({ phase: "writing", format: "parquet" })
      // The last checkpoint holds every row read before the failure, in row groups.
      expect(state.completeThrough).toBeGreaterThanOrEqual(240)
      expect(state.completeThrough).toBeLessThan(250)
      expect(state.rows).toBe(rowsBetween(1, state.completeThrough).length)
      expect(state.parquet?.rowGroups.reduce((n, g) => n + g.rows, 0)).toBe(state.rows)

      const resumed = yield* Exports.toFile(syntheticSource(500, { toBlock: 400 }), { out, quiet: true, resume: true })
      expect(resumed.mode).toBe("resumed")
      expect(resumed.rowsWritten).toBe(rowsBetween(state.completeThrough + 1, 400).length)
      expect(resumed.manifest).toMatchObject({ format: "parquet", rows: rowsBetween(1, 400).length })
      expect(yield* rowsOf(out)).toEqual(oracleRows(1, 400))
      expect(yield* fs.exists(path.join(folder, ".transfers.parquet.partial"))).toBe(false)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a later run extends the finished file with the new final blocks; none new: unchanged", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const folder = yield* fs.makeTempDirectoryScoped({ prefix: "sinks-parquet-" })
      const out = path.join(folder, "transfers.parquet")
      const first = yield* Exports.toFile(syntheticSource(300), { out, quiet: true, confirmations: 10 })
      expect(first.manifest.blockRange).toEqual({ from: 1, to: 290 })
      expect(yield* rowsOf(out)).toEqual(oracleRows(1, 290))
      const second = yield* Exports.toFile(syntheticSource(700), { out, quiet: true, confirmations: 10, resume: true })
      expect(second.mode).toBe("extended")
      expect(second.rowsWritten).toBe(rowsBetween(291, 690).length)
      expect(yield* rowsOf(out)).toEqual(oracleRows(1, 690))
      const bytes = yield* fs.readFile(out)
      const third = yield* Exports.toFile(syntheticSource(700), { out, quiet: true, confirmations: 10, resume: true })
      expect(third.mode).toBe("unchanged")
      expect(Buffer.from(yield* fs.readFile(out)).equals(Buffer.from(bytes))).toBe(true)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("SIGKILL mid-export, then resume: exactly the rows of an uninterrupted export", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const folder = yield* fs.makeTempDirectoryScoped({ prefix: "sinks-parquet-kill-" })
      const killed = path.join(folder, "killed.parquet")
      const toBlock = 600
      const dataBytes = 3000
      let stderr = ""
      const child = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const c = spawn(
            process.execPath,
            ["--import", "tsx", childScript, killed, String(toBlock), "10", "100", String(dataBytes), "2"],
            { stdio: ["ignore", "ignore", "pipe"] }
          )
          c.stderr?.on("data", (d: Buffer) => void (stderr += d.toString()))
          return c
        }),
        (c) => Effect.sync(() => void c.kill("SIGKILL"))
      )
      // Wait for a checkpoint with real progress, then a random while longer, and kill.
      const poll: Effect.Effect<void, string> = Effect.gen(function*() {
        if (child.exitCode !== null) return yield* Effect.fail(`the child ended before it was killed: ${stderr}`)
        const text = yield* fs.readFileString(Checkpoint.statePath(killed)).pipe(Effect.option)
        const state = Option.flatMap(text, decodeState)
        if (Option.isSome(state) && state.value.phase === "writing" && state.value.completeThrough >= 100) return
        return yield* Effect.sleep("10 millis").pipe(Effect.zipRight(poll))
      })
      yield* poll.pipe(Effect.timeoutFail({ duration: "60 seconds", onTimeout: () => `no checkpoint in time: ${stderr}` }))
      yield* Effect.sleep(Math.floor(Math.random() * 300))
      child.kill("SIGKILL")
      yield* exited(child)
      expect(child.signalCode).toBe("SIGKILL")
      expect(yield* fs.exists(killed)).toBe(false)
      const state = Option.getOrThrow(decodeState(yield* fs.readFileString(Checkpoint.statePath(killed))))
      expect(state.phase).toBe("writing")
      expect(state.completeThrough).toBeLessThan(toBlock)

      const source = syntheticSource(toBlock + 100, { toBlock, dataBytes, blocksPerBatch: 2 })
      const resumed = yield* Exports.toFile(source, { out: killed, resume: true, quiet: true })
      expect(resumed.mode).toBe("resumed")
      expect(resumed.rowsWritten).toBe(rowsBetween(state.completeThrough + 1, toBlock).length)
      const reference = path.join(folder, "reference.parquet")
      const uninterrupted = yield* Exports.toFile(source, { out: reference, quiet: true })
      expect(resumed.manifest.rows).toBe(uninterrupted.manifest.rows)
      const rows = yield* rowsOf(killed)
      expect(rows).toEqual(yield* rowsOf(reference))
      expect(rows).toEqual(oracleRows(1, toBlock, dataBytes))
    }).pipe(Effect.provide(NodeContext.layer)), 120_000)
})
