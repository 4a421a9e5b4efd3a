/**
 * The streams against the simulator, through real HTTP: random rows-per-block distributions (empty
 * stretches, exactly-a-page blocks, blocks denser than a page or the window) are planted as scenarios,
 * and for every block-ordered data set and both a free and a paid plan the stream must equal the
 * simulator's oracle — same rows, same order, none missing, none twice — or fail with DenseBlockError
 * naming the first block the window cannot read whole.
 */
import { describe, expect, layer } from "@effect/vitest"
import { NodeHttpClient } from "@effect/platform-node"
import { Chunk, Effect, Either, FastCheck as fc, Layer, type ParseResult, Redacted, Schema, Stream } from "effect"
import type { StreamError } from "../../src/ExplorerError.js"
import * as Client from "../../src/ExplorerClient.js"
import * as Plan from "../../src/Plan.js"
import * as Schemas from "../../src/schemas/index.js"
import * as Simulator from "../../src/simulator/index.js"
import * as Progress from "../../src/streams/Progress.js"
import * as Streams from "../../src/streams/Streams.js"

/** Arbitrum One: served, free-tier, and not populated here, so it holds only the planted rows. */
const CHAIN = 42161
const FROM = 1_000_000

type Kind = "logs" | "txlist" | "txlistinternal" | "tokentx" | "tokennfttx" | "token1155tx"
const kinds: ReadonlyArray<Kind> = ["logs", "txlist", "txlistinternal", "tokentx", "tokennfttx", "token1155tx"]

/** Rows-per-block distributions around the real page sizes (1,000 and 10,000). */
const distribution = fc.array(
  fc.tuple(
    fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 50, max: 5_000 })), // empty blocks before
    fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: 1, max: 40 }) },
      { weight: 1, arbitrary: fc.constantFrom(999, 1_000, 1_001) },
      { weight: 1, arbitrary: fc.integer({ min: 300, max: 1_600 }) }
    )
  ),
  { minLength: 1, maxLength: 14 }
).map((pairs) => {
  let block = FROM
  return pairs.map(([gap, count]) => {
    block += gap + 1
    return [block, count] as const
  })
})

const samples = fc.sample(distribution, { numRuns: 4, seed: 20261122 })

/** A fixed shape on top: two exact pages back to back, then a page plus one inside one block. */
const fixed: ReadonlyArray<readonly [number, number]> = [[FROM + 1, 1_000], [FROM + 2, 1_000], [FROM + 9, 1_001], [FROM + 10, 1]]

const cases = kinds.flatMap((kind, k) =>
  [...samples, fixed].map((rowsPerBlock, i) => ({
    kind,
    rowsPerBlock,
    address: `0x${(0xa11ce000 + k * 16 + i).toString(16).padStart(40, "0")}`
  }))
)

const SimulatorLive = Simulator.layer({
  seed: 7,
  enforceRateLimits: false,
  dailyCaps: false,
  dataset: { chains: [], scenarios: cases.map((c) => ({ chainId: CHAIN, kind: c.kind, address: c.address, rowsPerBlock: c.rowsPerBlock })) }
})

/** A client of the simulator on a plan; fast (the limiter is not under test here). */
const clientFor = (plan: Plan.Plan) =>
  Layer.unwrapEffect(
    Effect.map(Simulator.Simulator, (sim) =>
      Client.layer({
        baseUrl: sim.baseUrl,
        apiKey: Redacted.make(sim.demoKeys[plan]),
        plan,
        defaultChainId: CHAIN,
        rate: { callsPerSecond: 1_000, throttledPerSecond: 1_000 }
      }))
  ).pipe(Layer.provide(NodeHttpClient.layerUndici))

const actionOf: Record<Kind, { module: string; action: string }> = {
  logs: { module: "logs", action: "getLogs" },
  txlist: { module: "account", action: "txlist" },
  txlistinternal: { module: "account", action: "txlistinternal" },
  tokentx: { module: "account", action: "tokentx" },
  tokennfttx: { module: "account", action: "tokennfttx" },
  token1155tx: { module: "account", action: "token1155tx" }
}

/** The stream of a kind, encoded back to the wire form the oracle speaks. */
const wireStream = (
  kind: Kind,
  address: string,
  progress?: Progress.ProgressRef
): Stream.Stream<unknown, StreamError | ParseResult.ParseError, Client.ExplorerClient> => {
  const range = { chainId: CHAIN, fromBlock: FROM, toBlock: FROM + 200_000 }
  const encode = <A, I>(schema: Schema.Schema<A, I>) => Stream.mapEffect(Schema.encode(schema))
  const options = { progress }
  switch (kind) {
    case "logs":
      return Streams.logs({ ...range, address }, options).pipe(encode(Schemas.Log))
    case "txlist":
      return Streams.transactions({ ...range, address }, options).pipe(encode(Schemas.NormalTransaction))
    case "txlistinternal":
      return Streams.internalTransactions({ ...range, address }, options).pipe(encode(Schemas.InternalTransaction))
    case "tokentx":
      return Streams.erc20Transfers({ ...range, address }, options).pipe(encode(Schemas.Erc20Transfer))
    case "tokennfttx":
      return Streams.erc721Transfers({ ...range, address }, options).pipe(encode(Schemas.Erc721Transfer))
    case "token1155tx":
      return Streams.erc1155Transfers({ ...range, address }, options).pipe(encode(Schemas.Erc1155Transfer))
  }
}

/** The first block the plan's window cannot read whole, if any. */
const firstDenseBlock = (plan: Plan.Plan, kind: Kind, rowsPerBlock: ReadonlyArray<readonly [number, number]>) => {
  const { action } = actionOf[kind]
  const window = Plan.resultWindow(plan, Plan.operations[action as Plan.OperationName])
  return rowsPerBlock.find(([, count]) => count >= window)?.[0]
}

describe.each(["free", "standard"] as const)("streams on the %s plan equal the simulator's oracle", (plan) => {
  // Live services: the client's limiter runs on the real clock.
  layer(Layer.provideMerge(clientFor(plan), SimulatorLive), { timeout: "120 seconds", excludeTestServices: true })((it) => {
    for (const c of cases) {
      const rows = c.rowsPerBlock.reduce((n, [, count]) => n + count, 0)
      it.effect(`${c.kind}: ${c.rowsPerBlock.length} blocks, ${rows} rows`, () =>
        Effect.gen(function*() {
          const sim = yield* Simulator.Simulator
          const { action, module } = actionOf[c.kind]
          const expected = yield* sim.oracle({ chainId: CHAIN, module, action, params: { address: c.address } })
          expect(expected.length).toBe(rows)
          const result = yield* wireStream(c.kind, c.address).pipe(Stream.runCollect, Effect.either)
          const dense = firstDenseBlock(plan, c.kind, c.rowsPerBlock)
          if (dense === undefined) {
            expect(Chunk.toReadonlyArray(Either.getOrThrow(result))).toEqual(expected)
          } else {
            expect(Either.isLeft(result)).toBe(true)
            const error = Either.flip(result).pipe(Either.getOrThrow)
            expect(error._tag).toBe("DenseBlockError")
            expect(error.message).toContain(`block ${dense}`)
          }
        }))
    }
  })
})

describe("streams through one client", () => {
  const StrictSimulator = Simulator.layer({
    seed: 7,
    dailyCaps: false,
    dataset: {
      chains: [],
      scenarios: [
        { chainId: CHAIN, kind: "logs", address: "0x00000000000000000000000000000000000b0b01", rowsPerBlock: [[FROM + 5, 2_500], [FROM + 6, 10]] },
        { chainId: 137, kind: "txlist", address: "0x00000000000000000000000000000000000b0b02", rowsPerBlock: [[FROM + 1, 1_500], [FROM + 40, 700]] },
        { chainId: 1, kind: "tokenholderlist", address: "0x00000000000000000000000000000000000b0b03", rowsPerBlock: [[1, 10_500]] }
      ]
    }
  })
  const Live = Layer.provideMerge(
    Layer.unwrapEffect(
      Effect.map(Simulator.Simulator, (sim) =>
        Client.layer({ baseUrl: sim.baseUrl, apiKey: Redacted.make(sim.demoKeys.standard), plan: "standard" }))
    ).pipe(Layer.provide(NodeHttpClient.layerUndici)),
    StrictSimulator
  )

  layer(Live, { timeout: "120 seconds", excludeTestServices: true })((it) => {
    it.effect("merged streams of two chains and data sets share the limiter: exact rows, no rate-limit answer", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        yield* sim.resetStats
        const logs = Streams.logs({ chainId: CHAIN, address: "0x00000000000000000000000000000000000b0b01", fromBlock: FROM, toBlock: FROM + 100 })
        const txs = Streams.transactions({ chainId: 137, address: "0x00000000000000000000000000000000000b0b02", fromBlock: FROM, toBlock: FROM + 100 })
        const counts = yield* Stream.merge(
          logs.pipe(Stream.map(() => "logs" as const)),
          txs.pipe(Stream.map(() => "txs" as const))
        ).pipe(Stream.runFold({ logs: 0, txs: 0 }, (acc, k) => ({ ...acc, [k]: acc[k] + 1 })))
        expect(counts).toEqual({ logs: 2_510, txs: 2_200 })
        const stats = yield* sim.stats
        expect(stats.rateLimited).toBe(0)
      }))

    it.effect("progress reports calls, pages, rows and the block position", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        yield* sim.resetStats
        const progress = yield* Progress.make("logs", CHAIN)
        const n = yield* Streams.logs(
          { chainId: CHAIN, address: "0x00000000000000000000000000000000000b0b01", fromBlock: FROM, toBlock: FROM + 100 },
          { progress }
        ).pipe(Stream.runCount)
        const p = yield* progress.get
        expect(n).toBe(2_510)
        // 2,500 logs in one block: pages 1-3 inside it (1,000 + 1,000 + 500 + the 10 of the next block).
        expect(p).toMatchObject({ rows: 2_510, pages: 3, completeness: "complete", completeThrough: FROM + 100, targetBlock: FROM + 100 })
        // Every request answered is a call, a page used or not: where the first page takes longer than
        // the engine's patience (a loaded machine), the pages after it went too, and those the short
        // third page made needless count as calls, not pages. None the server did not see.
        expect(p.calls).toBeGreaterThanOrEqual(p.pages)
        expect(p.calls).toBeLessThanOrEqual((yield* sim.stats).byOperation["logs/getLogs"] ?? 0)
      }))

    it.effect("a holder list beyond the window fails with ResultWindowError, or ends truncated when allowed", () =>
      Effect.gen(function*() {
        const contractAddress = "0x00000000000000000000000000000000000b0b03"
        const error = yield* Streams.tokenHolders({ chainId: 1, contractAddress }).pipe(Stream.runDrain, Effect.flip)
        expect(error._tag).toBe("ResultWindowError")
        expect(error.message).toContain("after 10000 rows")
        const progress = yield* Progress.make("tokenHolders", 1)
        const n = yield* Streams.tokenHolders({ chainId: 1, contractAddress }, { allowPartial: true, progress }).pipe(Stream.runCount)
        expect(n).toBe(10_000)
        expect(yield* progress.get).toMatchObject({ completeness: "truncated", rows: 10_000 })
      }))

    it.effect("toBlock latest is resolved once, with getblocknobytime", () =>
      Effect.gen(function*() {
        const progress = yield* Progress.make("txs", 137)
        const n = yield* Streams.transactions(
          { chainId: 137, address: "0x00000000000000000000000000000000000b0b02", fromBlock: FROM },
          { progress }
        ).pipe(Stream.runCount)
        expect(n).toBe(2_200)
        const p = yield* progress.get
        expect(p.targetBlock).toBe(77_000_000)
        expect(p.calls).toBe(p.pages + 1)
      }))

    it.effect("bad queries are refused before any request", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        yield* sim.resetStats
        const noFilter = yield* Streams.logs({ chainId: 1 }).pipe(Stream.runDrain, Effect.flip)
        expect(noFilter._tag).toBe("InvalidInputError")
        const backwards = yield* Streams.transactions({ address: "0x00000000000000000000000000000000000b0b02", fromBlock: 10, toBlock: 5 }).pipe(Stream.runDrain, Effect.flip)
        expect(backwards._tag).toBe("InvalidInputError")
        const unknownChain = yield* Streams.transactions({ chainId: 17000, address: "0x00000000000000000000000000000000000b0b02" }).pipe(Stream.runDrain, Effect.flip)
        expect(unknownChain._tag).toBe("UnsupportedChainError")
        const noAddress = yield* Streams.erc20Transfers({ chainId: 1 }).pipe(Stream.runDrain, Effect.flip)
        expect(noAddress._tag).toBe("InvalidInputError")
        const badAddress = yield* Streams.transactions({ chainId: 1, address: "0x1234" }).pipe(Stream.runDrain, Effect.flip)
        expect(badAddress).toMatchObject({ _tag: "InvalidInputError", parameter: "address" })
        const badContract = yield* Streams.erc721Transfers({ chainId: 1, contractAddress: "vitalik.eth" }).pipe(Stream.runDrain, Effect.flip)
        expect(badContract).toMatchObject({ _tag: "InvalidInputError", parameter: "contractAddress" })
        const badTopic = yield* Streams.logs({ chainId: 1, topic0: "0xddf252ad" }).pipe(Stream.runDrain, Effect.flip)
        expect(badTopic).toMatchObject({ _tag: "InvalidInputError", parameter: "topic0" })
        const loneOperator = yield* Streams.logs({
          chainId: 1,
          topic0: "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",
          topicOperators: { "0_1": "or" }
        }).pipe(Stream.runDrain, Effect.flip)
        expect(loneOperator).toMatchObject({ _tag: "InvalidInputError", parameter: "topicOperators.0_1" })
        expect((yield* sim.stats).requests).toBe(0)
      }))
  })
})
