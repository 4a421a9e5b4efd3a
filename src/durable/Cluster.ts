/**
 * A pipeline run shared by several runner processes through PostgreSQL (issue 18, cluster mode):
 * `explorer-etl runner <pipeline> --cluster postgres://…` on each machine, then
 * `explorer-etl run <pipeline> --cluster postgres://…` to submit a run and print its result.
 *
 * The engine is `@effect/cluster`'s `ClusterWorkflowEngine` on socket runners (`NodeClusterSocket`),
 * their messages, replies and shard locks in PostgreSQL (`SqlMessageStorage`, `SqlRunnerStorage` on
 * `@effect/sql-pg`). A run is two workflows:
 * - `explorer-etl/run/<pipeline>`: the run (key: pipeline, config hash, run time, output folder). Its
 *   body runs the pipeline; every `context.export(file, …)` is a child workflow, and once all of them
 *   ended the `commit` activity moves the staged files in place (as the embedded run does);
 * - `explorer-etl/export/<pipeline>`: one export, keyed by the run's key and the file, so its
 *   execution id — the entity the cluster shards — differs per file and the exports of a run spread
 *   over the runners' shards. Its body runs the pipeline again only to find the source of its file
 *   (see {@link findExport}), then writes it staged in one `Activity`, as the embedded run does.
 *
 * Every runner must load the same pipeline module and reach the same output folder at the same
 * absolute path (one machine, or a shared filesystem); the files a run publishes are byte-identical
 * to those of `Pipeline.run`. Each runner's client has its own key and plan; the calls of one key, from
 * every runner, share one budget in the database (`KeyBudget`), calls per UTC day included: once the
 * key's day is spent, an export waits (durably, `DurableClock`) until the next 00:00 UTC plus a minute
 * and continues from its checkpoint, as in `PipelineRun`; its runner prints `<runner> <file>: waiting
 * for the daily cap until <time> UTC …`, and `explorer-etl status --cluster` shows the wait.
 */
import * as ClusterWorkflowEngine from "@effect/cluster/ClusterWorkflowEngine"
import * as RunnerAddress from "@effect/cluster/RunnerAddress"
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Activity from "@effect/workflow/Activity"
import * as Workflow from "@effect/workflow/Workflow"
import type { WorkflowEngine, WorkflowInstance } from "@effect/workflow/WorkflowEngine"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type { ExplorerClient } from "../ExplorerClient.js"
import type { StreamError } from "../ExplorerError.js"
import type * as Exports from "../Exports.js"
import * as Pipeline from "../Pipeline.js"
import type * as Sources from "../streams/Sources.js"
import {
  commitOne,
  ExportFailure,
  ExportOutcome,
  ExportSummary,
  exportStaged,
  exportWithDailyCap,
  plainStderr,
  prepare,
  RunKey,
  type RunOptions,
  waitingForDailyCap
} from "./internal/staged.js"
import * as KeyBudget from "./KeyBudget.js"

/** A run as the cluster stores it: its key and everything a runner needs to run it. */
export const ClusterRun = Schema.Struct({
  ...RunKey.fields,
  /** The pipeline's output folder, absolute: every runner writes there. */
  outDir: Schema.String,
  /** The config, encoded by the pipeline's schema, as JSON. */
  config: Schema.String,
  confirmations: Schema.Number,
  concurrency: Schema.Number,
  quiet: Schema.Boolean
})
/** @see ClusterRun */
export type ClusterRun = typeof ClusterRun.Type

const runKeyText = (run: ClusterRun): string => [run.pipeline, run.configHash, run.runTime, run.outDir].join("\n")

/** The two workflows of a pipeline's runs: the same definitions in every runner and in the submitter. */
export const workflows = (pipelineName: string) => ({
  Run: Workflow.make({
    name: `explorer-etl/run/${pipelineName}`,
    payload: ClusterRun,
    success: Schema.Array(ExportSummary),
    error: ExportFailure,
    idempotencyKey: runKeyText
  }),
  Export: Workflow.make({
    name: `explorer-etl/export/${pipelineName}`,
    payload: { run: ClusterRun, file: Schema.String, stageDir: Schema.String },
    success: ExportSummary,
    error: ExportFailure,
    idempotencyKey: (p) => `${runKeyText(p.run)}\n${p.file}`
  })
})

/** Thrown (as a defect) by the context of {@link findExport} when the pipeline asks for the file sought. */
class Found {
  constructor(
    readonly source: Sources.Source<unknown, unknown> | Effect.Effect<Sources.Source<unknown, unknown>, StreamError, ExplorerClient>,
    readonly options: { readonly allowPartial?: boolean | undefined; readonly confirmations?: number | undefined } | undefined
  ) {}
}

/**
 * The source (and options) a pipeline exports into `file` for `config`: its `run` with a context whose
 * `export` stops the run at that file and answers every other export at once, unrun — with a summary
 * of nothing (no manifest), so a pipeline whose exports depend on the results of other exports cannot
 * run on a cluster. Dies when the pipeline never exports `file` (it is not deterministic).
 */
const findExport = <C, I>(pipeline: Pipeline.Pipeline<C, I>, config: C, run: ClusterRun, file: string) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const context: Pipeline.PipelineContext = {
      outDir: run.outDir,
      concurrency: run.concurrency,
      export: (f, source, options) =>
        f === file
          ? Effect.die(new Found(source as Found["source"], options))
          : Effect.succeed(
            { out: path.join(run.outDir, f), rowsWritten: 0 } as unknown as Exports.ExportSummary
          )
    }
    return yield* pipeline.run(config, context).pipe(
      Effect.flatMap(() => Effect.dieMessage(`pipeline ${pipeline.name} did not export ${file} in this run`)),
      Effect.catchSomeDefect((defect) => defect instanceof Found ? Option.some(Effect.succeed(defect)) : Option.none())
    )
  })

/** The config a run carries, decoded by the pipeline's schema (the submitter encoded it: it decodes). */
const configOf = <C, I>(pipeline: Pipeline.Pipeline<C, I>, run: ClusterRun) =>
  Schema.decodeUnknown(Schema.parseJson(pipeline.config))(run.config).pipe(Effect.orDie)

/**
 * The workflows of `pipeline`, registered in a runner: the runs it owns and the exports it owns. Each
 * export the runner writes is one stdout line, `<runner> <what the run prints for the file>`.
 */
export const workflowsLayer = <C, I>(pipeline: Pipeline.Pipeline<C, I>, runner: string) => {
  const { Export, Run } = workflows(pipeline.name)
  const runs = Run.toLayer((run, executionId) =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const stageDir = path.join(run.outDir, ".durable", "runs", executionId)
      const engine = yield* Effect.context<WorkflowEngine | WorkflowInstance>()
      const config = yield* configOf(pipeline, run)
      const context: Pipeline.PipelineContext = {
        outDir: run.outDir,
        concurrency: run.concurrency,
        // A child workflow per file: where it runs is the cluster's choice (the shard of its id).
        export: (file) => Export.execute({ run, file, stageDir }).pipe(Effect.provide(engine))
      }
      const summaries = yield* pipeline.run(config, context)
      yield* Activity.make({
        name: "commit",
        execute: Effect.forEach(
          summaries,
          (s) => commitOne(path.join(stageDir, path.relative(run.outDir, s.out)), s.out),
          { discard: true }
        ).pipe(Effect.zipRight(fs.remove(stageDir, { recursive: true }).pipe(Effect.ignore)), Effect.orDie)
      })
      return summaries
    })
  )
  const exports = Export.toLayer(({ file, run, stageDir }) =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const config = yield* configOf(pipeline, run)
      const found = yield* findExport(pipeline, config, run, file)
      return yield* exportWithDailyCap(file, Activity.make({
        name: `export ${file}`,
        success: ExportOutcome,
        error: ExportFailure,
        execute: exportStaged(
          path.join(run.outDir, file),
          path.join(stageDir, file),
          Effect.isEffect(found.source) ? found.source : Effect.succeed(found.source),
          {
            resume: true,
            confirmations: found.options?.confirmations ?? run.confirmations,
            allowPartial: found.options?.allowPartial,
            quiet: run.quiet,
            ...(run.concurrency > 1 ? { progressOutput: plainStderr } : {})
          }
        ).pipe(
          Effect.tap((summary) => Console.log(`${runner} ${Pipeline.describeSummary(summary)}`)),
          waitingForDailyCap(path.join(run.outDir, file), (line) => Console.log(`${runner} ${line}`))
        )
      }))
    })
  )
  return Layer.mergeAll(runs, exports)
}

/** Where a runner listens (and the address other runners reach it at). */
export interface RunnerOptions {
  /** `postgres://…`: the database every runner and submitter of the cluster shares. */
  readonly url: string
  readonly host: string
  readonly port: number
}

/** The cluster's storage: PostgreSQL at `url`. */
const storage = (url: string) => PgClient.layer({ url: Redacted.make(url) })

// A runner stopped (Ctrl-C) interrupts its exports at once: they commit their last checkpoint, and
// the runner that takes their shards continues them (the default waits up to 15 s).
const shardingConfig = { entityTerminationTimeout: 0 }

/**
 * A runner of `pipeline`'s runs in this process: listens on `host:port` for the other runners,
 * takes its share of the shards, and runs the workflows of the shards it owns until interrupted,
 * calling the API with `client`, whose key's budget it shares with the other runners (`KeyBudget`).
 *
 * @example
 * yield* Layer.launch(Cluster.runnerLayer(pipeline, { url, host: "127.0.0.1", port: 34431 }, clientLayer))
 */
export const runnerLayer = <C, I, E>(
  pipeline: Pipeline.Pipeline<C, I>,
  options: RunnerOptions,
  client: Layer.Layer<ExplorerClient, E>
) =>
  workflowsLayer(pipeline, `${options.host}:${options.port}`).pipe(
    // The runner's client keeps its key's budget with every other runner's (`KeyBudget`).
    Layer.provide(Layer.provide(client, KeyBudget.layer)),
    Layer.provide(NodeContext.layer),
    Layer.provideMerge(ClusterWorkflowEngine.layer),
    Layer.provideMerge(NodeClusterSocket.layer({
      storage: "sql",
      shardingConfig: {
        ...shardingConfig,
        runnerAddress: Option.some(RunnerAddress.make(options.host, options.port))
      }
    })),
    Layer.provide(storage(options.url))
  )

/** How often a submitting process asks for the result of its run. */
const POLL_MILLIS = 500

/** The engine of a process that submits runs and waits for them, and runs nothing itself. */
const clientLayer = (url: string) =>
  ClusterWorkflowEngine.layer.pipe(
    Layer.provideMerge(NodeClusterSocket.layer({ clientOnly: true, storage: "sql", shardingConfig })),
    Layer.provide(storage(url))
  )

/**
 * Submits a run of `pipeline` to the cluster at `url` and waits for its result: the same summaries
 * (and files) as `Pipeline.run`. A run interrupted or killed here keeps going on the runners; the same
 * command started again waits for the same run (`<outDir>/<pipeline>/.durable/run.json`).
 *
 * @example
 * const summaries = yield* Cluster.run(pipeline, config, "postgres://…", { outDir: "/shared/out" })
 */
export const run = <C, I>(
  pipeline: Pipeline.Pipeline<C, I>,
  config: C,
  url: string,
  options: RunOptions = {}
) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const relativeOut = path.join(options.outDir ?? "out", pipeline.name)
    const outDir = path.resolve(relativeOut)
    const runFile = path.join(outDir, ".durable", "run.json")
    const prepared = yield* prepare(pipeline, config, options, runFile)
    const { Run } = workflows(pipeline.name)
    const ended = fs.remove(runFile).pipe(Effect.ignore)
    // Sent without waiting on the request (`discard`), then its result polled: this process stopping
    // (Ctrl-C) then sends the run nothing, whatever the engine would make of an interrupted request.
    const summaries = yield* Effect.gen(function*() {
      const executionId = yield* Run.execute({
        ...prepared.key,
        outDir,
        config: JSON.stringify(prepared.encodedConfig),
        confirmations: prepared.confirmations,
        concurrency: prepared.concurrency,
        quiet: options.quiet ?? false
      }, { discard: true })
      while (true) {
        const result = yield* Run.poll(executionId)
        if (result !== undefined && result._tag === "Complete") return yield* result.exit
        yield* Effect.sleep(Duration.millis(POLL_MILLIS))
      }
    }).pipe(
      Effect.tap(() => ended),
      Effect.tapError(() => ended),
      Effect.provide(clientLayer(url))
    )
    // The paths as the user wrote the output folder, as `Pipeline.run` reports them.
    const asWritten = (file: string) => path.join(relativeOut, path.relative(outDir, file))
    return summaries.map((s) => ({ ...s, out: asWritten(s.out), manifestPath: asWritten(s.manifestPath) }))
  }).pipe(Effect.scoped)
