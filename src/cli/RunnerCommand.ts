/**
 * `explorer-etl runner <pipeline file> --cluster postgres://… [--host H] [--port N]`: a runner of a
 * cluster (`durable/Cluster`) — it takes its share of the cluster's shards and runs the workflows of
 * the pipeline's runs that fall in them, until interrupted (Ctrl-C, SIGTERM). Runs are submitted by
 * `explorer-etl run <pipeline file> --cluster postgres://…`; every runner loads the same pipeline.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Environment from "./Environment.js"
import { badFlag } from "./Errors.js"
import { cluster, loadCluster, loadPipeline } from "./RunCommand.js"

const file = Args.text({ name: "pipeline file" }).pipe(Args.withDescription("the pipeline module whose runs this runner runs"))
const host = Options.text("host").pipe(
  Options.withDefault("127.0.0.1"),
  Options.withDescription("the address other runners reach this one at, and it listens on (default 127.0.0.1)")
)
const port = Options.integer("port").pipe(
  Options.withDefault(34431),
  Options.withDescription("the port this runner listens on for the other runners (default 34431)")
)

/** `explorer-etl runner …` */
export const runnerCommand = Command.make(
  "runner",
  { file, cluster, host, port, ...Environment.apiOptions },
  (a) =>
    Effect.gen(function*() {
      if (a.port < 1 || a.port > 65535) return yield* Effect.fail(badFlag("runner", "--port", "must be a port (1-65535)"))
      const pipeline = yield* loadPipeline(a.file)
      const Cluster = yield* loadCluster("runner")
      const runner = Cluster.runnerLayer(pipeline, { url: a.cluster, host: a.host, port: a.port }, Environment.clientLayer(a)).pipe(
        // Storage or socket failing at start: the set-up is wrong (database unreachable, port taken).
        Layer.catchAll((e) =>
          Layer.fail(
            typeof e === "object" && e !== null && "_tag" in e && (e._tag === "SqlError" || e._tag === "SocketServerError" || e._tag === "ConfigError")
              ? badFlag("runner", "--cluster", `the runner did not start: ${String((e as { message?: unknown }).message)}`)
              : e
          )
        )
      )
      yield* Effect.gen(function*() {
        yield* Console.log(`runner ${a.host}:${a.port} of ${pipeline.name} ready`)
        return yield* Effect.never
      }).pipe(
        Effect.provide(runner),
        Effect.provide(NodeContext.layer)
      )
    })
).pipe(
  Command.withDescription("run the workflows of a pipeline's cluster runs (run --cluster) until interrupted")
)
