/**
 * The workflows of a pipeline's runs on a cluster — `Run`, `Export` and `Part` — their payload
 * (`ClusterRun`), and their bodies as registered in a runner (`workflowsLayer`): the run's exports as child
 * workflows, each export's plan, parts and assembly as activities, the lock files naming the runner.
 */
import * as Path from "@effect/platform/Path"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Activity from "@effect/workflow/Activity"
import * as Workflow from "@effect/workflow/Workflow"
import type { WorkflowEngine, WorkflowInstance } from "@effect/workflow/WorkflowEngine"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { ExplorerClient } from "../ExplorerClient.js"
import type { StreamError } from "../ExplorerError.js"
import type * as Exports from "../Exports.js"
import * as Pipeline from "../Pipeline.js"
import * as Lock from "../sinks/Lock.js"
import * as Reporter from "../sinks/Reporter.js"
import type * as Sources from "../streams/Sources.js"
import {
  assemblyOf,
  checkParts,
  commitOne,
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
  removeStage,
  RunKey,
  waitingForDailyCap
} from "./internal/staged.js"
import * as ClusterConfig from "./ClusterConfig.js"

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

/**
 * Rows of a part by default: about 1.5 s of one core's parsing and checking, so parts pay for what
 * each costs (a child workflow, its messages through the database, a short last page, its spool copied
 * into the file) only when an export is CPU-bound; a run bound by its key's rate gains nothing from
 * parts (the key's budget is shared) and should not pay for them.
 */
export const PART_ROWS = 100_000

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
        AND last_heartbeat > NOW() - make_interval(secs => ${ClusterConfig.RUNNER_EXPIRY_SECONDS})`.pipe(
        Effect.map((rows) => rows.length > 0),
        // The database not answering: the holder is taken to be alive (the lock holds).
        Effect.orElseSucceed(() => true)
      )
  }))
