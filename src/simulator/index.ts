/**
 * explorer-etl's own explorer: an HTTP server that answers `/v2/api` as the real service does, over a
 * deterministic multichain data set, with API keys and plans, rate limits, daily caps, fault injection,
 * statistics and an oracle.
 * Exported as `explorer-etl/simulator`; started by `explorer-etl simulator`.
 *
 * @example
 * import { Effect } from "effect"
 * import * as Simulator from "explorer-etl/simulator"
 *
 * const program = Effect.gen(function*() {
 *   const sim = yield* Simulator.Simulator
 *   const susd = sim.dataset.chain(1).erc20[0]?.address
 *   const url = `${sim.baseUrl}/v2/api?chainid=1&module=account&action=tokentx&contractaddress=${susd}` +
 *     `&apikey=${sim.demoKeys.standard}`
 *   const body = yield* Effect.promise(() => fetch(url).then((r) => r.json()))
 *   const expected = yield* sim.oracle({ chainId: 1, module: "account", action: "tokentx", params: { contractaddress: susd } })
 * }).pipe(Effect.provide(Simulator.layer({ seed: 7 })))
 *
 * @module explorer-etl/simulator
 * @since 0.1.0
 */
import type { ServeError } from "@effect/platform/HttpServerError"
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import * as Server from "./server.js"
import type { SimulatorOptions } from "./options.js"

export { demoKeys, keyFingerprint } from "./core.js"
export type { Json, OracleQuery, SimulatorStats, WireRecord } from "./core.js"
export type {
  ChainDataset,
  DatasetDescription,
  DenseBlockRef,
  EntityRef,
  LabelRef,
  TokenRef
} from "./dataset.js"
export { DEFAULT_BUSY_WALLET_TRANSACTIONS, DEFAULT_HEAVY_CONTRACT_LOGS, DENSE_ROWS, DEV_ACCOUNT } from "./dataset.js"
export { FaultSpecError, faultKinds, parseFaultSpec } from "./options.js"
export type { DatasetOptions, FaultKind, FaultOptions, Scenario, ScenarioKind, SimulatorOptions } from "./options.js"
export { SimulatorOracleError } from "./oracleError.js"
export { shapeDescriptions, shapeNames, shapePlans, shapeSizes } from "./shapes.js"
export type { ShapeName, ShapePlan, ShapeRef, ShapeSize } from "./shapes.js"
export type { SimulatorService } from "./server.js"
export { banner, make, serve } from "./server.js"
export { APPROVAL_TOPIC, TRANSFER_SINGLE_TOPIC, TRANSFER_TOPIC } from "./world.js"
export { SWAP_TOPIC } from "./synthetic.js"

/**
 * The running simulator: base URL, demo keys, data set description, stats, faults, oracle.
 *
 * @since 0.1.0
 * @category services
 */
export class Simulator extends Context.Tag("explorer-etl/Simulator")<Simulator, Simulator.Service>() {}

/**
 * Types of the `Simulator` service.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace Simulator {
  /**
   * See `SimulatorService`.
   *
   * @since 0.1.0
   * @category models
   */
  export type Service = Server.SimulatorService
}

/**
 * A scoped layer that starts the simulator (127.0.0.1 and a random free port unless `host`/`port`
 * are given) and stops it when the scope closes.
 *
 * @example
 * import { ExplorerClient, Streams } from "explorer-etl"
 * import * as Simulator from "explorer-etl/simulator"
 * import { NodeHttpClient } from "@effect/platform-node"
 * import { Effect, Layer, Redacted, Stream } from "effect"
 *
 * // The client, pointed at the simulator with one of its demo keys.
 * const ClientOnSimulator = Layer.unwrapEffect(Effect.map(Simulator.Simulator, (sim) =>
 *   ExplorerClient.layer({ baseUrl: sim.baseUrl, apiKey: Redacted.make(sim.demoKeys.standard), plan: "standard" })
 * ))
 * const program = Effect.gen(function*() {
 *   const sim = yield* Simulator.Simulator
 *   const token = sim.dataset.chain(1).erc20[0]?.address ?? ""
 *   return yield* Stream.runCount(Streams.erc20Transfers({ chainId: 1, contractAddress: token }))
 * })
 * program.pipe(
 *   Effect.provide(ClientOnSimulator),
 *   Effect.provide(Simulator.layer({ seed: 7 })),
 *   Effect.provide(NodeHttpClient.layerUndici)
 * )
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: SimulatorOptions = {}): Layer.Layer<Simulator, ServeError> =>
  Layer.scoped(Simulator, Server.make(options))
