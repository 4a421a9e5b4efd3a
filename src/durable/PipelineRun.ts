/**
 * A pipeline run as a durable workflow (issue 18, embedded mode): `explorer-etl run <pipeline> --durable`.
 *
 * The run is a `@effect/workflow` `Workflow` executed by `@effect/cluster`'s `ClusterWorkflowEngine` on a
 * `SingleRunner`, whose journal is a SQLite file in the output folder. Every `context.export(file, …)`
 * of the pipeline is an `Activity` named `export <file>`; the last one, `commit`, puts the files in place.
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
 *   files by `commit`, all exports together, once every export finished; removed after.
 *
 * The files the run publishes are byte-identical to those of `Pipeline.run` (the same `Exports.toFile`
 * writes them); manifests and checkpoints are moved with them, so the next run (durable or not)
 * extends them.
 */
import * as ClusterWorkflowEngine from "@effect/cluster/ClusterWorkflowEngine"
import * as SingleRunner from "@effect/cluster/SingleRunner"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as Activity from "@effect/workflow/Activity"
import * as Workflow from "@effect/workflow/Workflow"
import type { WorkflowEngine, WorkflowInstance } from "@effect/workflow/WorkflowEngine"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { createHash } from "node:crypto"
import type { ExplorerClient } from "../ExplorerClient.js"
import { ExplorerError, type StreamError } from "../ExplorerError.js"
import * as Exports from "../Exports.js"
import type * as Pipeline from "../Pipeline.js"
import * as Lock from "../sinks/Lock.js"
import * as Manifest from "../sinks/Manifest.js"
import type * as Reporter from "../sinks/Reporter.js"
import { fileSystemError, SinkError } from "../sinks/SinkError.js"
import type * as Sources from "../streams/Sources.js"

/** What an export of a durable run returns, as stored in the journal (an `Exports.ExportSummary`). */
export const ExportSummary = Schema.Struct({
  out: Schema.String,
  manifestPath: Schema.String,
  manifest: Manifest.Manifest,
  mode: Manifest.RunMode,
  rowsWritten: Schema.Number
})

/** Every typed failure of an export, as stored in the journal. */
export const ExportFailure = Schema.Union(ExplorerError, SinkError, Lock.OutputLockedError, Lock.OutputExistsError)

/** Identifies a run: the same key is the same workflow execution (the engine's idempotency key). */
export const RunKey = Schema.Struct({
  /** The pipeline's name. */
  pipeline: Schema.String,
  /** sha256 of the run's inputs: the config (encoded, keys sorted) and the options that change files. */
  configHash: Schema.String,
  /** When the run was first started (ISO 8601, UTC). */
  runTime: Schema.String
})
/** @see RunKey */
export type RunKey = typeof RunKey.Type

/** How to run a pipeline durably: `Pipeline.RunOptions` without a config (it is given). */
export type RunOptions = Omit<Pipeline.RunOptions, "config" | "configFile">

/** The journal's folder of a pipeline's output folder. */
export const journalFolder = (pipelineOutDir: string, path: Path.Path): string => path.join(pipelineOutDir, ".durable")

/** JSON with keys sorted, so equal values hash equally. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v)

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex")

/** Progress as plain lines on stderr, even on a terminal (as `Pipeline.run` with several exports at once). */
const plainStderr: Reporter.ProgressOutput = { isTTY: false, write: (text) => void process.stderr.write(text) }

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
    Layer.provide(SqliteClient.layer({ filename: journal })),
    // Only the sharding config read from the environment can fail here: a broken set-up, not a run's error.
    Layer.orDie
  )

/** A file, its manifest and its checkpoint: what an export leaves beside `out`. */
const filesOf = (out: string): ReadonlyArray<string> => [out, Manifest.manifestPath(out), `${out}.state.json`]

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
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const outDir = path.join(options.outDir ?? "out", pipeline.name)
    const journalDir = journalFolder(outDir, path)
    const journal = path.join(journalDir, "journal.sqlite")
    const runFile = path.join(journalDir, "run.json")
    const concurrency = Math.max(1, Math.floor(options.concurrency ?? 4))
    const confirmations = options.confirmations ?? 0
    const fsError = (at: string, doing: string) => fileSystemError(at, doing)

    yield* fs.makeDirectory(journalDir, { recursive: true }).pipe(Effect.mapError(fsError(journalDir, "creating the folder")))
    yield* Lock.acquire(journal)

    const encodedConfig = yield* Schema.encode(pipeline.config)(config).pipe(
      Effect.mapError((e) =>
        new SinkError({ reason: "InvalidInput", path: outDir, detail: `the config does not encode: ${e.message}` })
      )
    )
    const configHash = sha256(canonical({ config: encodedConfig, confirmations }))
    const key = yield* pendingKey(runFile, pipeline.name, configHash)

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
        const context: Pipeline.PipelineContext = {
          outDir,
          concurrency,
          export: <A, Ie>(
            file: string,
            source: Sources.Source<A, Ie> | Effect.Effect<Sources.Source<A, Ie>, StreamError, ExplorerClient>,
            exportOptions?: { readonly allowPartial?: boolean; readonly confirmations?: number }
          ) =>
            Activity.make({
              name: `export ${file}`,
              success: ExportSummary,
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
                  ...(concurrency > 1 ? { progressOutput: plainStderr } : {})
                }
              )
            }).pipe(Effect.provide(engine))
        }
        const summaries = yield* pipeline.run(config, context)
        yield* Activity.make({
          name: "commit",
          execute: Effect.forEach(summaries, (s) => commitOne(path.join(stageDir, path.relative(outDir, s.out)), s.out), {
            discard: true
          }).pipe(Effect.zipRight(fs.remove(stageDir, { recursive: true }).pipe(Effect.ignore)), Effect.orDie)
        })
        return summaries
      })
    )

    // The run ended (its result, success or typed failure, is in the journal): the next start is a new
    // run. Interrupted (Ctrl-C) or killed, it is kept, so the next start continues it.
    const ended = fs.remove(runFile).pipe(Effect.ignore)
    return yield* PipelineRun.execute(key).pipe(
      Effect.tap(() => ended),
      Effect.tapError(() => ended),
      Effect.provide(workflowLayer.pipe(Layer.provideMerge(engineLayer(journal))))
    )
  }).pipe(Effect.scoped)

/**
 * The key of the run in progress (`run.json`) when it is of the same pipeline and config, else a new
 * one (now), written before the run starts so a crash leaves it for the next start.
 */
const pendingKey = (runFile: string, pipeline: string, configHash: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const previous = yield* fs.readFileString(runFile).pipe(
      Effect.flatMap(Schema.decodeUnknown(Schema.parseJson(RunKey))),
      Effect.option
    )
    if (previous._tag === "Some" && previous.value.pipeline === pipeline && previous.value.configHash === configHash) {
      return previous.value
    }
    // A new run: what earlier runs staged and never committed (they failed) is of no use any more.
    yield* fs.remove(path.join(path.dirname(runFile), "runs"), { recursive: true }).pipe(Effect.ignore)
    const key: RunKey = { pipeline, configHash, runTime: new Date().toISOString() }
    yield* fs.writeFileString(runFile, JSON.stringify(key) + "\n").pipe(
      Effect.mapError(fileSystemError(runFile, "writing"))
    )
    return key
  })

/**
 * One export of a durable run: written to `stage` — first a copy of the published `out` with its
 * manifest and checkpoint, so it extends as `out` would — by `Exports.toFile`, while `out`'s lock is
 * held. Returns the summary of the file as it will be once committed to `out`.
 */
const exportStaged = <A, I>(
  out: string,
  stage: string,
  source: Effect.Effect<Sources.Source<A, I>, StreamError, ExplorerClient>,
  options: Omit<Exports.ToFileOptions, "out">
) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    yield* fs.makeDirectory(path.dirname(out), { recursive: true }).pipe(
      Effect.mapError(fileSystemError(path.dirname(out), "creating the folder"))
    )
    yield* Lock.acquire(out)
    yield* Lock.checkOverwrite(out, path.basename(out), false)
    const staged = `${stage}.staged`
    if (!(yield* fs.exists(staged).pipe(Effect.orElseSucceed(() => false)))) {
      yield* fs.makeDirectory(path.dirname(stage), { recursive: true }).pipe(
        Effect.mapError(fileSystemError(path.dirname(stage), "creating the folder"))
      )
      const [from, to] = [filesOf(out), filesOf(stage)]
      for (let i = 0; i < from.length; i++) {
        const [a, b] = [from[i] as string, to[i] as string]
        if (yield* fs.exists(a).pipe(Effect.orElseSucceed(() => false))) {
          yield* fs.copyFile(a, b).pipe(Effect.mapError(fileSystemError(b, `copying ${a}`)))
        } else {
          yield* fs.remove(b, { force: true }).pipe(Effect.ignore)
        }
      }
      yield* fs.writeFileString(staged, "").pipe(Effect.mapError(fileSystemError(staged, "writing")))
    }
    const summary = yield* Exports.toFile(yield* source, { ...options, out: stage })
    return { ...summary, out, manifestPath: Manifest.manifestPath(out) }
  }).pipe(Effect.scoped)

/**
 * Moves a staged export over the published one: the file, then its checkpoint, then its manifest
 * (each an atomic rename). A file already moved (a commit that crashed half-way) is skipped.
 */
const commitOne = (stage: string, out: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const [from, to] = [filesOf(stage), filesOf(out)]
    for (const i of [0, 2, 1]) {
      const [a, b] = [from[i] as string, to[i] as string]
      if (yield* fs.exists(a)) yield* fs.rename(a, b)
    }
    yield* fs.remove(`${stage}.staged`, { force: true })
  })
