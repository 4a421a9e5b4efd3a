// A consumer's TypeScript file, type-checked against the installed package's declarations.
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { Effect, Redacted, Stream } from "effect"
import { ExplorerClient, ExplorerError, Exports, Schemas, Sources, Streams } from "explorer-etl"
import * as Pipeline from "explorer-etl/pipeline"
import * as Simulator from "explorer-etl/simulator"

const transfers: Effect.Effect<ReadonlyArray<Schemas.Erc20Transfer>, ExplorerError.ExplorerError, ExplorerClient.ExplorerClient> =
  Effect.flatMap(ExplorerClient.ExplorerClient, (client) =>
    client.tokentx({ contractAddress: "0xdac17f958d2ee523a2206206994597c13d831ec7", page: 1, offset: 100 }))

const toFile = Effect.gen(function*() {
  const source = yield* Sources.logs({ address: "0xdac17f958d2ee523a2206206994597c13d831ec7", fromBlock: 1 })
  const summary = yield* Exports.toFile(source, { out: "logs.csv" })
  const rows: number = summary.manifest.rows
  return rows
})

// The README's "your own rows through the same door".
const token = "0xdac17f958d2ee523a2206206994597c13d831ec7"
const bigTransfers = Effect.gen(function*() {
  const mine = Sources.fromStream({ dataset: "bigTransfers", chainId: 1, plan: "standard", query: { token },
    schema: Schemas.Erc20Transfer, rows: Streams.erc20Transfers({ contractAddress: token }).pipe(
      Stream.filter((t) => t.value > 10n ** 24n)) })
  return yield* Exports.toFile(mine, { out: "out/big-transfers.jsonl" })
})
export const guard: (u: unknown) => u is ExplorerError.ExplorerError = ExplorerError.isExplorerError

const layer = ExplorerClient.layer({ apiKey: Redacted.make("key"), plan: "standard" })
export const programs = [
  transfers.pipe(Effect.provide(layer), Effect.provide(NodeHttpClient.layerUndici)),
  toFile.pipe(Effect.provide(layer), Effect.provide(NodeHttpClient.layerUndici), Effect.provide(NodeContext.layer)),
  bigTransfers.pipe(Effect.provide(layer), Effect.provide(NodeHttpClient.layerUndici), Effect.provide(NodeContext.layer))
]
export const simulator = Simulator.layer({ seed: 1 })
export const isPipeline: (u: unknown) => boolean = (u) => typeof u === "object" && u !== null && Pipeline.make !== undefined
// @ts-expect-error: a block number must be a number, checked by the declarations
export const wrong = Sources.logs({ address: "0x", fromBlock: "1" })
