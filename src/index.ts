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

/**
 * The chain table and the branded `ChainId`.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Chain from "./Chain.js"
/**
 * Plans, their limits, and the operations table.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Plan from "./Plan.js"
/**
 * Client options, defaults, and the environment `Config` (with the one fallback for the API key).
 *
 * @since 0.1.0
 * @category modules
 */
export * as Config from "./Config.js"
/**
 * Every typed error, their union, and the guards.
 *
 * @since 0.1.0
 * @category modules
 */
export * as ExplorerError from "./ExplorerError.js"
/**
 * The `ExplorerClient` service: its tag, interface and layers.
 *
 * @since 0.1.0
 * @category modules
 */
export * as ExplorerClient from "./ExplorerClient.js"
/**
 * The per-key limiters shared by every client in the process.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Throttle from "./Throttle.js"
/**
 * Counts every request (retries included) a piece of work sends, wherever it calls the client from.
 *
 * @since 0.1.0
 * @category modules
 */
export * as CallCount from "./CallCount.js"
/**
 * Every record schema (`Schemas.Log`, `Schemas.Erc20Transfer`, …) and the field codecs.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Schemas from "./schemas/index.js"
/**
 * One exact-once `Stream` per data set (`Streams.logs`, `Streams.erc20Transfers`, …).
 *
 * @since 0.1.0
 * @category modules
 */
export * as Streams from "./streams/Streams.js"
/**
 * The data sets as sources: what to ask, how to page it, which schema writes it.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Sources from "./streams/Sources.js"
/**
 * Logs decoded by an ABI: the decoder, its `Stream` operator, and ABI fetching with an on-disk cache.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Events from "./streams/Events.js"
/**
 * Readable amounts: exact scaling by a token's decimals and ISO times (`Sources.withDecimals`).
 *
 * @since 0.1.0
 * @category modules
 */
export * as Readable from "./streams/Readable.js"
/**
 * Progress of a stream (pages, calls, rows, block position) as a SubscriptionRef.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Progress from "./streams/Progress.js"
/**
 * The block-cursor paging engine, for data sets the library does not name.
 *
 * @since 0.1.0
 * @category modules
 */
export * as BlockCursor from "./streams/engine/BlockCursor.js"
/**
 * The page-number paging engine, for paged lists the library does not name.
 *
 * @since 0.1.0
 * @category modules
 */
export * as PageNumbers from "./streams/engine/PageNumbers.js"
/**
 * `Exports.toFile(source, { out, resume, confirmations })`: the one way a data set goes into a file.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Exports from "./Exports.js"
/**
 * The file formats, checkpoints, manifests, lock and progress display behind `Exports.toFile`.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Sinks from "./sinks/index.js"
/**
 * The simulator's data set description when a program runs on it (none on the real API).
 *
 * @since 0.1.0
 * @category modules
 */
export * as DemoData from "./DemoData.js"
