/**
 * `explorer-etl run <pipeline file> [--every "<cron>"] [--config file] [--out-dir DIR] [--no-durable]
 * [--cluster postgres://…] [--dry-run]`: run a pipeline once, or now and then on a cron schedule (UTC) until
 * interrupted; every run is incremental. A run is a workflow with a journal (`durable/PipelineRun`)
 * that survives a kill; `--no-durable` runs it in this process only (`Pipeline.run`); with `--cluster`
 * it is submitted to the runners of a cluster (`explorer-etl runner`, `durable/Cluster`) and this
 * process waits for its result. `--dry-run` prints what each export of one run would cost instead
 * (`Pipeline.estimate`, `PipelineRun.estimate`).
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { DemoData } from "../runner/DemoData.js"
import * as Pipeline from "../Pipeline.js"
import type { ExportSummary } from "../Exports.js"
import { restoreCliFlags } from "../V8Flags.js"
import * as DryRun from "./DryRun.js"
import * as Environment from "./Environment.js"
import { badFlag, loadWithPeer, loadWithPostgres, refusedFlag } from "./Errors.js"
import * as Flags from "./Flags.js"

const file = Args.text({ name: "pipeline file" }).pipe(Args.withDescription("a pipeline module, e.g. pipelines/token-activity.ts"))
const every = Options.text("every").pipe(
  Options.optional,
  Options.withDescription("cron expression (UTC), e.g. \"0 * * * *\": run now, then at every match, until interrupted")
)
const config = Options.text("config").pipe(Options.optional, Options.withDescription("config file replacing the pipeline's own"))
const outDir = Options.text("out-dir").pipe(Options.withDefault("out"), Options.withDescription("output folder (default ./out)"))
const confirmations = Flags.wholeNumber("confirmations", { min: 0, expected: "a number of blocks ≥ 0" }).pipe(
  Options.withDefault(0),
  Options.withDescription("keep the newest N blocks out until they are final")
)

// Durable is the default; `--durable`, its flag when it was not, is still accepted.
const durable = Options.boolean("durable").pipe(
  Options.withDescription("the default: run as a durable workflow (see --no-durable)")
)
const noDurable = Options.boolean("no-durable").pipe(
  Options.withDescription(
    "run in this process only, without the journal in <out-dir>/<pipeline>/.durable that lets the same " +
      "command continue a killed run without repeating finished exports (each export still resumes from its checkpoint)"
  )
)

/** `--cluster postgres://…` of `run` and `runner`. */
export const cluster = Options.text("cluster").pipe(
  Options.withDescription(
    "postgres://user@host:port/db: the database of a cluster of runners (explorer-etl runner); with run, " +
      "the run is submitted to them (durable) and this process waits for its result"
  )
)

const isPipeline = (value: unknown): value is Pipeline.AnyPipeline =>
  typeof value === "object" && value !== null && "name" in value && "run" in value && "config" in value &&
  "demoConfig" in value && typeof (value as { run: unknown }).run === "function"

/** tsx, the optional peer that runs `.ts` pipeline files, registered on first use. */
const registerTsx = (file: string) =>
  loadWithPeer("tsx", "4", "run", "pipeline file", async () => {
    const flag = globalThis as { __explorerEtlTsx?: boolean }
    if (flag.__explorerEtlTsx === true) return
    const { register } = await import("tsx/esm/api")
    register()
    flag.__explorerEtlTsx = true
  }).pipe(Effect.mapError((e) => badFlag("run", "pipeline file", `${file} is TypeScript: ${e.detail}`)))

/**
 * Imports a pipeline module: a `.js`/`.mjs` file as it is, a `.ts`/`.mts` file through tsx (an optional
 * peer, loaded on first use), so it runs as `npx tsx` would run it, importing "explorer-etl" as users do.
 */
const importPipeline = (path: string) =>
  Effect.zipRight(
    /\.[cm]?ts$/.test(path) ? registerTsx(path) : Effect.void,
    Effect.tryPromise({
      try: () => import(pathToFileURL(resolve(path)).href) as Promise<Record<string, unknown>>,
      catch: (cause) => badFlag("run", "pipeline file", `cannot load ${path}: ${loadFailure(path, cause)}`)
    }).pipe(
      // tsx's hooks thread, up once the module loaded through it, set V8's flags back: the CLI's again.
      Effect.tap(() => Effect.sync(restoreCliFlags))
    )
  )

/**
 * The durable runner, loaded on first use: the engine and its SQLite driver (the optional peer
 * @effect/sql-libsql) cost nothing to `--no-durable` runs.
 */
const loadDurable = Effect.mapError(
  loadWithPeer("@effect/sql-libsql", "0.42", "run", "--no-durable", () => import("../durable/PipelineRun.js")),
  (e) => badFlag("run", "--no-durable", `a durable run (the default; --no-durable runs without it) ${e.detail}`)
)

/** The cluster's modules, loaded on first use: PostgreSQL's driver is an optional peer dependency. */
export const loadCluster = (command: string) => loadWithPostgres(command, "--cluster", () => import("../durable/Cluster.js"))

/**
 * Why a pipeline module did not load, in the user's terms: a missing file is said so; Node's own text
 * loses the paths of this package (`… imported from …/dist/cli/RunCommand.js`) and keeps its first line.
 */
const loadFailure = (path: string, cause: unknown): string => {
  if (!existsSync(resolve(path))) return "no such file"
  const text = (cause instanceof Error ? cause.message : String(cause)).split("\n")[0] ?? ""
  return text.replace(/ imported from \S+/g, "").replace(/\S*\/dist\/cli\/\S+/g, "explorer-etl")
}

/** Loads the default export of a pipeline module. */
export const loadPipeline = (path: string) =>
  importPipeline(path).pipe(
    Effect.flatMap((module) =>
      isPipeline(module.default)
        ? Effect.succeed(module.default)
        : Effect.fail(badFlag("run", "pipeline file", `${path} has no default export made with Pipeline.make`))
    )
  )

/** One line per file written: path, rows in the file, completeness (and why, when truncated). */
export const printSummaries = (summaries: ReadonlyArray<ExportSummary>) =>
  Effect.forEach(summaries, (s) => Console.log(Pipeline.describeSummary(s)), { discard: true })

/** `explorer-etl run …` */
export const runCommand = Command.make(
  "run",
  { file, every, config, outDir, confirmations, durable, noDurable, cluster: Options.optional(cluster), dryRun: DryRun.flag, ...Environment.apiOptions },
  (a) =>
    Effect.gen(function*() {
      // A schedule of cluster runs is the runners' (one firing per tick across them, none lost while
      // they were all down): this process's loop would be neither, so it is refused, before anything.
      if (Option.isSome(a.every) && Option.isSome(a.cluster)) {
        return yield* Effect.fail(badFlag(
          "run",
          "--every",
          "with --cluster the schedule belongs to the runners: start every runner with " +
            "`explorer-etl runner <pipeline file> --cluster postgres://… --every \"<cron>\"` " +
            "(each tick then runs once across them); run --cluster without --every submits one run"
        ))
      }
      if (a.durable && a.noDurable) {
        return yield* Effect.fail(badFlag("run", "--no-durable", "--durable and --no-durable contradict each other: give one"))
      }
      if (a.noDurable && Option.isSome(a.cluster)) {
        return yield* Effect.fail(badFlag("run", "--no-durable", "a run on a cluster is always durable: drop --no-durable"))
      }
      // The schedule is checked before the pipeline is loaded: a typo costs nothing.
      const cron = Option.isSome(a.every) ? Option.some(yield* Flags.cron("run", a.every.value)) : Option.none()
      if (a.dryRun) {
        // One plan of the exports a run would make, here: no journal opened, no cluster asked (its
        // exports are counted from the published files), no schedule waited for.
        const pipeline = yield* loadPipeline(a.file)
        return yield* Effect.gen(function*() {
          const demo = yield* DemoData
          const targets = Option.isSome(demo) && Option.isNone(a.config)
            ? pipeline.demoConfig(demo.value)
            : yield* Pipeline.loadConfig(pipeline, { configFile: Option.getOrUndefined(a.config) })
          const options = { outDir: a.outDir, confirmations: a.confirmations }
          // A durable run (the default) continues a killed run's staged exports: estimated from there.
          const estimates = a.noDurable || Option.isSome(a.cluster)
            ? yield* Pipeline.estimate(pipeline, targets, options)
            : yield* Effect.flatMap(loadDurable, (durable) => durable.estimate(pipeline, targets, options))
          yield* DryRun.print(estimates, a)
        }).pipe(
          Effect.catchTag("SinkError", refusedFlag("run", a.chain, ["confirmations"])),
          Effect.provide(Environment.clientLayer(a)),
          Effect.provide(NodeContext.layer)
        )
      }
      // The durable engine's modules first: a missing optional peer is said before anything runs.
      const durableRun = !a.noDurable && Option.isNone(a.cluster) ? Option.some(yield* loadDurable) : Option.none()
      const pipeline = yield* loadPipeline(a.file)
      const once = Effect.gen(function*() {
        const demo = yield* DemoData
        const targets = Option.isSome(demo) && Option.isNone(a.config)
          ? pipeline.demoConfig(demo.value)
          : yield* Pipeline.loadConfig(pipeline, { configFile: Option.getOrUndefined(a.config) })
        const runOptions = { outDir: a.outDir, quiet: a.quiet, confirmations: a.confirmations }
        // Loaded only when asked for: the engine, SQLite or PostgreSQL and their modules cost nothing to other runs.
        const clusterUrl = Option.getOrUndefined(a.cluster)
        const summaries = clusterUrl !== undefined
          ? yield* Effect.flatMap(loadCluster("run"), (c) =>
            c.run(pipeline, targets, clusterUrl, runOptions).pipe(
              // The database unreachable: the flag's fault, said as the runner says it.
              Effect.catchTag("SqlError", (e) => Effect.fail(badFlag("run", "--cluster", `the cluster's database: ${e.message}`)))
            ))
          : Option.isNone(durableRun)
          ? yield* Pipeline.run(pipeline, targets, runOptions)
          : yield* durableRun.value.run(pipeline, targets, runOptions)
        yield* printSummaries(summaries)
      }).pipe(
        // Interrupted while a run was under way: how to continue it (a cluster's run goes on on its runners).
        Effect.onInterrupt(() =>
          Option.isSome(a.cluster) ? Effect.void : Effect.sync(() =>
            void process.stderr.write(
              a.noDurable
                ? "interrupted: run the same command to continue (each export resumes from its checkpoint)\n"
                : "interrupted: run the same command to continue this run (finished exports are not repeated)\n"
            ))
        )
      )
      yield* Option.match(cron, { onNone: () => once, onSome: (c) => Pipeline.schedule(once, c) }).pipe(
        Effect.catchTag("SinkError", refusedFlag("run", a.chain, ["confirmations"])),
        Effect.provide(Environment.clientLayer(a)),
        Effect.provide(NodeContext.layer)
      )
    })
).pipe(Command.withDescription("run a pipeline once, or on a schedule with --every; each run is incremental"))
