/**
 * `explorer-etl runner <pipeline file> --cluster postgres://… [--host H] [--port N] [--every "<cron>"
 * [--config file] [--out-dir DIR] [--confirmations N]]`: a runner of a cluster (`durable/Cluster`) —
 * it takes its share of the cluster's shards and runs the workflows of the pipeline's runs that fall
 * in them, until interrupted (Ctrl-C, SIGTERM). Runs are submitted by `explorer-etl run <pipeline
 * file> --cluster postgres://…`; every runner loads the same pipeline. With `--every`, the cluster
 * also runs the pipeline on that schedule (`Cluster.scheduleLayer`: one firing per tick across the
 * runners given the same schedule, a tick missed while all were down fired when one comes back);
 * `run --cluster --every` is refused and points here.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { DemoData } from "../runner/DemoData.js"
import * as Pipeline from "../Pipeline.js"
import * as Environment from "./Environment.js"
import { badFlag } from "./Errors.js"
import * as Flags from "./Flags.js"
import { cluster, loadCluster, loadPipeline } from "./RunCommand.js"

const file = Args.text({ name: "pipeline file" }).pipe(Args.withDescription("the pipeline module whose runs this runner runs"))
const host = Options.text("host").pipe(
  Options.withDefault("127.0.0.1"),
  Options.withDescription("the address other runners reach this one at, and it listens on (default 127.0.0.1)")
)
const port = Flags.wholeNumber("port", { min: 1, max: 65535, expected: "a port from 1 to 65535" }).pipe(
  Options.withDefault(34431),
  Options.withDescription("the port this runner listens on for the other runners (default 34431)")
)

const partRows = Flags.wholeNumber("part-rows", { min: 1, expected: "a whole number of rows ≥ 1" }).pipe(
  Options.withDefault(100_000),
  Options.withDescription(
    "rows of a part when one export is cut into parts the runners share (default 100,000): exports with fewer than " +
      "two parts' worth after their first page are read whole by one runner"
  )
)
const every = Options.text("every").pipe(
  Options.optional,
  Options.withDescription(
    "cron expression (UTC; 6 fields: seconds first), e.g. \"0 * * * *\": the cluster runs the pipeline at every match, " +
      "once across the runners given the same schedule; a tick due while all were down runs when one is back (within a day)"
  )
)
const config = Options.text("config").pipe(
  Options.optional,
  Options.withDescription("with --every: config file replacing the pipeline's own")
)
const outDir = Options.text("out-dir").pipe(
  Options.withDefault("out"),
  Options.withDescription("with --every: output folder of the scheduled runs (default ./out), the same path on every runner")
)
const confirmations = Flags.wholeNumber("confirmations", { min: 0, expected: "a number of blocks ≥ 0" }).pipe(
  Options.withDefault(0),
  Options.withDescription("with --every: keep the newest N blocks out until they are final")
)

/** Storage or socket failing at start: the set-up is wrong (database unreachable, port taken). */
const notStarted = <E>(e: E) =>
  typeof e === "object" && e !== null && "_tag" in e && (e._tag === "SqlError" || e._tag === "SocketServerError" || e._tag === "ConfigError")
    ? badFlag("runner", "--cluster", `the runner did not start: ${String((e as { message?: unknown }).message)}`)
    : e

/** `explorer-etl runner …` */
export const runnerCommand = Command.make(
  "runner",
  { file, cluster, host, port, partRows, every, config, outDir, confirmations, ...Environment.apiOptions },
  (a) =>
    Effect.gen(function*() {
      // The schedule is checked before anything, as `run --every` checks it.
      if (Option.isSome(a.every)) yield* Flags.cron("runner", a.every.value)
      const pipeline = yield* loadPipeline(a.file)
      const configFile = Option.getOrUndefined(a.config)
      // Runs submitted with run --cluster bring their config; only a schedule's runs take this one.
      if (configFile !== undefined && Option.isNone(a.every)) {
        return yield* Effect.fail(badFlag("runner", "--config", "is the config of a schedule's runs: give it with --every"))
      }
      // With a schedule: read now (a bad file is refused before the runner starts), but with --simulator
      // and no file the demo targets, known once the simulator is up.
      const demoTargets = a.simulator && configFile === undefined
      const fileConfig = Option.isNone(a.every) || demoTargets ? undefined : yield* Pipeline.loadConfig(pipeline, { configFile })
      const schedule = Option.isNone(a.every) ? undefined : {
        cron: a.every.value,
        config: fileConfig === undefined
          ? Effect.flatMap(DemoData, (demo) =>
            Option.isSome(demo) ? Effect.succeed(pipeline.demoConfig(demo.value)) : Pipeline.loadConfig(pipeline, {}))
          : Effect.succeed(fileConfig),
        outDir: a.outDir,
        confirmations: a.confirmations,
        quiet: a.quiet
      }
      const Cluster = yield* loadCluster("runner")
      const options = { url: a.cluster, host: a.host, port: a.port, partRows: a.partRows }
      // Another schedule kept by the cluster is refused before this runner listens (the demo targets'
      // schedule, known once the simulator is up, as it starts).
      if (schedule !== undefined && fileConfig !== undefined) {
        yield* Cluster.checkSchedule(pipeline, { ...schedule, config: Effect.succeed(fileConfig) }, options).pipe(
          Effect.mapError(notStarted)
        )
      }
      const runner = Cluster.runnerLayer(pipeline, options, Environment.clientLayer(a), schedule).pipe(
        Layer.catchAll((e) => Layer.fail(notStarted(e)))
      )
      yield* Effect.gen(function*() {
        yield* Console.log(
          `runner ${a.host}:${a.port} of ${pipeline.name} ready${Option.isSome(a.every) ? ` (every "${a.every.value}" UTC)` : ""}`
        )
        return yield* Effect.never
      }).pipe(
        Effect.provide(runner),
        Effect.provide(NodeContext.layer)
      )
    })
).pipe(
  Command.withDescription(
    "run the workflows of a pipeline's cluster runs (run --cluster) until interrupted; with --every, also the runs of a schedule"
  )
)
