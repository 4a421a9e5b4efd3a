/**
 * What the embedded (`PipelineRun`) and the cluster (`Cluster`) durable runs share: the journal's
 * schemas, the run key, and an export written apart (staged) then committed over the published file.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { createHash } from "node:crypto"
import type { ExplorerClient } from "../../ExplorerClient.js"
import { ExplorerError, type StreamError } from "../../ExplorerError.js"
import * as Exports from "../../Exports.js"
import type * as Pipeline from "../../Pipeline.js"
import * as Lock from "../../sinks/Lock.js"
import * as Manifest from "../../sinks/Manifest.js"
import type * as Reporter from "../../sinks/Reporter.js"
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
export const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v)

export const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex")

/** The `configHash` of a run's key: its config (encoded) and the options that change files. */
export const configHashOf = (encodedConfig: unknown, confirmations: number): string =>
  sha256(canonical({ config: encodedConfig, confirmations }))

/** Progress as plain lines on stderr, even on a terminal (as `Pipeline.run` with several exports at once). */
export const plainStderr: Reporter.ProgressOutput = { isTTY: false, write: (text) => void process.stderr.write(text) }

/** A file, its manifest and its checkpoint: what an export leaves beside `out`. */
export const filesOf = (out: string): ReadonlyArray<string> => [out, Manifest.manifestPath(out), `${out}.state.json`]

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
 * One export of a durable run: written to `stage` — first a copy of the published `out` with its
 * manifest and checkpoint, so it extends as `out` would — by `Exports.toFile`, while `out`'s lock is
 * held. Returns the summary of the file as it will be once committed to `out`.
 */
export const exportStaged = <A, I>(
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
    yield* Lock.acquire(lock)
    const encodedConfig = yield* Schema.encode(pipeline.config)(config).pipe(
      Effect.mapError((e) =>
        new SinkError({ reason: "InvalidInput", path: outDir, detail: `the config does not encode: ${e.message}` })
      )
    )
    const configHash = configHashOf(encodedConfig, confirmations)
    const key = yield* pendingKey(path.join(journalDir, "run.json"), pipeline.name, configHash)
    return { outDir, journalDir, concurrency, confirmations, encodedConfig, key }
  })
