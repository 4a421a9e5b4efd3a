/**
 * `Streams.*` whose rows read ahead of their turn wait on disk (`spill`), against the simulator through
 * real HTTP, 700 ms away on the free plan's one-page windows (so ranges are cut into many partitions:
 * nearer, the plan's 3 calls/s need one request in flight, `Partitions.concurrencyFor`, and nothing is
 * read ahead of its turn):
 * every block-ordered data set gives exactly the in-memory Stream's values (and the oracle's rows); the
 * rows are written to files while the Stream reads, more of them at once than `heldRows` lets memory
 * hold, and the files are gone once the Stream ends, fails or is interrupted; a folder that cannot be
 * written fails the Stream with a `SinkError` before any request.
 */
import { FileSystem } from "@effect/platform"
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { describe, expect, layer } from "@effect/vitest"
import { Chunk, Effect, Exit, Fiber, Layer, Redacted, Schema, Stream } from "effect"
import * as Client from "../../src/ExplorerClient.js"
import * as Schemas from "../../src/schemas/index.js"
import * as Simulator from "../../src/simulator/index.js"
import * as Progress from "../../src/streams/Progress.js"
import * as Streams from "../../src/streams/Streams.js"

const CHAIN = 42161
const FROM = 1_000_000
const TO = FROM + 100_000

/** Rows every 40 blocks: `blocks` blocks of `each` rows. */
const spread = (blocks: number, each: number): ReadonlyArray<readonly [number, number]> =>
  Array.from({ length: blocks }, (_, i) => [FROM + 1 + i * 40, each] as const)

const address = (n: number) => `0x${(0x5b111000 + n).toString(16).padStart(40, "0")}`

const kinds = ["logs", "mixedLogs", "txlist", "txlistinternal", "tokentx", "tokennfttx", "token1155tx"] as const
type Kind = (typeof kinds)[number]

const SimulatorLive = Simulator.layer({
  seed: 11,
  enforceRateLimits: false,
  dailyCaps: false,
  dataset: {
    chains: [],
    scenarios: kinds.map((kind, i) => ({
      chainId: CHAIN,
      kind,
      address: address(i),
      // Pages of 1,000 logs, of 10,000 account rows: a few pages' worth each.
      rowsPerBlock: kind === "logs" || kind === "mixedLogs" ? spread(150, 100) : spread(150, 200)
    }))
  },
  faults: { latency: { fixedMs: 700, jitterMs: 0 } }
})

const ClientLive = Layer.unwrapEffect(
  Effect.map(Simulator.Simulator, (sim) =>
    Client.layer({
      baseUrl: sim.baseUrl,
      apiKey: Redacted.make(sim.demoKeys.free),
      plan: "free",
      defaultChainId: CHAIN,
      rate: { callsPerSecond: 500, throttledPerSecond: 500 }
    }))
).pipe(Layer.provide(NodeHttpClient.layerUndici))

/** The file system, counting the rows the spills write (one line a row). */
const written = { lines: 0 }
const CountingFs = Layer.effect(
  FileSystem.FileSystem,
  Effect.map(FileSystem.FileSystem, (fs) => ({
    ...fs,
    writeFile: (path: string, data: Uint8Array, options?: FileSystem.WriteFileOptions) =>
      Effect.zipRight(
        Effect.sync(() => void (written.lines += data.reduce((n, byte) => n + (byte === 10 ? 1 : 0), 0))),
        fs.writeFile(path, data, options)
      )
  }))
).pipe(Layer.provide(NodeContext.layer))

const ERC20_ABI = [
  { type: "event", name: "Transfer", anonymous: false, inputs: [{ name: "from", type: "address", indexed: true }, { name: "to", type: "address", indexed: true }, { name: "value", type: "uint256", indexed: false }] }
]

const range = { chainId: CHAIN, fromBlock: FROM, toBlock: TO }

/** A kind's Stream, with the options given (the events of the mixed logs: some decoded, some kept undecoded). */
const streamOf = (
  kind: Kind,
  options: Streams.StreamOptions | Streams.SpillingStreamOptions
): Stream.Stream<unknown, unknown, Client.ExplorerClient | FileSystem.FileSystem> => {
  const i = kinds.indexOf(kind)
  const q = { ...range, address: address(i) }
  const o = options as Streams.SpillingStreamOptions
  switch (kind) {
    case "logs":
      return Streams.logs(q, o)
    case "mixedLogs":
      return Streams.events({ ...q, abi: ERC20_ABI }, o)
    case "txlist":
      return Streams.transactions(q, o)
    case "txlistinternal":
      return Streams.internalTransactions(q, o)
    case "tokentx":
      return Streams.erc20Transfers(q, o)
    case "tokennfttx":
      return Streams.erc721Transfers(q, o)
    case "token1155tx":
      return Streams.erc1155Transfers(q, o)
  }
}

/** The entries of a folder, recursively (files and folders). */
const entries = (dir: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readDirectory(dir, { recursive: true }))

/** Rows waiting in the spill files under `dir` now (complete lines). */
const spilledRows = (dir: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    let rows = 0
    for (const name of yield* entries(dir)) {
      if (!name.endsWith(".jsonl")) continue
      const text = yield* Effect.orElseSucceed(fs.readFileString(`${dir}/${name}`), () => "")
      for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) rows++
    }
    return rows
  })

/** The stream, `f` run once, when its first rows reach the reader (the reader waits for it). */
const onFirst = <A, E, R, E2, R2>(stream: Stream.Stream<A, E, R>, f: () => Effect.Effect<void, E2, R2>) => {
  let first = true
  return stream.pipe(Stream.tap(() => {
    if (!first) return Effect.void
    first = false
    return f()
  }))
}

layer(Layer.mergeAll(Layer.provideMerge(ClientLive, SimulatorLive), CountingFs), { timeout: "180 seconds", excludeTestServices: true })((it) => {
  describe("a Stream's read-ahead on disk", () => {
    for (const kind of kinds) {
      it.scoped(`${kind}: the in-memory Stream's values, the rows written to files on the way`, () =>
        Effect.gen(function*() {
          const fs = yield* FileSystem.FileSystem
          const dir = yield* fs.makeTempDirectoryScoped()
          const inMemory = Chunk.toReadonlyArray(yield* Stream.runCollect(streamOf(kind, {})))
          const before = written.lines
          const spilled = Chunk.toReadonlyArray(yield* Stream.runCollect(streamOf(kind, { spill: { directory: dir } })))
          expect(inMemory.length).toBe(kind === "logs" || kind === "mixedLogs" ? 15_000 : 30_000)
          expect(spilled).toStrictEqual(inMemory)
          // Rows did wait on disk, and nothing is left there.
          expect(written.lines - before).toBeGreaterThan(0)
          expect(yield* entries(dir)).toEqual([])
        }))
    }

    it.scoped("logs: the oracle's rows, more rows waiting on disk at once than heldRows lets memory hold", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const fs = yield* FileSystem.FileSystem
        const dir = yield* fs.makeTempDirectoryScoped()
        const heldRows = 1_000
        const progress = yield* Progress.make("logs", CHAIN)
        let most = 0
        // The reader takes its first rows, then waits until the ranges ahead have read on (or finished
        // reading: every row counted by the cursors) without it: held in memory, they would stop at
        // `heldRows`.
        const logs = Streams.logs({ ...range, address: address(0) }, { spill: { directory: dir }, heldRows, progress })
        const rows = yield* onFirst(logs, () =>
          Effect.gen(function*() {
            while (true) {
              most = Math.max(most, yield* spilledRows(dir))
              const read = (yield* progress.get).rows
              if (most > 3 * heldRows || read >= 15_000) break
              yield* Effect.sleep("20 millis")
            }
          })).pipe(Stream.runCollect)
        expect(most).toBeGreaterThan(3 * heldRows)
        const oracle = yield* sim.oracle({ chainId: CHAIN, module: "logs", action: "getLogs", params: { address: address(0) } })
        const toWire = Schema.encodeSync(Schemas.Log)
        expect(Chunk.toReadonlyArray(rows).map((r) => toWire(r))).toEqual(oracle)
        expect(yield* entries(dir)).toEqual([])
      }))

    it.scoped("a Stream that fails, or is interrupted, while rows wait on disk leaves no file", () =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const dir = yield* fs.makeTempDirectoryScoped()
        /** Runs `f` once rows wait on disk (after the first row), with the spill folder's entries then. */
        const whileSpilled = <A, E, R>(stream: Stream.Stream<A, E, R>, f: () => Effect.Effect<void, string>) =>
          onFirst(stream, () =>
            Effect.gen(function*() {
              while ((yield* spilledRows(dir)) === 0) yield* Effect.sleep("10 millis")
              expect((yield* entries(dir)).length).toBeGreaterThan(1)
              yield* f()
            }))
        const logs = Streams.logs({ ...range, address: address(0) }, { spill: { directory: dir } })
        // The reader fails.
        const failed = yield* whileSpilled(logs, () => Effect.fail("the reader gave up")).pipe(Stream.runDrain, Effect.exit)
        expect(Exit.isFailure(failed)).toBe(true)
        expect(yield* entries(dir)).toEqual([])
        // The reader takes what it wants and stops.
        const some = yield* whileSpilled(logs, () => Effect.void).pipe(Stream.take(1_500), Stream.runCollect)
        expect(Chunk.size(some)).toBe(1_500)
        expect(yield* entries(dir)).toEqual([])
        // The reading fiber is interrupted.
        const spilledYet = yield* Effect.makeLatch(false)
        const fiber = yield* whileSpilled(logs, () => Effect.andThen(spilledYet.open, Effect.never)).pipe(Stream.runDrain, Effect.fork)
        yield* spilledYet.await
        yield* Fiber.interrupt(fiber)
        expect(yield* entries(dir)).toEqual([])
      }))

    it.effect("a spill folder that cannot be written fails the Stream with a SinkError before any request", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const fs = yield* FileSystem.FileSystem
        const file = yield* fs.makeTempFileScoped()
        yield* sim.resetStats
        const error = yield* Streams.logs({ ...range, address: address(0) }, { spill: { directory: `${file}/spill` } }).pipe(
          Stream.runDrain,
          Effect.flip
        )
        expect(error._tag).toBe("SinkError")
        expect(error.message).toContain(`${file}/spill`)
        expect((yield* sim.stats).requests).toBe(0)
      }).pipe(Effect.scoped))
  })
})
