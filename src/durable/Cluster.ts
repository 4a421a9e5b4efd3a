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
 *   (see {@link findExport}). Its `plan <file>` activity asks for the chain's head and reads the
 *   range's first page into the stage (`Export.plan`); the blocks after it are cut into parts, each
 *   a child workflow (below) of about `--part-rows` rows, unless fewer than two parts' worth are
 *   expected there (by the first page's density). Its last activity, `export <file>`, checks the
 *   parts' spools and merges them into the staged file, reading the blocks left uncut itself
 *   (`Exports.assemble`): the file, manifest and checkpoint a plain export writes. An export that is
 *   not read in parts (data sets read whole, sources of one's own, an export continuing its own
 *   checkpoint: the plan says `Whole`) is written by that activity alone, as the embedded run does;
 * - `explorer-etl/part/<pipeline>`: one part of an export, keyed by the run's key, the file and the
 *   part's number, so the parts of one export spread over the runners too. Its activity, `part <file>
 *   <from>..<to>`, reads its blocks into a spool beside the staged file (`Export.writePart`), a runner
 *   reading at most {@link PARTS_AT_ONCE} parts at once, and prints `<runner> part <N> of <file>: …`.
 *   A part keeps no checkpoint: one cut short (its runner killed) is read again whole.
 *
 * Every runner must load the same pipeline module and reach the same output folder at the same
 * absolute path (one machine, or a shared filesystem); the files a run publishes are byte-identical
 * to those of `Pipeline.run`. The lock files of a runner's exports name it (`Lock.ClusterRunner`): a
 * runner of another machine takes them over once that runner's heartbeat is older than the shard
 * locks' expiry ({@link clusterRunner}), when its exports have moved.
 *
 * Each runner's client has its own key and plan; the calls of one key, from every runner, share one
 * budget in the database (`KeyBudget`), calls per UTC day included: once the key's day is spent, an
 * export waits (durably, `DurableClock`) until the next 00:00 UTC plus a minute and continues from its
 * checkpoint, as in `PipelineRun`; its runner prints `<runner> <file>: waiting for the daily cap until
 * <time> UTC …`, and `explorer-etl status --cluster` shows the wait.
 *
 * Schedules (`explorer-etl runner … --every "<cron>"`, {@link scheduleLayer}) belong to the runners:
 * every runner given the same schedule registers the same `ClusterCron` (its name made of pipeline,
 * cron, config hash and absolute output folder), in a shard group of its own that only runners with
 * a schedule take. The rules:
 * - one firing per tick across the runners: a tick is a persisted message to the entity named by the
 *   tick's ISO time, delivered once (up to `entityMessagePollInterval`, 1 s, after its time); its run
 *   is the `Run` workflow whose run time is the tick's, so a tick delivered again (its runner stopped
 *   mid-run) is the same run;
 * - a tick due while every runner was down fires once when one comes back within
 *   {@link MISSED_TICK_WINDOW} (1 day, `ClusterCron`'s `skipIfOlderThan` default): the first tick
 *   missed, one run for all the ticks of that time (runs are incremental); later, none;
 * - no overlapping runs: `ClusterCron` plans the next tick when a run ends (ticks passed meanwhile are
 *   skipped); the one meeting it cannot rule out — the missed tick's run still running when the tick
 *   planned by a returning runner's singleton comes — is ruled out by a row per schedule
 *   (`explorer_etl_schedule_runs`): that tick is skipped;
 * - one schedule per cluster: a tick landing on a runner without its schedule is failed there
 *   ("Entity type … not registered", after `entityRegistrationTimeout`) and the schedule stops until
 *   its singleton starts again; so a runner started with a schedule other than a live runner's is
 *   refused (`explorer_etl_schedules`, a row per runner with a schedule). Runners without a schedule
 *   take no ticks and run the scheduled runs' exports as any run's. (Two `ClusterCron`s of one name and
 *   different crons, which the name rules out here, would plan each next tick by the cron of the
 *   runner that ran the previous one.)
 */
import * as ClusterCron from "@effect/cluster/ClusterCron"
import * as ClusterWorkflowEngine from "@effect/cluster/ClusterWorkflowEngine"
import * as Entity from "@effect/cluster/Entity"
import * as RunnerAddress from "@effect/cluster/RunnerAddress"
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Activity from "@effect/workflow/Activity"
import * as Workflow from "@effect/workflow/Workflow"
import type { WorkflowEngine, WorkflowInstance } from "@effect/workflow/WorkflowEngine"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Cron from "effect/Cron"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type { ExplorerClient } from "../ExplorerClient.js"
import { InvalidInputError, type StreamError } from "../ExplorerError.js"
import type * as Exports from "../Exports.js"
import * as Pipeline from "../Pipeline.js"
import * as Lock from "../sinks/Lock.js"
import * as Reporter from "../sinks/Reporter.js"
import type * as Sources from "../streams/Sources.js"
import {
  assemblyOf,
  checkParts,
  commitOne,
  configHashOf,
  ExportFailure,
  ExportOutcome,
  ExportSummary,
  exportStaged,
  exportWithDailyCap,
  PartOutcome,
  PartResult,
  partStaged,
  PlanOutcome,
  planStaged,
  prepare,
  removeStage,
  RunKey,
  type RunOptions,
  sha256,
  waitingForDailyCap
} from "./internal/staged.js"
import * as KeyBudget from "./KeyBudget.js"
import * as Status from "./Status.js"

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
  }),
  Part: Workflow.make({
    name: `explorer-etl/part/${pipelineName}`,
    payload: {
      run: ClusterRun,
      file: Schema.String,
      stageDir: Schema.String,
      /** After the parts the plan read (the first page: part 1). */
      index: Schema.Number,
      fromBlock: Schema.Number,
      toBlock: Schema.Number
    },
    success: PartResult,
    error: ExportFailure,
    idempotencyKey: (p) => `${runKeyText(p.run)}\n${p.file}\n${p.index}`
  })
})

/** At most this many parts of one export. */
export const MAX_PARTS = 32

/**
 * Parts a runner reads at once (of every export): each reads its range in partitions as an export
 * does (as many requests in flight as the key's rate calls for), and holds up to that export's memory
 * bound; more at once would only add memory.
 */
export const PARTS_AT_ONCE = 2

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
export const workflowsLayer = <C, I>(pipeline: Pipeline.Pipeline<C, I>, runner: string, partRows: number = PART_ROWS) => {
  const { Export, Part, Run } = workflows(pipeline.name)
  const runs = Run.toLayer((run, executionId) =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const stageDir = path.join(run.outDir, ".durable", "runs", executionId)
      const engine = yield* Effect.context<WorkflowEngine | WorkflowInstance>()
      const config = yield* configOf(pipeline, run)
      // With this runner's client (its plan): what the submitter's may not be.
      yield* Pipeline.check(pipeline, config)
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
        ).pipe(Effect.zipRight(removeStage(stageDir)), Effect.orDie)
      })
      return summaries
    })
  )
  /** What a runner needs of an export of a run: its source, options, files, and the line it prints. */
  const exportOf = (run: ClusterRun, file: string, stageDir: string) =>
    Effect.gen(function*() {
      const path = yield* Path.Path
      const config = yield* configOf(pipeline, run)
      const found = yield* findExport(pipeline, config, run, file)
      const lockOwner = yield* clusterRunner(runner)
      const out = path.join(run.outDir, file)
      return {
        out,
        stage: path.join(stageDir, file),
        source: Effect.isEffect(found.source) ? found.source : Effect.succeed(found.source),
        options: {
          resume: true,
          confirmations: found.options?.confirmations ?? run.confirmations,
          allowPartial: found.options?.allowPartial,
          quiet: run.quiet,
          ...(run.concurrency > 1 ? { progressOutput: Reporter.plainStderr } : {})
        },
        /** The activity's work, printing its line and the daily cap's wait, its locks naming this runner. */
        asRunner: <A, R>(work: Effect.Effect<A, typeof ExportFailure.Type, R>) =>
          work.pipe(
            waitingForDailyCap(out, (line) => Console.log(`${runner} ${line}`)),
            // Its lock files name this runner, and a runner gone on another machine leaves locks it takes over.
            Effect.provideService(Lock.ClusterRunner, lockOwner)
          )
      }
    })
  const partSlots = Effect.unsafeMakeSemaphore(PARTS_AT_ONCE)
  const parts = Part.toLayer(({ file, fromBlock, index, run, stageDir, toBlock }) =>
    Effect.gen(function*() {
      const { asRunner, options, out, source, stage } = yield* exportOf(run, file, stageDir)
      return yield* exportWithDailyCap(`part ${index} ${file}`, Activity.make({
        name: `part ${file} ${fromBlock}..${toBlock}`,
        success: PartOutcome,
        error: ExportFailure,
        execute: asRunner(
          partSlots.withPermits(1)(partStaged(stage, source, options, { fromBlock, toBlock, index })).pipe(
            Effect.tap((part) =>
              Console.log(
                `${runner} part ${index} of ${out}: blocks ${Reporter.count(fromBlock)}..${Reporter.count(toBlock)}, ` +
                  `${Reporter.plural(part.rows, "row")}, ${Reporter.plural(part.calls, "call")}`
              )
            )
          )
        )
      }))
    })
  )
  // An export: its plan (the first page, and its range cut into parts), the parts as child workflows
  // (where each runs is the cluster's choice: the shard of its id), then the file assembled from them.
  const exports = Export.toLayer(({ file, run, stageDir }) =>
    Effect.gen(function*() {
      const { asRunner, options, out, source, stage } = yield* exportOf(run, file, stageDir)
      const engine = yield* Effect.context<WorkflowEngine | WorkflowInstance>()
      const planned = yield* exportWithDailyCap(`plan ${file}`, Activity.make({
        name: `plan ${file}`,
        success: PlanOutcome,
        error: ExportFailure,
        execute: asRunner(planStaged(out, stage, source, options, { maxParts: MAX_PARTS, partRows }))
      }))
      const assembly = planned._tag === "Whole" ? undefined : yield* Effect.gen(function*() {
        const read = yield* Effect.forEach(
          planned.rest,
          (range, i) =>
            Part.execute({ run, file, stageDir, index: planned.read.length + 1 + i, ...range }).pipe(Effect.provide(engine)),
          { concurrency: "unbounded" }
        )
        return { parts: [...planned.read, ...read], assembly: assemblyOf(planned, read) }
      })
      return yield* exportWithDailyCap(file, Activity.make({
        name: `export ${file}`,
        success: ExportOutcome,
        error: ExportFailure,
        execute: asRunner(
          Effect.gen(function*() {
            if (assembly !== undefined) yield* checkParts(stage, assembly.parts)
            return yield* exportStaged(out, stage, source, options, assembly?.assembly)
          }).pipe(Effect.tap((summary) => Console.log(`${runner} ${Pipeline.describeSummary(summary)}`)))
        )
      }))
    })
  )
  return Layer.mergeAll(runs, exports, parts)
}

/**
 * This runner, for the lock files of the exports it writes (`Lock.ClusterRunner`): a lock another
 * machine's runner left is taken over once that runner's heartbeat in the cluster's database is older
 * than the shard locks' expiry — when the cluster has moved its shards, and so its exports, elsewhere.
 */
const clusterRunner = (runner: string) =>
  Effect.map(SqlClient.SqlClient, (sql): typeof Lock.ClusterRunner.Service => ({
    runner,
    isAlive: (other) =>
      sql<{ alive: number }>`SELECT 1 AS alive FROM cluster_runners WHERE address = ${other}
        AND last_heartbeat > NOW() - make_interval(secs => ${RUNNER_EXPIRY_SECONDS})`.pipe(
        Effect.map((rows) => rows.length > 0),
        // The database not answering: the holder is taken to be alive (the lock holds).
        Effect.orElseSucceed(() => true)
      )
  }))

/**
 * How long a runner that stopped refreshing (killed, its machine gone) keeps its shards: a runner's
 * registration and shard locks expire 15 s after its last refresh, then the others take its shards
 * (`@effect/cluster`'s default is 35 s). It refreshes them every 5 s, so a live runner loses them only
 * if it cannot reach the database, or its event loop stalls, for over 10 s (an export gives its event
 * loop back every few milliseconds); one that cannot reach the database stops its entities before its
 * locks expire (`@effect/cluster` refreshes at most a third of the expiry apart for that).
 */
const SHARD_LOCK_EXPIRATION = Duration.seconds(15)
const SHARD_LOCK_REFRESH = Duration.seconds(5)

/** The shard lock expiry, in seconds: a lock file of a runner silent that long is taken over. */
const RUNNER_EXPIRY_SECONDS = Math.ceil(Duration.toSeconds(SHARD_LOCK_EXPIRATION))

/** Where a runner listens (and the address other runners reach it at). */
export interface RunnerOptions {
  /** `postgres://…`: the database every runner and submitter of the cluster shares. */
  readonly url: string
  readonly host: string
  readonly port: number
  /**
   * Rows of a part when this runner plans an export (default {@link PART_ROWS}): an export is cut into
   * parts of about this many rows, at most {@link MAX_PARTS}, when at least two parts' worth are
   * expected after its first page; else one runner reads it whole.
   */
  readonly partRows?: number | undefined
}

/**
 * Rows of a part by default: about 1.5 s of one core's parsing and checking, so parts pay for what
 * each costs (a child workflow, its messages through the database, a short last page, its spool copied
 * into the file) only when an export is CPU-bound; a run bound by its key's rate gains nothing from
 * parts (the key's budget is shared) and should not pay for them.
 */
export const PART_ROWS = 100_000

/**
 * Whether a failure is PostgreSQL refusing a table, type or index that another process created at the
 * same moment: `CREATE TABLE IF NOT EXISTS` run at once by two processes on a fresh database fails in
 * one of them (unique violation 23505 on the catalog, or 42P07 / 42710 duplicate object).
 */
const isSchemaRace = (error: unknown): boolean => {
  let cause: unknown = error
  for (let depth = 0; depth < 8 && typeof cause === "object" && cause !== null; depth++) {
    const { code, message, _tag } = cause as { code?: unknown; message?: unknown; _tag?: unknown }
    if (code === "23505" || code === "42P07" || code === "42710") return true
    if (typeof message === "string" && /already exists|duplicate key/i.test(message)) return true
    // Seen with four runners started at once on a fresh database: the statement's own error is not
    // carried, only @effect/sql's text for a statement that failed (a connection that fails says so).
    if (_tag === "SqlError" && message === "Failed to execute statement") return true
    cause = (cause as { cause?: unknown }).cause
  }
  return false
}

/**
 * Runners (and submitters) started together on a fresh database create the cluster's tables at once:
 * the one that loses the race builds its layer again, once the other's tables exist.
 */
const schemaRaceRetry = Schedule.exponential(Duration.millis(100)).pipe(
  Schedule.jittered,
  // Capped at 2 s between tries, for up to 30 s: on a loaded machine the runner that won the race
  // may take seconds to finish its tables (five tries over ~3 s were seen to end too soon in CI).
  Schedule.union(Schedule.spaced(Duration.seconds(2))),
  Schedule.upTo(Duration.seconds(30)),
  Schedule.whileInput(isSchemaRace)
)

/** A defect of a layer's build, carried as a failure while its build is retried. */
class BuildDefect {
  constructor(readonly cause: unknown) {}
}

/**
 * Builds `layer` again while it fails with a lost schema race ({@link schemaRaceRetry}). @effect/cluster's
 * storages run their migrations under `Effect.orDie`: a lost race (`relation "cluster_migrations"
 * already exists`, 42P07) is a defect, which `Layer.retry` alone never sees. Defects are carried as
 * failures through the retries and die again after them; the layer's own failures keep their type.
 */
const retryingSchemaRace = <A, E, R>(layer: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  layer.pipe(
    Layer.catchAllCause((cause): Layer.Layer<unknown, E | BuildDefect> => {
      if (Cause.isInterruptedOnly(cause)) return Layer.failCause(cause)
      const failure = Cause.failureOption(cause)
      return Option.isSome(failure) ? Layer.fail(failure.value) : Layer.fail(new BuildDefect(Cause.squash(cause)))
    }),
    Layer.retry(schemaRaceRetry),
    Layer.catchAll((error): Layer.Layer<unknown, E> => error instanceof BuildDefect ? Layer.die(error.cause) : Layer.fail(error))
  )

/** The cluster's storage: PostgreSQL at `url`. */
const storage = (url: string) => PgClient.layer({ url: Redacted.make(url) })

// A runner stopped (Ctrl-C) interrupts its exports at once: they commit their last checkpoint, and
// the runner that takes their shards continues them (the default waits up to 15 s). Messages not
// delivered at once (a workflow resumed when its child ends, a tick or a wake-up due) are read from
// the database every second, not every 10 s: a run's exports follow each other without a pause of
// up to 10 s between them (one query a second per runner). A runner gone is replaced after 15 s
// (`SHARD_LOCK_EXPIRATION`): every runner and submitter of a cluster must use the same settings.
const shardingConfig = {
  entityTerminationTimeout: 0,
  entityMessagePollInterval: Duration.seconds(1),
  shardLockExpiration: SHARD_LOCK_EXPIRATION,
  shardLockRefreshInterval: SHARD_LOCK_REFRESH
}

/**
 * A runner of `pipeline`'s runs in this process: listens on `host:port` for the other runners,
 * takes its share of the shards, and runs the workflows of the shards it owns until interrupted,
 * calling the API with `client`, whose key's budget it shares with the other runners (`KeyBudget`).
 * With `schedule`, it also takes its share of that schedule's ticks ({@link scheduleLayer}); the
 * schedule's `config` may need what `client` provides besides the client (the CLI's `DemoData`).
 *
 * @example
 * yield* Layer.launch(Cluster.runnerLayer(pipeline, { url, host: "127.0.0.1", port: 34431 }, clientLayer))
 */
export const runnerLayer = <C, I, E, RC = never, EC = never>(
  pipeline: Pipeline.Pipeline<C, I>,
  options: RunnerOptions,
  client: Layer.Layer<ExplorerClient | RC, E>,
  schedule?: RunSchedule<C, EC, RC> | undefined
) => {
  const runner = `${options.host}:${options.port}`
  return Layer.mergeAll(
    workflowsLayer(pipeline, runner, options.partRows),
    schedule === undefined ? Layer.empty : scheduleLayer(pipeline, schedule, runner)
  ).pipe(
    // The runner's client keeps its key's budget with every other runner's (`KeyBudget`).
    Layer.provide(Layer.provide(client, KeyBudget.layer)),
    Layer.provide(NodeContext.layer),
    Layer.provideMerge(ClusterWorkflowEngine.layer),
    Layer.provideMerge(NodeClusterSocket.layer({
      storage: "sql",
      shardingConfig: {
        ...shardingConfig,
        // The same groups in every runner (PostgreSQL's shard locks are numbered by their order);
        // the schedules' group is served only by the runners given one.
        availableShardGroups: [DEFAULT_SHARD_GROUP, SCHEDULE_SHARD_GROUP],
        assignedShardGroups: schedule === undefined ? [DEFAULT_SHARD_GROUP] : [DEFAULT_SHARD_GROUP, SCHEDULE_SHARD_GROUP],
        runnerAddress: Option.some(RunnerAddress.make(options.host, options.port))
      }
    })),
    Layer.provide(storage(options.url)),
    retryingSchemaRace
  )
}

/** How often a submitting process asks for the result of its run. */
const POLL_MILLIS = 500

/**
 * Submits `run` (or finds it: the same key is the same workflow execution) and waits for its result.
 * Sent without waiting on the request (`discard`), then its result polled: the waiting process stopping
 * (Ctrl-C) then sends the run nothing, whatever the engine would make of an interrupted request. Once
 * it ended, the database forgets the runs before the last `keepRuns` of each pipeline (default 100:
 * `Status.prune`; failing that, the next run's end tries again).
 */
const awaitRun = (pipelineName: string, run: ClusterRun, keepRuns?: number) =>
  Effect.gen(function*() {
    const { Run } = workflows(pipelineName)
    const executionId = yield* Run.execute(run, { discard: true })
    while (true) {
      const result = yield* Run.poll(executionId)
      if (result !== undefined && result._tag === "Complete") {
        yield* Effect.ignore(Status.prune(keepRuns))
        return yield* result.exit
      }
      yield* Effect.sleep(Duration.millis(POLL_MILLIS))
    }
  })

/** The engine of a process that submits runs and waits for them, and runs nothing itself. */
const clientLayer = (url: string) =>
  ClusterWorkflowEngine.layer.pipe(
    Layer.provideMerge(NodeClusterSocket.layer({ clientOnly: true, storage: "sql", shardingConfig })),
    Layer.provideMerge(storage(url)),
    retryingSchemaRace
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
    const ended = fs.remove(runFile).pipe(Effect.ignore)
    const summaries = yield* awaitRun(pipeline.name, {
      ...prepared.key,
      outDir,
      config: JSON.stringify(prepared.encodedConfig),
      confirmations: prepared.confirmations,
      concurrency: prepared.concurrency,
      quiet: options.quiet ?? false
    }, options.keepRuns).pipe(
      Effect.tap(() => ended),
      Effect.tapError(() => ended),
      Effect.provide(clientLayer(url))
    )
    // The paths as the user wrote the output folder, as `Pipeline.run` reports them.
    const asWritten = (file: string) => path.join(relativeOut, path.relative(outDir, file))
    return summaries.map((s) => ({ ...s, out: asWritten(s.out), manifestPath: asWritten(s.manifestPath) }))
  }).pipe(Effect.scoped)

/** The shard group of runs and exports (`@effect/cluster`'s default). */
const DEFAULT_SHARD_GROUP = "default"

/**
 * The shard group of the schedules' ticks (`ClusterCron`'s entity and singleton): taken only by the
 * runners given a schedule, so a tick never lands on a runner that has none. Sorts after "default",
 * whose PostgreSQL lock numbers stay those of runners that know one group.
 */
export const SCHEDULE_SHARD_GROUP = "explorer-etl-every"

/**
 * How old a tick may be and still fire: a tick due while every runner was down fires when one comes
 * back within this time (`ClusterCron`'s `skipIfOlderThan`, its default kept).
 */
export const MISSED_TICK_WINDOW = Duration.days(1)

/**
 * A schedule of a pipeline's runs kept by the runners of a cluster ({@link scheduleLayer}): its cron
 * (text, UTC, 5 fields or 6 with seconds first) and what each run is given, as `run` takes it.
 */
export interface RunSchedule<C, E = never, R = never> {
  readonly cron: string
  /** The run's config, read when the runner starts (a config file, the simulator's demo targets …). */
  readonly config: Effect.Effect<C, E, R>
  /** The output folder of every run (default "out"); made absolute from this process's folder. */
  readonly outDir?: string | undefined
  readonly confirmations?: number | undefined
  readonly concurrency?: number | undefined
  readonly quiet?: boolean | undefined
}

/**
 * A schedule's name, the same in every runner given the same schedule: pipeline, cron (parsed: the
 * same times written otherwise are the same schedule), config hash and output folder.
 */
export const scheduleName = (pipelineName: string, cron: Cron.Cron, configHash: string, pipelineOutDir: string): string =>
  `explorer-etl/every/${pipelineName}/${
    sha256([pipelineName, JSON.stringify(cron.toJSON()), configHash, pipelineOutDir].join("\n")).slice(0, 16)
  }`

/**
 * The time of the tick being run: `ClusterCron` names the entity of a tick by its ISO time, so a tick
 * delivered again (its runner stopped mid-run) is the same tick. Else (never seen): the latest match.
 */
const tickTime = (cron: Cron.Cron) =>
  Effect.gen(function*() {
    const address = yield* Effect.serviceOption(Entity.CurrentAddress)
    const named = Option.map(address, (a) => new Date(a.entityId))
    if (Option.isSome(named) && !Number.isNaN(named.value.getTime()) && Cron.match(cron, named.value)) return named.value
    const now = new Date()
    now.setUTCMilliseconds(0)
    return Cron.match(cron, now) ? now : Cron.prev(cron, now)
  })

// The registry's set-up and checks run one at a time across runners (two starting together with
// different schedules: the second sees the first).
const SCHEDULES_LOCK = 0x6574_6c32
/**
 * A runner's row in the registry is its while it refreshes it: every 5 s, stale after the shard locks'
 * expiry (15 s), when the cluster too takes the runner for gone.
 */
const SCHEDULE_HEARTBEAT = SHARD_LOCK_REFRESH
const SCHEDULE_STALE_SECONDS = RUNNER_EXPIRY_SECONDS

/**
 * The cluster's registry of schedules (`explorer_etl_schedules`, a row per runner given one, refreshed
 * while it runs, removed when it stops), read under its lock: the live runners of `runner`'s cluster
 * keeping a schedule other than `name` — or none, and then, with `register`, `runner`'s row written
 * in the same transaction.
 */
const otherSchedules = (runner: string, name: string, cronText: string, register: boolean) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(Effect.gen(function*() {
      yield* sql`SELECT pg_advisory_xact_lock(${SCHEDULES_LOCK})`
      yield* sql`CREATE TABLE IF NOT EXISTS explorer_etl_schedules (
        runner text PRIMARY KEY,
        schedule text NOT NULL,
        cron text NOT NULL,
        seen_at timestamptz NOT NULL DEFAULT now()
      )`
      yield* sql`CREATE TABLE IF NOT EXISTS explorer_etl_schedule_runs (
        schedule text PRIMARY KEY,
        tick text NOT NULL,
        seen_at timestamptz NOT NULL DEFAULT now()
      )`
      const others = yield* sql<{ runner: string; cron: string }>`
        SELECT runner, cron FROM explorer_etl_schedules
        WHERE runner <> ${runner} AND schedule <> ${name}
        AND seen_at > now() - make_interval(secs => ${SCHEDULE_STALE_SECONDS})`
      if (others.length === 0 && register) {
        yield* sql`INSERT INTO explorer_etl_schedules (runner, schedule, cron) VALUES (${runner}, ${name}, ${cronText})
          ON CONFLICT (runner) DO UPDATE SET schedule = excluded.schedule, cron = excluded.cron, seen_at = now()`
      }
      return others
    })))

/** A runner refused because `other` keeps another schedule. */
const anotherSchedule = (other: { readonly runner: string; readonly cron: string }) =>
  new InvalidInputError({
    chainId: 0,
    module: "cli",
    action: "runner",
    parameter: "--every",
    detail: `runner ${other.runner} of this cluster keeps another schedule (every "${other.cron}", or another ` +
      `pipeline, config or output folder): every runner given --every must be given the same schedule ` +
      `(runners without --every are fine); another schedule needs its own database`
  })

/**
 * This runner's schedule in the cluster's registry ({@link otherSchedules}): a runner started with a
 * schedule other than a live runner's is refused (`InvalidInputError` on `--every`), as the runners
 * given schedules share the schedules' shards, and a tick landing on a runner without its schedule
 * would be lost.
 */
const registerSchedule = (runner: string, name: string, cronText: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const other = (yield* otherSchedules(runner, name, cronText, true))[0]
    if (other !== undefined) return yield* anotherSchedule(other)
    yield* sql`UPDATE explorer_etl_schedules SET seen_at = now() WHERE runner = ${runner}`.pipe(
      Effect.ignore,
      Effect.repeat(Schedule.spaced(SCHEDULE_HEARTBEAT)),
      Effect.forkScoped
    )
    yield* Effect.addFinalizer(() =>
      sql`DELETE FROM explorer_etl_schedules WHERE runner = ${runner} AND schedule = ${name}`.pipe(Effect.ignore)
    )
  })

/** What a schedule is to the cluster: its cron, its runs' config and folder, and its name. */
const scheduleOf = <C, I, E, R>(pipeline: Pipeline.Pipeline<C, I>, schedule: RunSchedule<C, E, R>) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const cron = yield* Pipeline.parseCron(schedule.cron)
    const config = yield* schedule.config
    const encoded = yield* Schema.encode(pipeline.config)(config).pipe(Effect.orDie)
    const confirmations = schedule.confirmations ?? 0
    const configHash = configHashOf(encoded, confirmations)
    const outDir = path.resolve(path.join(schedule.outDir ?? "out", pipeline.name))
    return { cron, encoded, confirmations, configHash, outDir, name: scheduleName(pipeline.name, cron, configHash, outDir) }
  })

/**
 * Whether a runner given `schedule` may join the cluster at `options.url`, asked before it starts (its
 * socket, its shards): refused (`InvalidInputError` on `--every`) when a live runner keeps another
 * schedule. The runner's start asks again, and registers it, in one transaction ({@link scheduleLayer}):
 * this check only makes the usual refusal come before the runner listens.
 *
 * @example
 * yield* Cluster.checkSchedule(pipeline, { cron: "0 * * * *", config: Effect.succeed(config) }, options)
 */
export const checkSchedule = <C, I, E>(pipeline: Pipeline.Pipeline<C, I>, schedule: RunSchedule<C, E>, options: RunnerOptions) =>
  Effect.gen(function*() {
    const { name } = yield* scheduleOf(pipeline, schedule)
    const other = (yield* otherSchedules(`${options.host}:${options.port}`, name, schedule.cron, false))[0]
    if (other !== undefined) return yield* anotherSchedule(other)
  }).pipe(Effect.provide(storage(options.url)))

/**
 * Runs `run` as the schedule `name`'s run of `tick` unless the run of another tick of it is running
 * (its row in `explorer_etl_schedule_runs`, refreshed while it runs): then the tick is skipped, its
 * result `skipped`'s, told which tick holds it. The same tick delivered again takes its own row over.
 */
const exclusiveTick = <A, E, R>(
  sql: SqlClient.SqlClient,
  name: string,
  tick: string,
  run: Effect.Effect<A, E, R>,
  skipped: (holder: string) => Effect.Effect<A>
) =>
  Effect.gen(function*() {
    const taken = yield* sql<{ tick: string }>`
      INSERT INTO explorer_etl_schedule_runs AS r (schedule, tick) VALUES (${name}, ${tick})
      ON CONFLICT (schedule) DO UPDATE SET tick = excluded.tick, seen_at = now()
      WHERE r.tick = excluded.tick OR r.seen_at <= now() - make_interval(secs => ${SCHEDULE_STALE_SECONDS})
      RETURNING tick`
    if (taken.length === 0) {
      const holder = yield* sql<{ tick: string }>`SELECT tick FROM explorer_etl_schedule_runs WHERE schedule = ${name}`
      return yield* skipped(holder[0]?.tick ?? "another tick")
    }
    yield* sql`UPDATE explorer_etl_schedule_runs SET seen_at = now() WHERE schedule = ${name} AND tick = ${tick}`.pipe(
      Effect.ignore,
      Effect.repeat(Schedule.spaced(SCHEDULE_HEARTBEAT)),
      Effect.delay(SCHEDULE_HEARTBEAT),
      Effect.forkScoped
    )
    const result = yield* run
    yield* sql`DELETE FROM explorer_etl_schedule_runs WHERE schedule = ${name} AND tick = ${tick}`
    return result
  }).pipe(Effect.scoped, Effect.orDie)

/**
 * Removes the schedule `name`'s ticks that fired more than {@link MISSED_TICK_WINDOW} before `tick`
 * (`ClusterCron` keeps a message and a reply per tick, a schedule's table would grow by one a tick):
 * such a tick is never sent again (a tick that old would be skipped, and the next tick is planned
 * from now), so its message, which only stopped it from firing twice, is no longer needed. Ticks not
 * processed yet (due, or running) are kept whatever their time.
 */
const forgetTicks = (sql: SqlClient.SqlClient, name: string, tick: Date) => {
  const before = new Date(tick.getTime() - Duration.toMillis(MISSED_TICK_WINDOW)).toISOString()
  const entityType = `ClusterCron/${name}`
  // The entity of a tick is named by its ISO time (`ClusterCron`), which sorts as the times do.
  return sql.withTransaction(Effect.gen(function*() {
    yield* sql`DELETE FROM cluster_replies WHERE request_id IN (SELECT request_id FROM cluster_messages
      WHERE entity_type = ${entityType} AND processed AND entity_id < ${before})`
    yield* sql`DELETE FROM cluster_messages WHERE entity_type = ${entityType} AND processed AND entity_id < ${before}`
  }))
}

/**
 * `pipeline`'s runs on `schedule`, kept by the cluster (`ClusterCron`): every runner given the same
 * schedule registers it, and each tick fires once across them — a `Run` workflow whose run time is
 * the tick's, so a tick delivered again is the same run, not a second one. The runner whose shard
 * holds the tick submits the run, waits for it (its exports spread over all runners as any run's)
 * and prints one line: `<runner> run <pipeline> <tick> done: N files, N rows written` (or `failed: …`,
 * or `skipped: …` when another tick's run still runs).
 *
 * Ticks follow `ClusterCron`'s rules: the next tick is planned from the end of a run (runs of one
 * schedule do not overlap; ticks passed during a long run are skipped), and a tick due while every
 * runner was down fires once when one comes back within {@link MISSED_TICK_WINDOW} — once, for all
 * the ticks missed meanwhile. The first tick is the cron's next match: no run at start.
 */
export const scheduleLayer = <C, I, E, R>(pipeline: Pipeline.Pipeline<C, I>, schedule: RunSchedule<C, E, R>, runner: string) =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const { confirmations, configHash, cron, encoded, name, outDir } = yield* scheduleOf(pipeline, schedule)
    const line = (tick: Date, text: string) => Console.log(`${runner} run ${pipeline.name} ${tick.toISOString()} ${text}`)
    const sql = yield* SqlClient.SqlClient
    const execute = Effect.gen(function*() {
      const tick = yield* tickTime(cron)
      const runOfTick = awaitRun(pipeline.name, {
        pipeline: pipeline.name,
        configHash,
        runTime: tick.toISOString(),
        outDir,
        config: JSON.stringify(encoded),
        confirmations,
        concurrency: Math.max(1, Math.floor(schedule.concurrency ?? 4)),
        quiet: schedule.quiet ?? false
      }).pipe(
        Effect.match({
          onSuccess: (summaries) =>
            `done: ${summaries.length} files, ${summaries.reduce((n, s) => n + s.rowsWritten, 0).toLocaleString("en-US")} rows written`,
          // A failed run is the run's: the schedule goes on to its next tick.
          onFailure: (error) => `failed: ${error.message}`
        })
      )
      const outcome = yield* exclusiveTick(sql, name, tick.toISOString(), runOfTick, (holder) =>
        Effect.succeed(`skipped: the run of ${holder} is still running`))
      yield* Effect.ignore(forgetTicks(sql, name, tick))
      // The line last, once the tick's own bookkeeping is done: what is left (`ClusterCron` planning the
      // next tick and marking this one fired) is two writes, the only moment a stop makes the tick come
      // again (docs/pipelines.md, "Ticks missed while every runner was down").
      yield* line(tick, outcome)
    })
    yield* registerSchedule(runner, name, schedule.cron)
    return ClusterCron.make({
      name,
      cron,
      execute,
      shardGroup: SCHEDULE_SHARD_GROUP,
      skipIfOlderThan: MISSED_TICK_WINDOW
    })
  }))
