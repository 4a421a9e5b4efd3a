/**
 * The one place that chooses between the embedded simulator and an explorer API: the layers of a
 * program's client and of the simulator's data set (`DemoData`), for the CLI and for scripts.
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as ExplorerConfig from "../Config.js"
import * as Client from "../ExplorerClient.js"
import type { ExplorerClient } from "../ExplorerClient.js"
import * as Plan from "../Plan.js"
import type * as Simulator from "../simulator/index.js"
import { DemoData } from "./DemoData.js"

/**
 * A program's client and the simulator's data set (`DemoData`), on Node's undici HTTP client: the one
 * place that chooses between the embedded simulator and an explorer API, for the CLI and for scripts.
 * With `simulator`, the simulator starts with the layer (and stops with it) and the client uses its
 * demo key for the plan of `client` (its base URL and key are the simulator's); else the client of
 * `client` (plain options, or a `Config` such as `Config.options`, the environment).
 *
 * @example
 * program.pipe(Effect.provide(Pipeline.explorerLayer({ plan: "standard" }, {}))) // on the simulator
 *
 * @since 0.1.0
 * @category layers
 */
export const explorerLayer = (
  client: ExplorerConfig.Options | Config.Config<ExplorerConfig.Options>,
  simulator?: Simulator.SimulatorOptions | undefined
): Layer.Layer<ExplorerClient | DemoData, unknown> => {
  const config = Config.isConfig(client) ? client : Config.succeed(client)
  const layer = simulator === undefined
    ? Layer.merge(Client.layerConfig(config), Layer.succeed(DemoData, Option.none()))
    : Layer.unwrapScoped(
      Effect.gen(function*() {
        // Loaded here: a process that never starts the simulator does not hold its modules.
        const { make } = yield* Effect.promise(() => import("../simulator/index.js"))
        const sim = yield* make(simulator)
        const options = yield* config
        const apiKey = Redacted.make(sim.demoKeys[options.plan ?? "free"])
        return Layer.merge(
          Client.layer({ ...options, baseUrl: sim.baseUrl, apiKey }),
          Layer.succeed(DemoData, Option.some(sim.dataset))
        )
      })
    )
  return layer.pipe(Layer.provide(NodeHttpClient.layerUndici))
}

/**
 * The client a pipeline or example script runs with when started by `tsx`: the real API when
 * EXPLORER_API_KEY (or ETHERSCAN_API_KEY) is set — every client option from the environment
 * (`Config.options`), the key's budget shared with the machine's other processes on it (`machineBudget`)
 * — else the embedded simulator with its demo key (plan EXPLORER_PLAN, default proplus so every
 * operation is allowed).
 *
 * @since 0.1.0
 * @category layers
 */
export const scriptLayer = (): Layer.Layer<ExplorerClient | DemoData, unknown> =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      // The key's budget is shared with the machine's other processes on it (CLI exports, pipelines).
      if (Option.isSome(yield* Config.option(ExplorerConfig.apiKey))) {
        return explorerLayer(Config.map(ExplorerConfig.options, (options) => ({ ...options, machineBudget: true })))
      }
      const plan = yield* Config.literal(...Plan.plans)("EXPLORER_PLAN").pipe(Config.withDefault("proplus" as const))
      return explorerLayer({ plan }, {})
    })
  )
