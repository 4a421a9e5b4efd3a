/**
 * What the embedded (`PipelineRun`) and the cluster (`Cluster`) durable runs share: the journal's
 * schemas, the run key, an export written apart (staged) then committed over the published file, and
 * the wait for the key's daily cap: an export whose calls of the day are spent sleeps (`DurableClock`)
 * until the next 00:00 UTC, then continues from its checkpoint.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Activity from "@effect/workflow/Activity"
import * as DurableClock from "@effect/workflow/DurableClock"
import type { WorkflowEngine, WorkflowInstance } from "@effect/workflow/WorkflowEngine"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { createHash } from "node:crypto"
import { rmdir } from "node:fs/promises"
import type { ExplorerClient } from "../../ExplorerClient.js"
import { ExplorerError, type StreamError } from "../../ExplorerError.js"
import * as Exports from "../../Exports.js"
import * as Checkpoint from "../../sinks/Checkpoint.js"
import * as Export from "../../sinks/Export.js"
import * as Files from "../../sinks/Files.js"
import type * as Pipeline from "../../Pipeline.js"
import * as Lock from "../../sinks/Lock.js"
import * as Manifest from "../../sinks/Manifest.js"
import { fileSystemError, SinkError } from "../../sinks/SinkError.js"
import type * as Sources from "../../streams/Sources.js"

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

/**
 * An export's attempt that met the key's daily cap ("Max daily rate limit reached", answered by the
 * server or counted by the cluster's `KeyBudget`): the run waits until `until`, then starts the next
 * attempt, which continues from the staged file's checkpoint. Journaled as the attempt's result, so the
 * wake-up time is decided once (a workflow's body replays: a time it read from the clock would not).
 */
export const DailyCapWait = Schema.TaggedStruct("DailyCapWait", {
  /** When the next attempt starts: epoch ms, {@link nextDailyReset} of the moment the cap was met. */
  until: Schema.Number,
  /** The error met: `<ErrorTag>: <message>`. */
  reason: Schema.String
})
/** @see DailyCapWait */
export type DailyCapWait = typeof DailyCapWait.Type

/** What one attempt of an export's activity returns: the file's summary, or a wait for the daily cap. */
export const ExportOutcome = Schema.Union(ExportSummary, DailyCapWait)

/** A part of a cluster's export read apart, as stored in the journal (`Export.Part`). */
export const PartResult = Schema.Struct({
  ...Checkpoint.Partition.fields,
  contentHash: Schema.String,
  calls: Schema.Number
})

const Range = Schema.Struct({ fromBlock: Schema.Number, toBlock: Schema.Number })

/** How a cluster's export is cut into parts (`Export.PartsPlan`), as stored in the journal. */
export const PartsPlan = Schema.TaggedStruct("PartsPlan", {
  goal: Schema.Struct({ latest: Schema.Number, wanted: Schema.Number, target: Schema.Number }),
  startedAt: Schema.Number,
  calls: Schema.Number,
  read: Schema.Array(PartResult),
  rest: Schema.Array(Range)
})

/** An export a cluster writes whole, in one activity (not a block-ordered source read in parallel, or resumed). */
export const Whole = Schema.TaggedStruct("Whole", {})

/** What one attempt of an export's plan returns: its parts, the export whole, or a wait for the daily cap. */
export const PlanOutcome = Schema.Union(PartsPlan, Whole, DailyCapWait)

/** What one attempt of a part's activity returns: the part, or a wait for the daily cap. */
export const PartOutcome = Schema.Union(PartResult, DailyCapWait)

const isDailyCapWait = (outcome: unknown): outcome is DailyCapWait =>
  typeof outcome === "object" && outcome !== null && "_tag" in outcome && outcome._tag === "DailyCapWait"

const DAY_MILLIS = 86_400_000

/**
 * How long after 00:00 UTC an export waiting for the daily cap starts again: the server's clock (and
 * the cluster database's, which counts the day) may be a little behind the runner's, and a call sent
 * before the count is reset would be refused again.
 */
export const DAILY_RESET_MARGIN: Duration.Duration = Duration.minutes(1)

/**
 * When an export that met the daily cap at `now` (epoch ms) starts again: the next 00:00 UTC plus
 * {@link DAILY_RESET_MARGIN}. Met within the margin after midnight (a clock a little ahead of the
 * server's), it is the same day's midnight plus the margin, not the next day's.
 *
 * @example
 * nextDailyReset(Date.parse("2026-11-24T15:00:00Z")) // Date.parse("2026-11-25T00:01:00Z")
 */
export const nextDailyReset = (now: number, margin: Duration.DurationInput = DAILY_RESET_MARGIN): number => {
  const m = Duration.toMillis(margin)
  return (Math.floor((now - m) / DAY_MILLIS) + 1) * DAY_MILLIS + m
}

/** An instant as `2026-11-25 00:01:00 UTC`. */
export const utcText = (millis: number): string => `${new Date(millis).toISOString().slice(0, 19).replace("T", " ")} UTC`

/** Whether an export's failure is the key's daily cap (a `RateLimitError` of scope "day"). */
export const isDailyCap = (error: typeof ExportFailure.Type): boolean =>
  error._tag === "RateLimitError" && error.scope === "day"

/**
 * An export's work (the body of its activity) that turns the daily cap into a {@link DailyCapWait}:
 * the wake-up is read from the activity's clock, and `notify` is told the line to print (once: the
 * activity's result is journaled, its body does not replay).
 */
export const waitingForDailyCap = (out: string, notify: (line: string) => Effect.Effect<void>) =>
<A, R>(
  exported: Effect.Effect<A, typeof ExportFailure.Type, R>
): Effect.Effect<A | DailyCapWait, typeof ExportFailure.Type, R> =>
  Effect.catchIf(exported, isDailyCap, (error) =>
    Effect.gen(function*() {
      const until = nextDailyReset(yield* Clock.currentTimeMillis)
      const reason = `${error._tag}: ${error.message}`
      yield* notify(`${out}: waiting for the daily cap until ${utcText(until)} (${reason}), then continuing`)
      return DailyCapWait.make({ until, reason })
    }))

/**
 * An export of a durable run, in the workflow's body: its activity (whose result is an
 * {@link ExportOutcome}), and after an attempt that met the daily cap, a durable sleep (`DurableClock`,
 * a message the engine keeps and delivers at the wake-up: it survives the process) then the next
 * attempt — the same activity with the next `Activity.CurrentAttempt`, as the engine journals each
 * attempt's result apart.
 */
export const exportWithDailyCap = <A, R>(
  file: string,
  activity: Effect.Effect<A | DailyCapWait, typeof ExportFailure.Type, R>
): Effect.Effect<A, typeof ExportFailure.Type, R | WorkflowEngine | WorkflowInstance> =>
  Effect.gen(function*() {
    for (let attempt = 1;; attempt++) {
      const outcome = yield* Effect.provideService(activity, Activity.CurrentAttempt, attempt)
      if (!isDailyCapWait(outcome)) return outcome
      const now = yield* Clock.currentTimeMillis
      yield* DurableClock.sleep({
        // One clock per wake-up: a clock's name is its key in the journal (`file`: the export's
        // file, or what else of it waits, as `plan <file>`).
        name: `daily cap ${file} ${attempt}`,
        duration: Duration.millis(Math.max(0, outcome.until - now)),
        // Never in memory: the wait survives the process, however short it is.
        inMemoryThreshold: Duration.zero
      })
    }
  })

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

/**
 * How to run a pipeline durably: `Pipeline.RunOptions` without a config (it is given), and how many of
 * the pipeline's runs that ended the journal keeps (`keepRuns`, default `Status.keptRuns`: 100; the
 * earlier ones are removed when a run ends).
 */
export type RunOptions = Omit<Pipeline.RunOptions, "config" | "configFile"> & { readonly keepRuns?: number | undefined }

/** The journal's folder of a pipeline's output folder. */
export const journalFolder = (pipelineOutDir: string, path: Path.Path): string => path.join(pipelineOutDir, ".durable")

/** JSON with keys sorted, so equal values hash equally. */
export const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v)

export const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex")

/** The `configHash` of a run's key: its config (encoded) and the options that change files. */
export const configHashOf = (encodedConfig: unknown, confirmations: number): string =>
  sha256(canonical({ config: encodedConfig, confirmations }))

/** A file, its manifest and its checkpoint: what an export leaves beside `out`. */
export const filesOf = (out: string): ReadonlyArray<string> => Files.publishedFiles(out)

/**
 * The key of the run in progress (`run.json`) when it is of the same pipeline and config, else a new
 * one (now), written before the run starts so a crash leaves it for the next start.
 */
export const pendingKey = (runFile: string, pipeline: string, configHash: string) =>
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
 * The folder where the run the next start would continue staged its exports, read without touching
 * anything (a dry run): `run.json` of this pipeline and config (else the next start is a new run, and
 * what is staged goes), and its one stage folder; none when there is no such run.
 */
export const pendingStage = <C, I>(pipeline: Pipeline.Pipeline<C, I>, config: C, options: RunOptions) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const journalDir = journalFolder(path.join(options.outDir ?? "out", pipeline.name), path)
    const encoded = yield* Effect.option(Schema.encode(pipeline.config)(config))
    const previous = yield* fs.readFileString(path.join(journalDir, "run.json")).pipe(
      Effect.flatMap(Schema.decodeUnknown(Schema.parseJson(RunKey))),
      Effect.option
    )
    if (
      encoded._tag === "None" || previous._tag === "None" || previous.value.pipeline !== pipeline.name ||
      previous.value.configHash !== configHashOf(encoded.value, options.confirmations ?? 0)
    ) return undefined
    const runs = path.join(journalDir, "runs")
    const stages = yield* fs.readDirectory(runs).pipe(Effect.orElseSucceed((): ReadonlyArray<string> => []))
    return stages.length === 1 ? path.join(runs, stages[0] as string) : undefined
  })

/**
 * One export of a durable run: written to `stage` — first a copy of the published `out` with its
 * manifest and checkpoint, so it extends as `out` would — by `Exports.toFile`, while `out`'s lock is
 * held. Its summary line names `out`, and it returns the summary of the file as it will be once
 * committed to `out`.
 */
export const exportStaged = <A, I>(
  out: string,
  stage: string,
  source: Effect.Effect<Sources.Source<A, I>, StreamError, ExplorerClient>,
  options: Omit<Exports.ToFileOptions, "out">,
  assembly?: Export.Assembly | undefined
) =>
  Effect.gen(function*() {
    yield* stageOf(out, stage)
    const summary = yield* Exports.assemble(yield* source, { ...options, out: stage, shownAs: out }, assembly)
    return { ...summary, out, manifestPath: Manifest.manifestPath(out) }
  }).pipe(Effect.scoped)

/**
 * The stage of `out`, made once (its `.staged` mark): a copy of the published file, manifest and
 * checkpoint, so the export written there extends as `out` would; `out`'s lock taken for the scope.
 */
const stageOf = (out: string, stage: string) =>
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
  })

/**
 * The plan of a cluster's export (`Export.plan`), on its stage (made here, as {@link exportStaged}
 * makes it): its goal, the first page read into the stage's spool 1, and the ranges cut for parts;
 * `Whole` when the export is not read in parts.
 */
export const planStaged = <A, I>(
  out: string,
  stage: string,
  source: Effect.Effect<Sources.Source<A, I>, StreamError, ExplorerClient>,
  options: Omit<Exports.ToFileOptions, "out">,
  cut: { readonly maxParts: number; readonly partRows: number }
) =>
  Effect.gen(function*() {
    yield* stageOf(out, stage)
    const made = yield* source
    const settings = yield* Exports.settingsOf(made, { ...options, out: stage, shownAs: out })
    const planned = yield* Export.plan(made, settings, cut)
    return planned === undefined
      ? Whole.make({})
      : PartsPlan.make(planned)
  }).pipe(Effect.scoped)

/** A part of a cluster's export (`Export.writePart`): the blocks of `range`, into the stage's spool `index`. */
export const partStaged = <A, I>(
  stage: string,
  source: Effect.Effect<Sources.Source<A, I>, StreamError, ExplorerClient>,
  options: Omit<Exports.ToFileOptions, "out">,
  range: { readonly fromBlock: number; readonly toBlock: number; readonly index: number }
) =>
  Effect.gen(function*() {
    const made = yield* source
    const settings = yield* Exports.settingsOf(made, { ...options, out: stage })
    return yield* Export.writePart(made, settings, range)
  })

/**
 * The parts' spools checked against what their activities returned (length and sha256): a spool
 * missing or changed is removed, and the assembly reads its range again (`Partitioned` reads a
 * partition whose spool is gone from its first block), rather than merge rows it cannot vouch for.
 */
export const checkParts = (stage: string, parts: ReadonlyArray<typeof PartResult.Type>) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    for (const part of parts) {
      const spool = path.join(path.dirname(stage), part.spoolFile)
      const size = yield* Files.sizeOf(spool)
      if (size === undefined) continue
      if (size !== part.spoolBytes || (yield* Files.hashFile(spool)) !== part.contentHash) yield* Files.removeQuietly(spool)
    }
  })

/** The assembly of a planned export: its parts, their calls and rows, for `Export.Settings.assembly`. */
export const assemblyOf = (
  plan: typeof PartsPlan.Type,
  parts: ReadonlyArray<typeof PartResult.Type>
): Export.Assembly => {
  const all = [...plan.read, ...parts]
  return {
    goal: plan.goal,
    partitions: all.map(({ calls: _calls, contentHash: _hash, ...partition }) => partition),
    calls: plan.calls + parts.reduce((n, p) => n + p.calls, 0),
    rowsWritten: all.reduce((n, p) => n + p.rows, 0),
    startedAt: plan.startedAt
  }
}

/**
 * Moves a staged export over the published one: the file, then its checkpoint, then its manifest
 * (each an atomic rename). A file already moved (a commit that crashed half-way) is skipped.
 */
export const commitOne = (stage: string, out: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const [from, to] = [filesOf(stage), filesOf(out)]
    for (const i of [0, 2, 1]) {
      const [a, b] = [from[i] as string, to[i] as string]
      if (yield* fs.exists(a)) yield* fs.rename(a, b)
    }
    yield* fs.remove(`${stage}.staged`, { force: true })
  })

/**
 * Removes a run's stage folder (`<journal>/runs/<execution id>`) once its exports are committed, and
 * the `runs` folder with it when no other run's stage is left there (`rmdir`, which refuses a folder
 * that is not empty: a stage made meanwhile keeps it). Nothing of it fails the run.
 */
export const removeStage = (stageDir: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    yield* fs.remove(stageDir, { recursive: true }).pipe(Effect.ignore)
    yield* Effect.tryPromise(() => rmdir(path.dirname(stageDir))).pipe(Effect.ignore)
  })

/**
 * What every durable run does first: its journal's folder made, the `lock` taken for the scope (one
 * process per run of a pipeline in a folder), its config encoded and hashed, and its key — the run
 * in progress (`run.json`) or a new one.
 */
export const prepare = <C, I>(pipeline: Pipeline.Pipeline<C, I>, config: C, options: RunOptions, lock: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const outDir = path.join(options.outDir ?? "out", pipeline.name)
    const journalDir = journalFolder(outDir, path)
    const concurrency = Math.max(1, Math.floor(options.concurrency ?? 4))
    const confirmations = options.confirmations ?? 0
    yield* fs.makeDirectory(journalDir, { recursive: true }).pipe(
      Effect.mapError(fileSystemError(journalDir, "creating the folder"))
    )
    yield* Lock.acquire(lock, `run of ${pipeline.name}`)
    const encodedConfig = yield* Schema.encode(pipeline.config)(config).pipe(
      Effect.mapError((e) =>
        new SinkError({ reason: "InvalidInput", path: outDir, detail: `the config does not encode: ${e.message}` })
      )
    )
    const configHash = configHashOf(encodedConfig, confirmations)
    const key = yield* pendingKey(path.join(journalDir, "run.json"), pipeline.name, configHash)
    return { outDir, journalDir, concurrency, confirmations, encodedConfig, key }
  })
