/**
 * The one way into a file: `Exports.toFile(source, options)` writes any source — a data set of the
 * library (`Sources.logs`, `Sources.tokenHolders`, …) or one of your own (`Sources.fromStream`,
 * `Sources.fromBlocks`) — to a CSV, JSONL or Parquet file, published atomically, with a manifest beside it.
 * Block-ordered sources are checkpointed, resumable and incremental; the others are rewritten whole.
 * Every option is checked here, before a file is touched or a request sent.
 *
 * @example
 * import { Exports, Sources } from "explorer-etl"
 * const source = yield* Sources.logs({ chainId: 137, address, fromBlock: 50_000_000 })
 * const summary = yield* Exports.toFile(source, { out: "out/logs.csv", resume: true, confirmations: 64 })
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as CallCount from "./CallCount.js"
import * as Estimate from "./sinks/Estimate.js"
import * as Export from "./sinks/Export.js"
import * as Format from "./sinks/Format.js"
import * as Lock from "./sinks/Lock.js"
import type * as Reporter from "./sinks/Reporter.js"
import { fileSystemError, SinkError } from "./sinks/SinkError.js"
import type * as Sources from "./streams/Sources.js"

/**
 * What an export did: the file, its manifest, how the run started and the rows it added.
 *
 * @since 0.1.0
 * @category models
 */
export type ExportSummary = Export.ExportSummary

/**
 * Why an export to a file failed: a sink failure, an output another export holds, a file it would overwrite.
 *
 * @since 0.1.0
 * @category errors
 */
export type ExportError = SinkError | Lock.OutputLockedError | Lock.OutputExistsError

/**
 * Where and how to write.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToFileOptions {
  /** The output file. Its folder is created if missing. */
  readonly out: string
  /** Default: from the extension (`.csv`; `.jsonl`, `.ndjson`; `.parquet`). */
  readonly format?: Format.FileFormat | undefined
  /**
   * `true`: continue an unfinished export, or extend a finished one (block-ordered sources).
   * `"unfinished"`: continue an unfinished export of the same query (saying so on the progress output),
   * else start over, as the CLI does without `--resume`. Default `false`: start over.
   */
  readonly resume?: boolean | "unfinished" | undefined
  /** Keep the last N blocks out until they are final: target = latest − N (default 0). */
  readonly confirmations?: number | undefined
  /** Page-numbered data sets: accept a list cut by the result window (the manifest says truncated). */
  readonly allowPartial?: boolean | undefined
  /** CSV: prefix `'` to text cells starting with = + - @ tab CR (default true). */
  readonly formulaGuard?: boolean | undefined
  /**
   * Parquet only (refused with another format): a `float64` companion `<name>_float` after each exact
   * decimal-string column (`value` → `value_float`), the nearest double of the exact amount, for charts and
   * quick filters (default false). It is part of the file's columns: a file is resumed with the same choice.
   */
  readonly floatColumns?: boolean | undefined
  /** Replace a file at `out` that explorer-etl did not write (no manifest describes it); default false. */
  readonly force?: boolean | undefined
  /**
   * The path the summary line names (default `out`): for a program that writes the file apart and then
   * moves it into place, as a durable run does (`explorer-etl run`: each export is written in the run's
   * journal folder and published when the run ends).
   */
  readonly shownAs?: string | undefined
  /** Print nothing on the progress output, not even the summary. */
  readonly quiet?: boolean | undefined
  /** Where progress and the summary go (default stderr). */
  readonly progressOutput?: Reporter.ProgressOutput | undefined
  /** Interval of progress lines when the output is not a TTY (default 5 seconds). */
  readonly progressEvery?: Duration.DurationInput | undefined
  /**
   * Minimum interval between checkpoints (default 0: a checkpoint is committed as soon as the previous
   * one is, covering every page written meanwhile, so a crash loses at most the pages in flight; the
   * last one is always committed). Parquet: default 10 seconds, as each checkpoint writes the rows
   * gathered so far as a row group of its own (see `parquetCheckpointEvery`).
   */
  readonly checkpointEvery?: Duration.DurationInput | undefined
  /**
   * Block-ordered library sources are read in partitions, in parallel, with as many requests in
   * flight as the measured latency calls for to fill the key's rate (see docs/behaviour.md,
   * "Requests in flight"). This caps the partitions read at once; 1 reads with one cursor. Default: no cap.
   */
  readonly concurrency?: number | undefined
  /**
   * CSV and JSONL exports of the block-ordered data sets: the worker threads that parse, check and
   * write each page's answer as the file's lines, so that an export uses more than one core (the main
   * thread keeps the network, the limiter, the block cursor and the writes, in order); the client holds
   * one pool of this size for all its exports, started at the first page and stopped when idle. `0`:
   * every page in the main thread. Default {@link defaultWorkers}: `EXPLORER_ETL_WORKERS`, else `0` (a
   * worker costs ~46 MB, and pays only where one core cannot keep up with the plan: transaction lists of
   * 10,000-row pages on a paid plan, with cores to spare). The file is the same byte for byte whatever the number. Parquet files, decoded events and
   * sources of your own are read in the main thread.
   */
  readonly workers?: number | undefined
  /**
   * Counts the export's requests (every attempt, retries included) in this counter, from what it holds
   * already: requests made to prepare the export (an ABI fetched with `CallCount.tracking(counter)`)
   * then count in its progress, summary and manifest too. Default: a counter of its own.
   */
  readonly counter?: CallCount.Counter | undefined
}

/**
 * The default interval between two checkpoints of a Parquet export: each checkpoint ends the row group
 * being gathered early (a smaller group), so they are spaced out to keep row groups near their full size.
 *
 * @since 0.1.0
 * @category constants
 */
export const parquetCheckpointEvery: Duration.Duration = Duration.seconds(10)

/**
 * The decoding worker threads of an export by default (`ToFileOptions.workers`): the environment
 * variable `EXPLORER_ETL_WORKERS` when it is set (a whole number ≥ 0: a machine's setting), else `0`,
 * every page in the main thread. Workers are asked for, not assumed: each costs ~46 MB of its own, and
 * they pay only where one core cannot parse as fast as the plan sends (bench/RESULTS.md, section 14);
 * `os.availableParallelism() - 1` is the most that helps. A value of `EXPLORER_ETL_WORKERS` that is not
 * a whole number ≥ 0 is refused by `toFile`.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultWorkers = (): number => {
  const set = workersFromEnvironment()
  return typeof set === "number" ? set : 0
}

/** `EXPLORER_ETL_WORKERS`: its number, its text when it is not a whole number ≥ 0, or undefined (not set). */
const workersFromEnvironment = (): number | string | undefined => {
  const text = globalThis.process?.env?.EXPLORER_ETL_WORKERS?.trim()
  if (text === undefined || text === "") return undefined
  return /^\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : text
}

const isBlockNumber = (n: number): boolean => Number.isSafeInteger(n) && n >= 0

const invalid = (out: string, detail: string, option?: string) =>
  new SinkError({ reason: "InvalidInput", path: out, detail, ...(option === undefined ? {} : { option }) })

/** Every option of an export, and the block range of the source it writes, checked; defaults filled in. */
const check = <A, I, E, R>(
  source: Sources.Source<A, I, E, R>,
  options: ToFileOptions
): Effect.Effect<Export.Settings, SinkError, Path.Path> =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const out = options.out
    const name = path.basename(out)
    const format = yield* Format.formatOf(out, options.format).pipe(
      Effect.mapError((e) => invalid(e.path, e.detail, "out"))
    )
    if (name.length === 0 || name === "." || name === "..") return yield* invalid(out, "the output is not a file name", "out")
    const confirmations = options.confirmations ?? 0
    if (options.concurrency !== undefined && !(Number.isSafeInteger(options.concurrency) && options.concurrency >= 1)) {
      return yield* invalid(out, `concurrency must be a whole number ≥ 1, got ${options.concurrency}`, "concurrency")
    }
    if (options.workers !== undefined && !(Number.isSafeInteger(options.workers) && options.workers >= 0)) {
      return yield* invalid(out, `workers must be a whole number ≥ 0, got ${options.workers}`, "workers")
    }
    const fromEnvironment = workersFromEnvironment()
    if (options.workers === undefined && typeof fromEnvironment === "string") {
      return yield* invalid(out, `EXPLORER_ETL_WORKERS must be a whole number ≥ 0, got ${JSON.stringify(fromEnvironment)}`, "workers")
    }
    if (options.checkpointEvery !== undefined && Duration.toMillis(Duration.decode(options.checkpointEvery)) < 0) {
      return yield* invalid(out, "checkpointEvery must not be negative", "checkpointEvery")
    }
    if (options.floatColumns === true && format !== "parquet") {
      return yield* invalid(out, `float columns are written in Parquet files only (this output is ${format})`, "floatColumns")
    }
    if (!isBlockNumber(confirmations)) {
      return yield* invalid(out, `confirmations must be a whole number ≥ 0, got ${confirmations}`, "confirmations")
    }
    // The library's sources checked their query before they were made; a source of your own is
    // checked here, as its first block names the file's checkpoint.
    if (source._tag === "Blocks") {
      if (!isBlockNumber(source.fromBlock)) return yield* invalid(out, `fromBlock must be a block number, got ${source.fromBlock}`)
      if (source.toBlock !== "latest" && (!isBlockNumber(source.toBlock) || source.toBlock < source.fromBlock)) {
        return yield* invalid(out, `toBlock must be a block number ≥ fromBlock (${source.fromBlock}), got ${source.toBlock}`)
      }
    }
    return {
      out,
      shownAs: options.shownAs ?? out,
      folder: path.dirname(out),
      name,
      format,
      formulaGuard: format === "csv" ? options.formulaGuard ?? true : undefined,
      floatColumns: format === "parquet" ? options.floatColumns === true : undefined,
      resume: options.resume === true || options.resume === "unfinished" ? options.resume : false,
      confirmations,
      allowPartial: options.allowPartial,
      quiet: options.quiet,
      progressOutput: options.progressOutput,
      progressEvery: options.progressEvery,
      checkpointEvery: Duration.toMillis(
        Duration.decode(options.checkpointEvery ?? (format === "parquet" ? parquetCheckpointEvery : Duration.zero))
      ),
      concurrency: options.concurrency,
      workers: options.workers ?? defaultWorkers(),
      counter: options.counter
    }
  })

/**
 * Writes every row of a source to `options.out`, with a manifest (and a checkpoint for block-ordered
 * sources): see `Sinks` for the files and the resume rules. Fails with `SinkError` (`InvalidInput`,
 * with the `option` at fault) before anything runs when an option is refused.
 *
 * One writer per output: the export holds `<out>.lock` from before anything else until it ends (see
 * `Lock`); a second export to the same file fails at once with `OutputLockedError`. A file at `out` that
 * explorer-etl did not write is refused with `OutputExistsError` unless `force`.
 *
 * @example
 * import { Exports, ExplorerClient, Sources } from "explorer-etl"
 * import { NodeContext, NodeHttpClient } from "@effect/platform-node"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const usdt = "0xdac17f958d2ee523a2206206994597c13d831ec7"
 *   const source = yield* Sources.erc20Transfers({ chainId: 1, contractAddress: usdt, fromBlock: 19_000_000 })
 *   return yield* Exports.toFile(source, { out: "out/usdt.csv", resume: true, confirmations: 64 })
 * })
 * program.pipe(
 *   Effect.provide(ExplorerClient.layerConfig()),
 *   Effect.provide(NodeHttpClient.layerUndici),
 *   Effect.provide(NodeContext.layer)
 * )
 *
 * @since 0.1.0
 * @category exports
 */
export const toFile = <A, I, E, R>(
  source: Sources.Source<A, I, E, R>,
  options: ToFileOptions
): Effect.Effect<
  ExportSummary,
  E | ExportError,
  R | FileSystem.FileSystem | Path.Path
> => assemble(source, options, undefined)

/**
 * What an export would do, from a dry run: see {@link estimate}.
 *
 * @since 0.1.0
 * @category models
 */
export type ExportEstimate = Estimate.Estimate

/**
 * The dry run of `toFile(source, options)`: the rows and requests the export would take, estimated
 * from at most the chain's head and one first page (none for a list read whole), where it would start
 * (an interrupted export of the same query at `out` continued: only what is left is estimated), and
 * nothing written — no file, folder, lock or checkpoint. Refuses what `toFile` would refuse before its
 * first request.
 *
 * @example
 * const plan = yield* Exports.estimate(source, { out: "out/logs.csv" })
 * console.log(plan.rows, plan.calls, plan.seconds)
 *
 * @since 0.1.0
 * @category exports
 */
export const estimate = <A, I, E, R>(
  source: Sources.Source<A, I, E, R>,
  options: ToFileOptions
): Effect.Effect<ExportEstimate, E | ExportError, R | FileSystem.FileSystem | Path.Path> =>
  Effect.flatMap(check(source, options), (settings) => Estimate.run(source, settings, options.force === true))

/**
 * For the cluster's runs (`Cluster`): an export's options checked into the settings `toFile` runs with.
 *
 * @internal
 *
 * @since 0.1.0
 * @category utils
 */
export const settingsOf: <A, I, E, R>(
  source: Sources.Source<A, I, E, R>,
  options: ToFileOptions
) => Effect.Effect<Export.Settings, SinkError, Path.Path> = check

/**
 * For the cluster's runs (`Cluster`): `toFile` of a block-ordered source whose range was read in parts
 * apart (`Export.plan`, `Export.writePart`), merged here into the file `toFile` would write.
 *
 * @internal
 *
 * @since 0.1.0
 * @category exports
 */
export const assemble = <A, I, E, R>(
  source: Sources.Source<A, I, E, R>,
  options: ToFileOptions,
  assembly: Export.Assembly | undefined
): Effect.Effect<
  ExportSummary,
  E | ExportError,
  R | FileSystem.FileSystem | Path.Path
> =>
  Effect.flatMap(Effect.map(check(source, options), (settings) => ({ ...settings, assembly })), (settings) =>
    Effect.scoped(Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      // The folder is made, and the lock taken in it, before anything else: an output location that
      // cannot be written fails here, before any request.
      yield* fs.makeDirectory(settings.folder, { recursive: true }).pipe(
        Effect.mapError(fileSystemError(settings.folder, "creating the folder"))
      )
      yield* Lock.acquire(settings.out)
      yield* Lock.checkOverwrite(settings.out, settings.name, options.force === true)
      return yield* Export.run(source, settings)
    })))
