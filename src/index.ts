/**
 * explorer-etl: an Effect-native client and ETL toolkit for Etherscan-V2-style block-explorer APIs.
 *
 * Modules are exported as namespaces (`Chain`, `Plan`, `Errors`, `Config`, `Client`, `Throttle`,
 * `ServerTexts`, `Schemas`, `Streams`, `Sources`, `Progress`, `Exports`, `Sinks`, `Pipeline`); the
 * names used most — the `ExplorerClient` tag, the error classes and the record schemas — are
 * exported directly too. The simulator is `explorer-etl/simulator`.
 *
 * @example
 * import { Client, ExplorerClient } from "explorer-etl"
 * import { NodeHttpClient } from "@effect/platform-node"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const explorer = yield* ExplorerClient
 *   return yield* explorer.getLogs({ address: "0x…", fromBlock: 19_000_000, toBlock: "latest", page: 1, offset: 1000 })
 * })
 * program.pipe(Effect.provide(Client.layerConfig()), Effect.provide(NodeHttpClient.layerUndici))
 */

/** The chain table and the branded `ChainId`. */
export * as Chain from "./Chain.js"
/** Plans, their limits, and the operations table. */
export * as Plan from "./Plan.js"
/** The typed errors and the classifier of server answers. */
export * as Errors from "./Errors.js"
/** Client options, defaults, and the environment `Config`. */
export * as Config from "./Config.js"
/** The `ExplorerClient` service and its layers. */
export * as Client from "./Client.js"
/** The per-key limiters shared by every client in the process. */
export * as Throttle from "./Throttle.js"
/** The server's exact texts (shared with the simulator). */
export * as ServerTexts from "./ServerTexts.js"
/** Every record schema, as one namespace. */
export * as Schemas from "./schemas/index.js"
/** One exact-once `Stream` per data set (`Streams.logs`, `Streams.erc20Transfers`, …). */
export * as Streams from "./streams/Streams.js"
/** The data sets as sources: what to ask, how to page it, which schema writes it. */
export * as Sources from "./streams/Sources.js"
/** Progress of a stream (pages, calls, rows, block position) as a SubscriptionRef. */
export * as Progress from "./streams/Progress.js"
/** The paging engines, for data sets the library does not name. */
export * as BlockCursor from "./streams/BlockCursor.js"
/** `Exports.toFile(source, { out, resume, confirmations })`: a data set to a CSV/JSONL file. */
export * as Exports from "./Exports.js"
/** The CSV/JSONL sinks, the export runner, checkpoints and manifests. */
export * as Sinks from "./sinks/index.js"
/** Ready pipelines: `Pipeline.make`, `Pipeline.run`, `Pipeline.main`. */
export * as Pipeline from "./Pipeline.js"

/** The client service tag (`yield* ExplorerClient`). */
export { ExplorerClient } from "./Client.js"
/** Parameter, result and option types of the client's methods. */
export type { CallOptions, ParamsOf, RequestArgs, ResultOf, Stats } from "./Client.js"
/** The typed errors, their union, and the classifier helpers. */
export {
  ChainNotOnPlanError,
  DecodeError,
  DenseBlockError,
  ExplorerError,
  InvalidApiKeyError,
  InvalidInputError,
  isNotVerified,
  isTransient,
  NotOkError,
  PlanTierError,
  QueryTimeoutError,
  RateLimitError,
  ResultWindowError,
  type StreamError,
  TransportError,
  UnsupportedChainError
} from "./Errors.js"
/** The branded chain id. */
export { ChainId } from "./Chain.js"
/** Every record schema by name (`Erc20Transfer`, `Log`, `AddressTag`, …). */
export * from "./schemas/index.js"
