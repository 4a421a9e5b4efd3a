/**
 * The composable pieces of issue 15 from the public entry (`explorer-etl`), as a user writes them: a
 * `Stream` of decoded events (`Streams.events`, or `Streams.logs(…).pipe(Events.decodeLogs(decoder))`)
 * run into a Parquet `Sink` (`Sinks.Parquet.sink`); DuckDB reads the file back with the oracle's
 * Transfer logs decoded by hand. A stream that fails leaves no file, not even a partial one.
 */
import { duckdbRows } from "../duckdb.js"
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { Chunk, Effect, Layer, Redacted, Stream } from "effect"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
// The package's own entry, as users import it (vitest maps the name to src/index.ts).
import { Events, ExplorerClient, Sinks, Streams } from "explorer-etl"
import * as Simulator from "../../src/simulator/index.js"

const CHAIN = 1
const SimulatorLive = Simulator.layer({
  seed: 11,
  enforceRateLimits: false,
  dailyCaps: false,
  dataset: { chains: [CHAIN], busyWalletTransactions: 0, heavyContractLogs: 0 }
})
const ClientLive = Layer.unwrapEffect(
  Effect.map(Simulator.Simulator, (sim) =>
    ExplorerClient.layer({
      baseUrl: sim.baseUrl,
      apiKey: Redacted.make(sim.demoKeys.standard),
      plan: "standard",
      defaultChainId: CHAIN,
      rate: { callsPerSecond: 1_000, throttledPerSecond: 1_000 }
    }))
).pipe(Layer.provide(NodeHttpClient.layerUndici))
const Live = Layer.provideMerge(Layer.merge(ClientLive, NodeContext.layer), SimulatorLive)

const dir = mkdtempSync(join(tmpdir(), "explorer-etl-parquet-sink-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const query = duckdbRows

type Wire = Readonly<Record<string, unknown>>
const hexNumber = (text: unknown): number => (text === "0x" ? 0 : Number(BigInt(text as string)))

layer(Live, { timeout: "120 seconds", excludeTestServices: true })("a Stream of decoded events into a Parquet Sink", (it) => {
  it.effect("Streams.logs → Events.decodeLogs → Stream.run(Sinks.Parquet.sink): DuckDB reads the oracle's Transfers decoded by hand", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const token = sim.dataset.chain(CHAIN).proxyToken
      const { abi } = yield* Events.fetchAbi({ address: token.address })
      const decoder = yield* Events.decoder(abi, { event: "Transfer" })
      const out = join(dir, "transfers.parquet")
      const finished = yield* Streams.logs({ address: token.address, topic0: decoder.topic0 }).pipe(
        Events.decodeLogs(decoder),
        Stream.run(Sinks.Parquet.sink(out, decoder.schema, { floats: true, rowGroupRows: 3 }))
      )
      const logs = (yield* Effect.orDie(sim.oracle({
        chainId: CHAIN, module: "logs", action: "getLogs",
        params: { address: token.address, topic0: Simulator.TRANSFER_TOPIC, fromBlock: 0, toBlock: 99_999_999 }
      }))) as ReadonlyArray<Wire>
      expect(finished.rows).toBe(logs.length)
      expect(finished.rowGroups).toBe(Math.ceil(logs.length / 3))
      const rows = yield* query(
        `SELECT blockNumber::INTEGER AS blockNumber, logIndex::INTEGER AS logIndex, event, "from", "to", value, value_float,
         topic3 FROM read_parquet('${out}')`
      )
      expect(rows).toEqual(logs.map((l) => {
        const topics = l.topics as ReadonlyArray<string>
        const decodes = topics.length === 3
        const value = decodes ? BigInt(l.data as string).toString() : null
        return {
          blockNumber: hexNumber(l.blockNumber),
          logIndex: hexNumber(l.logIndex),
          event: decodes ? "Transfer" : "",
          from: decodes ? `0x${String(topics[1]).slice(26)}` : null,
          to: decodes ? `0x${String(topics[2]).slice(26)}` : null,
          value,
          value_float: value === null ? null : Number(value),
          topic3: topics[3] ?? null
        }
      }))
      // The same rows as the events data set's own stream.
      const viaStreams = yield* Stream.runCollect(Streams.events({ address: token.address, abi, event: "Transfer" }))
      expect(Chunk.toReadonlyArray(viaStreams).map((r) => [r.transactionHash, r.logIndex, r.event])).toEqual(
        rows.map((r, i) => [logs[i]?.transactionHash, r.logIndex, r.event])
      )
      expect(readdirSync(dir).filter((n) => n.endsWith(".partial"))).toEqual([])
    }))

  it.effect("a stream that fails leaves the output as it was and no partial file", () =>
    Effect.gen(function*() {
      const decoder = yield* Events.decoder([], { event: "Transfer(address indexed from,address indexed to,uint256 value)" })
      const out = join(dir, "failed.parquet")
      writeFileSync(out, "the previous file")
      const log = {
        address: "0x00000000000000000000000000000000000000aa", blockNumber: 1, timeStamp: 1, logIndex: 0,
        transactionHash: `0x${"1".repeat(64)}`, topics: [`0x${"2".repeat(64)}`], data: "0x"
      }
      const failed = yield* Stream.make(log, log).pipe(
        Stream.concat(Stream.fail("the source broke")),
        Events.decodeLogs(decoder),
        Stream.run(Sinks.Parquet.sink(out, decoder.schema)),
        Effect.flip
      )
      expect(failed).toBe("the source broke")
      expect(readFileSync(out, "utf8")).toBe("the previous file")
      expect(readdirSync(dir).filter((n) => n.startsWith(".failed"))).toEqual([])
    }))
})
