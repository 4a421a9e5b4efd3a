/**
 * Ready pipelines: a named, documented, incremental export job over a small config of targets, as a
 * plain value that both `explorer-etl run <file>` and `npx tsx <file>` execute. The definition and the
 * ways of running one (once, checked, estimated, on a cron); the Node runner is `NodeRunner.ts`, the
 * choice between the simulator and an explorer API `ExplorerLayer.ts`.
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Cause from "effect/Cause"
import * as Cron from "effect/Cron"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { ExplorerClient } from "../ExplorerClient.js"
import { InvalidInputError, type StreamError } from "../ExplorerError.js"
import * as Exports from "../Exports.js"
import * as Manifest from "../sinks/Manifest.js"
import * as Reporter from "../sinks/Reporter.js"
import type * as Simulator from "../simulator/index.js"
import * as Sources from "../streams/Sources.js"

/**
 * What a pipeline's `run` gets besides its config.
 *
 * @since 0.1.0
 * @category models
 */
export interface PipelineContext {
  /** The folder this pipeline writes into (`<outDir>/<pipeline name>`). */
  readonly outDir: string
  /**
   * Exports a source (or the effect that makes it, e.g. `Sources.logs({ … })`) into `<outDir>/<file>`
   * through `Exports.toFile`, incrementally (resume), with its manifest.
   */
  readonly export: <A, I>(
    file: string,
    source: Sources.Source<A, I> | Effect.Effect<Sources.Source<A, I>, StreamError, ExplorerClient>,
    options?: { readonly allowPartial?: boolean; readonly confirmations?: number }
  ) => Effect.Effect<Exports.ExportSummary, StreamError | Exports.ExportError, ExplorerClient | FileSystem.FileSystem | Path.Path>
  /**
   * How many exports a pipeline should run at once (`Effect.forEach(targets, f, { concurrency })`):
   * exports through one client share its partition pool, so several small targets fill the key's
   * budget together (docs/behaviour.md, "Requests in flight"). Their progress is then printed as plain lines.
   */
  readonly concurrency: number
}

/**
 * A ready pipeline.
 *
 * @since 0.1.0
 * @category models
 */
export interface Pipeline<C, I = unknown> {
  readonly name: string
  readonly description: string
  /** The schema of its config file (JSON). */
  readonly config: Schema.Schema<C, I>
  /** Its default config file (targets on the real API). */
  readonly configFile: URL
  /** Targets on the embedded simulator's data set. */
  readonly demoConfig: (dataset: Simulator.DatasetDescription) => C
  readonly run: (
    config: C,
    context: PipelineContext
  ) => Effect.Effect<ReadonlyArray<Exports.ExportSummary>, StreamError | Exports.ExportError, ExplorerClient | FileSystem.FileSystem | Path.Path>
}

/**
 * Declares a pipeline (identity, for type inference).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <C, I>(pipeline: Pipeline<C, I>): Pipeline<C, I> => pipeline

/**
 * Any pipeline, whatever its config: what `run` loads from a file and what the demo's list holds. A
 * `Pipeline<C, I>` is not assignable to it as is (its config schema is invariant and `run` takes a
 * `C`): erase the config type with {@link any}.
 *
 * @since 0.1.0
 * @category models
 */
export type AnyPipeline = Pipeline<unknown, unknown>

/**
 * Erases a pipeline's config type, so pipelines of different configs share one list.
 *
 * @example
 * export const pipelines: ReadonlyArray<Pipeline.AnyPipeline> = [Pipeline.any(tokenActivity), Pipeline.any(walletHistory)]
 *
 * @since 0.1.0
 * @category constructors
 */
export const any = <C, I>(pipeline: Pipeline<C, I>): AnyPipeline => {
  const isConfig = Schema.is(pipeline.config)
  return {
    name: pipeline.name,
    description: pipeline.description,
    // Only the schema's phantom types are widened: decoding still checks the input and gives a C
    // (an `unknown`), encoding still checks at run time that it is given a C.
    config: pipeline.config as unknown as Schema.Schema<unknown, unknown>,
    configFile: pipeline.configFile,
    demoConfig: pipeline.demoConfig,
    run: (config, context) =>
      isConfig(config)
        ? pipeline.run(config, context)
        : Effect.fail(invalid(`the config given to ${pipeline.name} does not match its schema`))
  }
}

/**
 * A source answered by one call (tokeninfo, ethsupply, or a value of your own shaped as a row), for
 * `context.export`: see `Sources.oneCall`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const oneCall = Sources.oneCall

/**
 * How to run a pipeline.
 *
 * @since 0.1.0
 * @category models
 */
export interface RunOptions {
  /** Root folder of the outputs (default `./out`). */
  readonly outDir?: string | undefined
  /** A config file replacing the pipeline's own. */
  readonly configFile?: string | undefined
  /** Use these targets instead of reading a config file (the demo passes the simulator's). */
  readonly config?: unknown
  readonly quiet?: boolean | undefined
  /** Keep the newest N blocks out until final (default 0). */
  readonly confirmations?: number | undefined
  /** Exports a pipeline runs at once (`PipelineContext.concurrency`, default 4). */
  readonly concurrency?: number | undefined
}

const invalid = (detail: string, parameter?: string) =>
  new InvalidInputError({ chainId: 0, module: "pipeline", action: "run", detail, ...(parameter ? { parameter } : {}) })

/**
 * Reads and checks the config of a pipeline (a JSON file), before any request.
 *
 * @since 0.1.0
 * @category running
 */
export const loadConfig = <C, I>(
  pipeline: Pipeline<C, I>,
  options: RunOptions
): Effect.Effect<C, InvalidInputError> =>
  Effect.gen(function*() {
    if (options.config !== undefined) {
      return yield* Schema.decodeUnknown(pipeline.config)(options.config).pipe(
        Effect.mapError((e) => invalid(`config of ${pipeline.name}: ${e.message}`))
      )
    }
    const file = options.configFile ?? fileURLToPath(pipeline.configFile)
    const text = yield* Effect.try({
      try: () => readFileSync(file, "utf8"),
      catch: () => invalid(`cannot read the config file ${file}`, "--config")
    })
    const json = yield* Effect.try({
      try: (): unknown => JSON.parse(text),
      catch: () => invalid(`the config file ${file} is not JSON`, "--config")
    })
    return yield* Schema.decodeUnknown(pipeline.config)(json).pipe(
      Effect.mapError((e) => invalid(`config file ${file}: ${e.message}`, "--config"))
    )
  })

/** Dies from a call of the client given to {@link check}'s walk: that source cannot be checked unsent. */
class Unsent {}

/** Thrown (as a defect) by the context of {@link check}: the error a source was refused with as it was made. */
class Refused {
  constructor(readonly error: StreamError) {}
}

/**
 * `client` without its calls: every function of it dies (`Unsent`) instead of sending. What only
 * reads its settings (the plan, the default chain) works as with the client itself.
 */
const unsent = (client: ExplorerClient.Service): ExplorerClient.Service =>
  new Proxy(client, {
    get: (target, property, receiver) => {
      const value: unknown = Reflect.get(target, property, receiver)
      return typeof value === "function" ? () => Effect.die(new Unsent()) : value
    }
  })

/**
 * The refusals `pipeline`'s exports would meet before their first call — an operation above the
 * client's plan (`PlanTierError`), a chain not open to it, a parameter out of range — found before
 * any of them runs, so a run that cannot finish stops before it sends anything or writes a file,
 * not after the exports before the refused one. The pipeline is walked with a context whose `export`
 * only makes each source (the checks made as a source is made; the client's calls not sent) and
 * answers at once, with a summary of nothing. What that walk cannot see is checked as today, when its
 * export runs: a source made with a call (`events` with `abi: "auto"` asks for the ABI), exports that
 * depend on other exports' results, and what the server alone knows (a key it refuses). Run by
 * {@link run} and by the durable runs; the first refusal in the pipeline's order is the error.
 *
 * @example
 * yield* Pipeline.check(walletHistory, config) // PlanTierError on free: addresstokenbalance needs standard
 *
 * @since 0.1.0
 * @category running
 */
export const check = <C, I>(
  pipeline: Pipeline<C, I>,
  config: C
): Effect.Effect<void, StreamError, ExplorerClient | FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const client = unsent(yield* ExplorerClient)
    const nothing = (file: string) => ({ out: path.join("out", pipeline.name, file), rowsWritten: 0 }) as unknown as Exports.ExportSummary
    const context: PipelineContext = {
      outDir: path.join("out", pipeline.name),
      // One at a time: the first refusal is the first in the pipeline's order.
      concurrency: 1,
      export: (file, source) =>
        Effect.isEffect(source)
          ? source.pipe(
            Effect.provideService(ExplorerClient, client),
            Effect.catchAll((error) => Effect.die(new Refused(error))),
            // A source that would call (or any other defect) cannot be checked here: its export checks it.
            Effect.catchAllDefect((defect) => defect instanceof Refused ? Effect.die(defect) : Effect.void),
            Effect.as(nothing(file))
          )
          : Effect.succeed(nothing(file))
    }
    yield* pipeline.run(config, context).pipe(
      Effect.provideService(ExplorerClient, client),
      Effect.catchAllCause((cause) => {
        const refused = Cause.find(cause, (c) =>
          Cause.isDieType(c) && c.defect instanceof Refused ? Option.some(c.defect.error) : Option.none())
        // Anything else the walk met (an empty summary read as a full one, a call) is the run's to meet.
        return Option.isSome(refused) ? Effect.fail(refused.value) : Effect.void
      })
    )
  })

/**
 * Runs a pipeline once with the client in context.
 *
 * @since 0.1.0
 * @category running
 */
export const run = <C, I>(
  pipeline: Pipeline<C, I>,
  config: C,
  options: RunOptions = {}
): Effect.Effect<ReadonlyArray<Exports.ExportSummary>, StreamError | Exports.ExportError, ExplorerClient | FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    yield* check(pipeline, config)
    const path = yield* Path.Path
    const outDir = path.join(options.outDir ?? "out", pipeline.name)
    const concurrency = Math.max(1, Math.floor(options.concurrency ?? 4))
    const context: PipelineContext = {
      outDir,
      concurrency,
      export: (file, source, exportOptions) =>
        Effect.flatMap(Effect.isEffect(source) ? source : Effect.succeed(source), (s) =>
          Exports.toFile(s, {
            out: path.join(outDir, file),
            resume: true,
            confirmations: exportOptions?.confirmations ?? options.confirmations ?? 0,
            allowPartial: exportOptions?.allowPartial,
            quiet: options.quiet,
            // Several exports at once cannot each redraw one terminal line.
            ...(concurrency > 1 ? { progressOutput: Reporter.plainStderr } : {})
          }))
    }
    return yield* pipeline.run(config, context)
  })

/**
 * The dry run of a pipeline (`explorer-etl run … --dry-run`): what each of its exports would read and
 * cost (`Exports.estimate`: at most the chain's head and one first page each, nothing written), in the
 * pipeline's order, one export at a time. Checked first as {@link run} checks it. The pipeline's own
 * code runs as it is (a source it makes with a call, such as an ABI fetched, still sends it); what it
 * reads of an export's summary is an empty one (no rows written).
 *
 * @example
 * const estimates = yield* Pipeline.estimate(walletHistory, config, { outDir: "out" })
 *
 * @since 0.1.0
 * @category running
 */
export const estimate = <C, I>(
  pipeline: Pipeline<C, I>,
  config: C,
  options: RunOptions & {
    /**
     * The folder where an interrupted durable run staged its exports (`PipelineRun.estimate`): an
     * export staged there is estimated from its stage, as the run continues it there.
     */
    readonly stagedIn?: string | undefined
  } = {}
): Effect.Effect<ReadonlyArray<Exports.ExportEstimate>, StreamError | Exports.ExportError, ExplorerClient | FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    yield* check(pipeline, config)
    const path = yield* Path.Path
    const outDir = path.join(options.outDir ?? "out", pipeline.name)
    const estimates: Array<Exports.ExportEstimate> = []
    const fs = yield* FileSystem.FileSystem
    // The files a durable run staged (`<stage>/<file>.staged` marks a stage made whole).
    const staged = new Set<string>()
    if (options.stagedIn !== undefined) {
      const names = yield* fs.readDirectory(options.stagedIn, { recursive: true }).pipe(Effect.orElseSucceed(() => []))
      for (const name of names) if (name.endsWith(".staged")) staged.add(path.normalize(name.slice(0, -".staged".length)))
    }
    const context: PipelineContext = {
      outDir,
      // One at a time: the estimates come in the pipeline's order.
      concurrency: 1,
      export: (file, source, exportOptions) =>
        Effect.flatMap(Effect.isEffect(source) ? source : Effect.succeed(source), (s) =>
          Exports.estimate(s, {
            out: options.stagedIn !== undefined && staged.has(path.normalize(file)) ? path.join(options.stagedIn, file) : path.join(outDir, file),
            shownAs: path.join(outDir, file),
            resume: true,
            confirmations: exportOptions?.confirmations ?? options.confirmations ?? 0,
            allowPartial: exportOptions?.allowPartial
          })).pipe(
            Effect.map((estimate) => {
              estimates.push(estimate)
              // Nothing was written: the summary of an export that wrote no row.
              return { out: estimate.out, manifestPath: Manifest.manifestPath(estimate.out), rowsWritten: 0, mode: "unchanged" } as unknown as Exports.ExportSummary
            })
          )
    }
    yield* pipeline.run(config, context)
    return estimates
  })

/**
 * One line for a file a pipeline wrote: path, rows in the file, completeness (and why, when truncated).
 *
 * @since 0.1.0
 * @category formatting
 */
export const describeSummary = (summary: Exports.ExportSummary): string => {
  const { completeness, rows } = summary.manifest
  const status = completeness.status === "complete" ? "complete" : `truncated: ${completeness.reason ?? "see the manifest"}`
  return `${summary.out}\t${Reporter.plural(rows, "row")}\t${status}`
}

/**
 * Parses a cron expression up front (Schedule.cron only validates when it first runs).
 *
 * @since 0.1.0
 * @category utils
 */
export const parseCron = (expression: string): Effect.Effect<Cron.Cron, InvalidInputError> =>
  Either.match(Cron.parse(expression, "UTC"), {
    onLeft: (e) => Effect.fail(invalid(`not a cron expression "${expression}": ${e.message}`, "--every")),
    onRight: Effect.succeed
  })

/**
 * Runs a pipeline now and then at every time of `cron` (UTC), until interrupted; each run is incremental.
 *
 * @since 0.1.0
 * @category running
 */
export const schedule = <A, E, R>(once: Effect.Effect<A, E, R>, cron: Cron.Cron): Effect.Effect<void, E, R> =>
  once.pipe(Effect.repeat(Schedule.cron(cron)), Effect.asVoid)
