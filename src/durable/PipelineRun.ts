/**
 * A pipeline run as a durable workflow (issue 18, embedded mode): `explorer-etl run <pipeline>` (the
 * CLI's default; `--no-durable` runs `Pipeline.run` instead).
 *
 * The run is a `@effect/workflow` `Workflow` executed by `@effect/cluster`'s `ClusterWorkflowEngine` on a
 * `SingleRunner`, whose journal is a SQLite file in the output folder (libSQL, `internal/journal`).
 * Every `context.export(file, …)` of the pipeline is an `Activity` named `export <file>`; the last one,
 * `commit`, puts the files in place (a run failing with a typed error runs `commit finished exports`
 * instead, for the exports that finished, as `Pipeline.run` publishes each export when it ends).
 * Killed at any point (SIGKILL included) and started again with the same pipeline, config and output
 * folder, the run continues where its journal says: an export that finished is not run again (its
 * result is read from the journal, its calls are not repeated), one that was running resumes from its
 * own checkpoint.
 *
 * Files, in `<outDir>/<pipeline>/`:
 * - `.durable/journal.sqlite` (+ `-wal`, `-shm`): the engine's messages and replies (activity results);
 * - `.durable/journal.sqlite.lock`: one process per journal (`Lock`);
 * - `.durable/run.json`: the run in progress (`RunKey`): a run started again after a crash (or Ctrl-C)
 *   reuses its key, so it is the same workflow execution; removed once the run has a result (its files,
 *   or a typed error: the journal keeps that result for the key, so the next start is a new run);
 * - `.durable/runs/<execution id>/<file>` (+ `.manifest.json`, `.state.json`): each export written
 *   apart (staged) by its activity — a copy of the published file extended incrementally, exactly as
 *   `Exports.toFile(…, { resume: true })` extends the published one — and moved over the published
 *   files by `commit`, all exports together, once every export finished; removed after (and `runs`
 *   with it when no other stage is left in it).
 *
 * The key's daily cap: an export whose call is answered "Max daily rate limit reached" (a `RateLimitError`
 * of scope "day") does not fail the run. Its activity ends with the time to start again (the next
 * 00:00 UTC plus a minute, `nextDailyReset`), prints one line on stderr (`<file>: waiting for the daily
 * cap until <time> UTC …`, even with `quiet`), and the run sleeps until then with `DurableClock` — a
 * message in the journal, delivered at its time: a process killed meanwhile and started again (after
 * the time, or before it, to wait on) continues the run — then runs the export again from its staged
 * checkpoint. The embedded run does not count the key's calls itself (one process, and the key may
 * be used elsewhere): it waits when the server says so; a cluster's runners count them (`KeyBudget`).
 * `explorer-etl status` shows the export as waiting for the daily cap until that time.
 *
 * The files the run publishes are byte-identical to those of `Pipeline.run` (the same `Exports.toFile`
 * writes them); manifests and checkpoints are moved with them, so the next run (durable or not)
 * extends them.
 */
import * as ClusterWorkflowEngine from "@effect/cluster/ClusterWorkflowEngine"
import * as SingleRunner from "@effect/cluster/SingleRunner"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Activity from "@effect/workflow/Activity"
import * as Workflow from "@effect/workflow/Workflow"
import type { WorkflowEngine, WorkflowInstance } from "@effect/workflow/WorkflowEngine"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { ExplorerClient } from "../ExplorerClient.js"
import type { StreamError } from "../ExplorerError.js"
import type * as Exports from "../Exports.js"
import * as Lock from "../sinks/Lock.js"
import * as Pipeline from "../Pipeline.js"
import * as Reporter from "../sinks/Reporter.js"
import type * as Sources from "../streams/Sources.js"
import {
  commitOne,
  ExportFailure,
  ExportOutcome,
  ExportSummary,
  exportStaged,
  exportWithDailyCap,
  journalFolder,
  pendingStage,
  prepare,
  removeStage,
  RunKey,
  type RunOptions,
  waitingForDailyCap
} from "./internal/staged.js"
import * as Journal from "./internal/journal.js"
import * as Status from "./Status.js"

export {
  DAILY_RESET_MARGIN,
  DailyCapWait,
  ExportFailure,
  ExportSummary,
  journalFolder,
  nextDailyReset,
  RunKey,
  type RunOptions
} from "./internal/staged.js"

/** The engine: one runner in this process, its journal in SQLite. */
const engineLayer = (journal: string) =>
  ClusterWorkflowEngine.layer.pipe(
    // The runner's shards live in memory: one process owns a journal (its lock), so there is no other
    // runner to share them with, and no shard lock of a killed process to wait out.
    // Ctrl-C stops the run at once (the default waits up to 15 s for the run to end by itself, warning
    // "No healthy runners available" every 3 s): its exports are interrupted, commit their last
    // checkpoint, and the next start continues them. Otherwise the defaults: a restarted runner reads
    // the journal's unprocessed messages when it takes its shards, not at the next storage poll (10 s).
    Layer.provideMerge(SingleRunner.layer({ runnerStorage: "memory", shardingConfig: { entityTerminationTimeout: 0 } })),
    // The journal's client is also the run's, to prune the journal when the run ends.
    Layer.provideMerge(Journal.layer(journal)),
    // Only the sharding config read from the environment can fail here: a broken set-up, not a run's error.
    Layer.orDie
  )

/**
 * The dry run of a durable run (`explorer-etl run … --dry-run`): `Pipeline.estimate`, with the exports
 * a killed run of the same config staged estimated from their stage, where the same command continues
 * them (an export it finished: nothing new to read). Refused, as the run would be, while another process
 * runs this pipeline in this folder. Touches neither the journal nor a file.
 *
 * @example
 * const estimates = yield* PipelineRun.estimate(pipeline, config, { outDir: "out" })
 */
export const estimate = <C, I>(
  pipeline: Pipeline.Pipeline<C, I>,
  config: C,
  options: RunOptions = {}
): Effect.Effect<
  ReadonlyArray<Exports.ExportEstimate>,
  StreamError | Exports.ExportError,
  ExplorerClient | FileSystem.FileSystem | Path.Path
> =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const journal = path.join(journalFolder(path.join(options.outDir ?? "out", pipeline.name), path), "journal.sqlite")
    const holder = yield* Lock.inspect(journal)
    if (holder._tag === "Some" && holder.value.alive) {
      return yield* new Lock.OutputLockedError({ path: journal, pid: holder.value.pid, host: holder.value.host, holder: `run of ${pipeline.name}` })
    }
    const stagedIn = yield* pendingStage(pipeline, config, options)
    return yield* Pipeline.estimate(pipeline, config, { ...options, stagedIn })
  })

/**
 * Runs a pipeline as a durable workflow in this process, its journal in `<outDir>/<pipeline>/.durable`.
 * Same result and files as `Pipeline.run`; see the module's documentation for what survives a crash.
 *
 * @example
 * const summaries = yield* PipelineRun.run(pipeline, config, { outDir: "out" })
 */
export const run = <C, I>(
  pipeline: Pipeline.Pipeline<C, I>,
  config: C,
  options: RunOptions = {}
): Effect.Effect<
  ReadonlyArray<Exports.ExportSummary>,
  StreamError | Exports.ExportError,
  ExplorerClient | FileSystem.FileSystem | Path.Path
> =>
  Effect.gen(function*() {
    // Refused before the journal is made: a run that cannot finish leaves nothing to continue.
    yield* Pipeline.check(pipeline, config)
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const outDir = path.join(options.outDir ?? "out", pipeline.name)
    const journalDir = journalFolder(outDir, path)
    const journal = path.join(journalDir, "journal.sqlite")
    const runFile = path.join(journalDir, "run.json")
    const { concurrency, confirmations, key } = yield* prepare(pipeline, config, options, journal)

    const PipelineRun = Workflow.make({
      name: `explorer-etl/run/${pipeline.name}`,
      payload: RunKey,
      success: Schema.Array(ExportSummary),
      error: ExportFailure,
      idempotencyKey: (k) => `${k.pipeline}\n${k.configHash}\n${k.runTime}`
    })

    const workflowLayer = PipelineRun.toLayer((_key, executionId) =>
      Effect.gen(function*() {
        const stageDir = path.join(journalDir, "runs", executionId)
        // Activities need the engine and this execution: given here, so `context.export` keeps the
        // type `Pipeline.run` gives it.
        const engine = yield* Effect.context<WorkflowEngine | WorkflowInstance>()
        // The exports that finished, in the order they did (rebuilt as the body replays: a finished
        // activity's result comes from the journal).
        const finished: Array<typeof ExportSummary.Type> = []
        const commit = (name: string, summaries: ReadonlyArray<typeof ExportSummary.Type>) =>
          Activity.make({
            name,
            execute: Effect.forEach(summaries, (s) => commitOne(path.join(stageDir, path.relative(outDir, s.out)), s.out), {
              discard: true
            }).pipe(Effect.zipRight(removeStage(stageDir)), Effect.orDie)
          })
        const context: Pipeline.PipelineContext = {
          outDir,
          concurrency,
          export: <A, Ie>(
            file: string,
            source: Sources.Source<A, Ie> | Effect.Effect<Sources.Source<A, Ie>, StreamError, ExplorerClient>,
            exportOptions?: { readonly allowPartial?: boolean; readonly confirmations?: number }
          ) =>
            exportWithDailyCap(
              file,
              Activity.make({
                name: `export ${file}`,
                success: ExportOutcome,
                error: ExportFailure,
                execute: exportStaged(
                  path.join(outDir, file),
                  path.join(stageDir, file),
                  Effect.isEffect(source) ? source : Effect.succeed(source),
                  {
                    resume: true,
                    confirmations: exportOptions?.confirmations ?? confirmations,
                    allowPartial: exportOptions?.allowPartial,
                    quiet: options.quiet,
                    ...(concurrency > 1 ? { progressOutput: Reporter.plainStderr } : {})
                  }
                ).pipe(waitingForDailyCap(path.join(outDir, file), Console.error))
              })
            ).pipe(Effect.tap((summary) => void finished.push(summary)), Effect.provide(engine))
        }
        // Failed (a typed error): the exports that finished are put in place all the same, as
        // `Pipeline.run` publishes each export as it ends, so the next run extends them rather than
        // asking for their rows again; the others' staged checkpoints are dropped with the run.
        const summaries = yield* pipeline.run(config, context).pipe(
          Effect.tapError(() => commit("commit finished exports", [...finished]))
        )
        yield* commit("commit", summaries)
        return summaries
      })
    )

    // The run ended (its result, success or typed failure, is in the journal): the next start is a new
    // run. Interrupted (Ctrl-C) or killed, it is kept, so the next start continues it. The journal then
    // forgets the runs before the last `keepRuns` (`Status.prune`; failing that, the next run's end tries
    // again).
    const ended = fs.remove(runFile).pipe(Effect.ignore, Effect.zipRight(Effect.ignore(Status.prune(options.keepRuns))))
    return yield* PipelineRun.execute(key).pipe(
      Effect.tap(() => ended),
      Effect.tapError(() => ended),
      Effect.provide(workflowLayer.pipe(Layer.provideMerge(engineLayer(journal))))
    )
  }).pipe(Effect.scoped)

