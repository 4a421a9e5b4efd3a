/**
 * explorer-etl: an Effect-native client and ETL toolkit for Etherscan-V2-style block-explorer APIs.
 *
 * Every module is a namespace, as in Effect's own packages (`ExplorerClient.ExplorerClient` is the
 * service tag, `ExplorerClient.layerConfig()` its layer from the environment). This entry loads no
 * command line, no simulator and no Node platform: those are `explorer-etl/simulator` (the local
 * explorer) and `explorer-etl/pipeline` (the Node runner of ready pipelines).
 *
 * @example
 * import { ExplorerClient } from "explorer-etl"
 * import { NodeHttpClient } from "@effect/platform-node"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const explorer = yield* ExplorerClient.ExplorerClient
 *   return yield* explorer.getLogs({ address: "0x…", fromBlock: 19_000_000, toBlock: "latest", page: 1, offset: 1000 })
 * })
 * program.pipe(Effect.provide(ExplorerClient.layerConfig()), Effect.provide(NodeHttpClient.layerUndici))
 *
 * @module explorer-etl
 * @since 0.1.0
 */

// The chain table and the branded `ChainId`.
export * as Chain from "./Chain.js"
// Plans, their limits, and the operations table.
export * as Plan from "./Plan.js"
// Client options, defaults, and the environment `Config` (with the one fallback for the API key).
export * as Config from "./Config.js"
// Every typed error, their union, and the guards.
export * as ExplorerError from "./ExplorerError.js"
// The `ExplorerClient` service: its tag, interface and layers.
export * as ExplorerClient from "./ExplorerClient.js"
// The per-key limiters shared by every client in the process.
export * as Throttle from "./Throttle.js"
// Counts every request (retries included) a piece of work sends, wherever it calls the client from.
export * as CallCount from "./CallCount.js"
// Every record schema (`Schemas.Log`, `Schemas.Erc20Transfer`, …) and the field codecs.
export * as Schemas from "./schemas/index.js"
// One exact-once `Stream` per data set (`Streams.logs`, `Streams.erc20Transfers`, …).
export * as Streams from "./streams/Streams.js"
// The data sets as sources: what to ask, how to page it, which schema writes it.
export * as Sources from "./streams/Sources.js"
// Logs decoded by an ABI: the decoder, its `Stream` operator, and ABI fetching with an on-disk cache.
export * as Events from "./streams/Events.js"
// Readable amounts: exact scaling by a token's decimals and ISO times (`Sources.withDecimals`).
export * as Readable from "./streams/Readable.js"
// Progress of a stream (pages, calls, rows, block position) as a SubscriptionRef.
export * as Progress from "./streams/Progress.js"
// The block-cursor paging engine, for data sets the library does not name.
export * as BlockCursor from "./streams/engine/BlockCursor.js"
// The page-number paging engine, for paged lists the library does not name.
export * as PageNumbers from "./streams/engine/PageNumbers.js"
// `Exports.toFile(source, { out, resume, confirmations })`: the one way a data set goes into a file.
export * as Exports from "./Exports.js"
// The file formats, checkpoints, manifests, lock and progress display behind `Exports.toFile`.
export * as Sinks from "./sinks/index.js"
