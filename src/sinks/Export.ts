/**
 * The export runner behind `Exports.toFile` (which checks the options first): writes a source into a
 * CSV, JSONL or Parquet file that is complete, never half-written, resumable after a crash, and
 * extendable on the next scheduled run. Where a run starts and the checkpoints it commits are `Resume`'s.
 * A Parquet file's rows are the JSONL encoder's objects, gathered into row groups (`Parquet.rowGroups`);
 * its checkpoints carry the row groups committed (`Checkpoint.State.parquet`), from which the footer
 * is written at the end.
 *
 * Files beside `out` (all in its folder, so every rename is atomic):
 * - `.<name>.partial`: the file being written. It becomes `out` by a rename, after an fsync, only once
 *   complete; `out` is therefore either the previous complete file, the new complete file, or absent.
 * - `<out>.state.json` (block-ordered exports only): the checkpoint, see `Checkpoint`.
 * - `<out>.manifest.json`: what the published file holds, see `Manifest`.
 *
 * Two kinds of source:
 * - block-ordered (logs, transactions, transfers…): batches over a block range, read in partitions
 *   at once when the source allows it (`Partitioned`, with spool files `.<name>.partial.p<N>`).
 *   Resumable and incremental. The checkpoint is committed as soon as the previous one ends (at most
 *   once per `checkpointEvery`) and at the end, each time after an fsync of the rows it counts. When
 *   such an export fails or is interrupted, a last checkpoint is committed and `.<name>.partial`,
 *   spools and state are kept so `resume` can continue (a SIGKILL keeps the last checkpoint; resume
 *   cuts any torn tail written after it).
 * - rows (holders, balances, any stream of records): written atomically. A failed or interrupted
 *   export removes its temporary file; a re-run rewrites the whole file. `resume` does not apply.
 *
 * The target block is `min(toBlock, latest − confirmations)` (`latest` is always asked once per run):
 * blocks newer than that are left for the next run. A fixed `toBlock` not yet reached makes the manifest
 * say `truncated` with the reason.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as CallCount from "../CallCount.js"
import * as Progress from "../streams/Progress.js"
import * as BlockCursor from "../streams/engine/BlockCursor.js"
import type { BlockBatch } from "../streams/engine/BlockCursor.js"
import {
  type BlockRange,
  type BlockSource,
  chainIdsOf,
  type RowSource,
  type Source,
  type StreamOptions
} from "../streams/Sources.js"
import * as Checkpoint from "./Checkpoint.js"
import { type DataFile, layout, openData, partTempName, publish, removeQuietly, spoolName } from "./Files.js"
import * as Format from "./Format.js"
import * as Manifest from "./Manifest.js"
import * as Parquet from "./Parquet.js"
import * as Partitioned from "./Partitioned.js"
import * as Reporter from "./Reporter.js"
import * as Resume from "./Resume.js"
import { fileSystemError, SinkError } from "./SinkError.js"

/** An export's options once checked, every default filled in (made by `Exports.toFile`). */
export interface Settings {
  readonly out: string
  /** The path the summary line names (`ToFileOptions.shownAs`). */
  readonly shownAs: string
  readonly folder: string
  /** The output's file name. */
  readonly name: string
  readonly format: Format.FileFormat
  /** CSV: whether the formula guard is on; undefined for JSONL and Parquet. */
  readonly formulaGuard: boolean | undefined
  /** Parquet: whether each decimal-string column has a `<name>_float` companion; undefined for CSV and JSONL. */
  readonly floatColumns: boolean | undefined
  /** `"unfinished"`: an unfinished checkpoint of the same export is continued (see `Resume.decide`). */
  readonly resume: boolean | "unfinished"
  readonly confirmations: number
  readonly allowPartial: boolean | undefined
  readonly quiet: boolean | undefined
  readonly progressOutput: Reporter.ProgressOutput | undefined
  readonly progressEvery: Duration.DurationInput | undefined
  /** Minimum interval between two checkpoints, in milliseconds. */
  readonly checkpointEvery: number
  /** Block-ordered sources that read in parallel: at most this many partitions at once (default: by latency). */
  readonly concurrency: number | undefined
  /** CSV and JSONL of sources with `lineBatches`: pages made into lines by this many worker threads (0: none). */
  readonly workers: number
  /**
   * Where the export counts its requests (`ToFileOptions.counter`): given, the requests it already
   * holds (made to prepare the export, as an ABI fetch) count in the manifest too.
   */
  readonly counter?: CallCount.Counter | undefined
  /**
   * A block-ordered export whose ranges were read elsewhere (a cluster's parts, see {@link plan} and
   * {@link writePart}): its goal is the plan's, and the parts' spools are merged as a checkpoint's
   * partitions are. Absent: the export reads its range itself.
   */
  readonly assembly?: Assembly | undefined
}

/** The blocks a run aims at: `wanted` by the source, `target` = the last of them final now. */
export interface Goal {
  readonly latest: number
  readonly wanted: number
  readonly target: number
}

/**
 * A range of an export read apart (a cluster's part): its rows in a spool file beside the temporary
 * file (`.<name>.partial.p<N>`), as a checkpoint's partition records them, with the sha256 of the
 * spool and the calls it took.
 */
export interface Part extends Checkpoint.Partition {
  /** `sha256:<hex>` of the spool's `spoolBytes` bytes. */
  readonly contentHash: string
  readonly calls: number
}

/** What an export that assembles parts read elsewhere is given: see `Settings.assembly`. */
export interface Assembly {
  readonly goal: Goal
  /**
   * The parts, ascending and contiguous from the export's first block; the last one is read on to the
   * goal's target where it ends before it (as a checkpoint's last partition is).
   */
  readonly partitions: ReadonlyArray<Checkpoint.Partition>
  /** Calls made for them (the plan's and the parts'): the manifest counts them with the export's own. */
  readonly calls: number
  /** Rows they hold: the rows this run wrote, for the summary and the manifest. */
  readonly rowsWritten: number
  /** When the plan started (epoch ms): the manifest's duration counts from there. */
  readonly startedAt: number
}

/** What an export did. */
export interface ExportSummary {
  readonly out: string
  readonly manifestPath: string
  /** The manifest written beside the file. */
  readonly manifest: Manifest.Manifest
  readonly mode: Manifest.RunMode
  /** Rows written by this run (the manifest's `rows` counts the whole file). */
  readonly rowsWritten: number
}

/** Rows encoded together: a rows source's rows are grouped by this many, a block batch written in such slices. */
const rowsChunk = 1024

/** What a finished run wrote, for its manifest. */
interface Outcome {
  readonly rows: number
  readonly bytes: number
  readonly contentHash: string
  readonly blockRange: { readonly from: number; readonly to: number } | null
  readonly completeness: Manifest.Completeness
  readonly mode: Manifest.RunMode
  /** Decoded events: of `rows`, the ones kept undecoded (undefined: not counted, or not known). */
  readonly undecodedRows?: number | undefined
}

/** One run while it writes: its files, encoder, identity, progress and display. */
interface Run {
  readonly settings: Settings
  readonly files: Resume.Files
  readonly dataset: string
  readonly chainIds: ReadonlyArray<number>
  readonly fingerprint: string
  /**
   * Encodes the rows the run reads: decoded records, or encoded ones for `lineBatches` and
   * `encodedBatches`. A Parquet run
   * encodes them as JSONL lines, whose objects are the rows its writer takes.
   */
  readonly encoder: Format.RowEncoder<unknown>
  /**
   * CSV and JSONL with `lineBatches` and workers: the encoding the encoder writes, for the workers
   * that write the lines in its place (`StreamOptions.lineWorkers`).
   */
  readonly lineWorkers: StreamOptions["lineWorkers"]
  /** Parquet: the file's columns (from the source's schema). */
  readonly parquet: ReadonlyArray<Parquet.Column> | undefined
  readonly progress: Progress.ProgressRef
  /** Every request sent for the export (retries included): see `CallCount`. */
  readonly counter: CallCount.Counter
  /** Requests counted before this run started (a resumed export's earlier runs): the display's rate leaves them out. */
  readonly callsBefore: { value: number }
  /** What the display shows: rows written by this run, and the block position. */
  readonly live: { rows: number; block: number | undefined; fraction: number | undefined; running: number }
  readonly started: number
  /** Why the stream stopped early, when its progress says it did. */
  readonly truncation: Effect.Effect<string | undefined>
  /** Writes the manifest and prints the summary line: the run's last step. */
  readonly finish: (outcome: Outcome) => Effect.Effect<ExportSummary, SinkError, FileSystem.FileSystem | Path.Path>
}

const { plural } = Reporter

/** The line printed when an export ends. */
const summaryLine = (out: string, m: Manifest.Manifest, mode: Manifest.RunMode, rowsWritten: number): string => {
  const status = m.completeness.status === "complete" ? "complete" : `truncated: ${m.completeness.reason}`
  const range = m.blockRange === null || m.blockRange.to < m.blockRange.from
    ? ""
    : `, blocks ${Reporter.count(m.blockRange.from)}..${Reporter.count(m.blockRange.to)}`
  const head = mode === "fresh"
    ? `wrote ${plural(rowsWritten, "row")} to ${out}`
    : mode === "unchanged"
    ? `no new blocks for ${out}: ${plural(m.rows, "row")}`
    : `appended ${plural(rowsWritten, "row")} to ${out}, ${Reporter.count(m.rows)} in all`
  const retries = m.retries === undefined || m.retries === 0 ? "" : ` (${Reporter.retries(m.retries)})`
  return `${head} (${status}${range}) in ${Reporter.duration(m.durationMs)}, ${plural(m.calls, "call")}${retries}`
}

/** The text encoding of a run's rows. Parquet rows are the JSONL encoder's objects: the encoded record, as the JSONL export writes it. */
const encodingOf = (settings: Settings) => ({
  format: settings.format === "parquet" ? "jsonl" as const : settings.format,
  formulaGuard: settings.formulaGuard
})

/**
 * The encoder of a source's rows. `lineBatches` and `encodedBatches` give the schema's encoded form (I), `batches`
 * its decoded values (A): one encoder for the kind the run reads, each checked against its own row type
 * where it is built. Its failures name the output.
 */
const encoderOf = <A, I, E, R>(source: Source<A, I, E, R>, settings: Settings) =>
  Effect.gen(function*() {
    const atOut = (e: SinkError) => new SinkError({ reason: e.reason, path: settings.out, detail: e.detail })
    const options = encodingOf(settings)
    const made: Format.RowEncoder<unknown> = source._tag === "Blocks" && (source.lineBatches !== undefined || source.encodedBatches !== undefined)
      ? (yield* Format.encodedEncoder(source.schema, options).pipe(Effect.mapError(atOut))) as Format.RowEncoder<unknown>
      : (yield* Format.encoder(source.schema, {
        ...options,
        chainIdOf: typeof source.chainId === "number" ? undefined : source.chainId.chainIdOf
      }).pipe(Effect.mapError(atOut))) as Format.RowEncoder<unknown>
    return {
      ...made,
      encode: (rows) => Effect.mapError(made.encode(rows), atOut),
      lines: (rows) => Either.mapLeft(made.lines(rows), atOut),
      objects: made.objects === undefined ? undefined : (rows) => Either.mapLeft((made.objects as NonNullable<typeof made.objects>)(rows), atOut)
    } satisfies Format.RowEncoder<unknown>
  })

/**
 * What names an export's checkpoint, without touching a file: its encoder, Parquet columns, identity
 * and fingerprint (a run begins with it; a dry run reads the checkpoint with it).
 */
export const identify = <A, I, E, R>(source: Source<A, I, E, R>, settings: Settings) =>
  Effect.gen(function*() {
    const chainIds = chainIdsOf(source)
    const encoder = yield* encoderOf(source, settings)
    const parquet = settings.format === "parquet"
      ? yield* Parquet.columnsOf(source.schema, {
        chainId: encoder.columns[0] === Format.chainIdColumn,
        floats: settings.floatColumns === true
      }).pipe(
        Effect.mapError((e) => new SinkError({ reason: e.reason, path: settings.out, detail: e.detail }))
      )
      : undefined
    const columns = parquet === undefined ? encoder.columns : parquet.map((c) => c.name)
    const identity: Checkpoint.Identity = {
      dataset: source.dataset,
      chainIds,
      query: Checkpoint.canonical(source.query),
      format: settings.format,
      columns: parquet === undefined ? encoder.columns : parquet.map((c) => `${c.name}:${c.type}`),
      fromBlock: source._tag === "Blocks" ? source.fromBlock : undefined,
      formulaGuard: settings.formulaGuard
    }
    return { chainIds, encoder, parquet, columns, identity, fingerprint: Checkpoint.fingerprint(identity) }
  })

/**
 * The rate an export's calls get, as its source says: the rate its partitions share, else its own (the
 * sink knows no plan rules).
 */
export const rateOf = <A, I, E, R>(source: Source<A, I, E, R>): number | undefined =>
  source._tag === "Blocks" && source.parallel !== undefined ? source.parallel.callsPerSecond : source.callsPerSecond

/** Starts a run: its folder, identity, progress display and manifest writer. */
const begin = <A, I, E, R>(source: Source<A, I, E, R>, settings: Settings) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const { chainIds, columns, encoder, fingerprint, identity, parquet } = yield* identify(source, settings)
    const progress = yield* Progress.make(source.dataset, chainIds[0] ?? 0)
    const counter = settings.counter ?? CallCount.make()
    yield* fs.makeDirectory(settings.folder, { recursive: true }).pipe(
      Effect.mapError(fileSystemError(settings.folder, "creating the folder"))
    )
    const started = settings.assembly?.startedAt ?? (yield* Clock.currentTimeMillis)
    // Set once a resumed export has added its earlier runs' requests to the counter.
    const callsBefore = { value: 0 }
    // An assembly's parts were written by this run: their rows count as written.
    const live: Run["live"] = { rows: settings.assembly?.rowsWritten ?? 0, block: undefined, fraction: undefined, running: 0 }
    const callsPerSecondLimit = rateOf(source)
    const snapshot = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const p = yield* SubscriptionRef.get(progress)
      return {
        label: `${source.dataset} chain ${chainIds.join(",")}`,
        rows: live.rows,
        // This run's requests (retries included), so that the rate is this run's.
        calls: counter.requests - callsBefore.value,
        retries: counter.retries,
        elapsedMs: now - started,
        block: live.block,
        fraction: live.fraction ?? Progress.fraction(p),
        callsPerSecondLimit,
        partitions: live.running
      } satisfies Reporter.Snapshot
    })
    const reporter = yield* Reporter.start({
      output: settings.progressOutput,
      quiet: settings.quiet,
      snapshot,
      every: settings.progressEvery
    })
    const finish = (outcome: Outcome) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const { mode } = outcome
        const manifest: Manifest.Manifest = {
          manifestVersion: 1,
          file: settings.name,
          dataset: source.dataset,
          query: identity.query,
          chainIds,
          plan: source.plan,
          format: settings.format,
          columns,
          ...(parquet === undefined ? {} : { columnTypes: parquet.map((c) => ({ name: c.name, type: c.type })) }),
          rows: outcome.rows,
          ...(source._tag === "Blocks" && source.countsDecoding === true && outcome.undecodedRows !== undefined
            ? { decodedRows: outcome.rows - outcome.undecodedRows, undecodedRows: outcome.undecodedRows }
            : {}),
          bytes: outcome.bytes,
          blockRange: outcome.blockRange,
          completeness: outcome.completeness,
          calls: (settings.assembly?.calls ?? 0) + counter.requests,
          retries: counter.retries,
          durationMs: now - started,
          contentHash: outcome.contentHash,
          createdAt: new Date(now).toISOString(),
          tool: { name: Manifest.tool.name, version: Manifest.tool.version },
          run: { mode, rowsWritten: live.rows }
        }
        yield* Manifest.write(settings.out, manifest)
        yield* reporter.finish(summaryLine(settings.shownAs, manifest, mode, live.rows))
        return {
          out: settings.out,
          manifestPath: Manifest.manifestPath(settings.out),
          manifest,
          mode,
          rowsWritten: live.rows
        } satisfies ExportSummary
      })
    return {
      settings,
      files: layout(path, settings.out),
      dataset: source.dataset,
      chainIds,
      fingerprint,
      encoder,
      // Lines by workers: text files read by `lineBatches` (Parquet rows are objects, made in the main thread).
      lineWorkers: settings.workers > 0 && settings.format !== "parquet" && source._tag === "Blocks" && source.lineBatches !== undefined
        ? { workers: settings.workers, ...encodingOf(settings), schema: source.schema }
        : undefined,
      parquet,
      progress,
      counter,
      callsBefore,
      live,
      started,
      truncation: Effect.map(SubscriptionRef.get(progress), (p): string | undefined =>
        p.completeness === "truncated" ? p.truncatedReason ?? "the stream stopped before the end of its data" : undefined),
      finish
    } satisfies Run
  })

const { rowsOfLines } = Parquet

/**
 * The rows a Parquet writer takes from decoded records: the JSONL encoder's objects, built without the
 * line's text (the same values `JSON.parse` of the line gives, so the file is the same).
 */
const parquetRows = (
  encoder: Format.RowEncoder<unknown>,
  rows: ReadonlyArray<unknown>
): Either.Either<ReadonlyArray<Parquet.Row>, SinkError> =>
  encoder.objects !== undefined
    // JSON values, as JSON.parse gives them (rowsOfLines casts the same way).
    ? encoder.objects(rows) as Either.Either<ReadonlyArray<Parquet.Row>, SinkError>
    : Either.map(encoder.lines(rows), rowsOfLines)

/**
 * A file written whole: `write` fills the temporary file (and returns its length and sha256), which is
 * then renamed over `out` (a state file beside `out` would describe the file being replaced, so it
 * goes), and the manifest written. A failure removes the temporary file.
 */
const publishWhole = <E, R>(
  run: Run,
  write: (files: Resume.Files) => Effect.Effect<{ readonly bytes: number; readonly contentHash: string }, E, R | Scope.Scope>
) =>
  Effect.gen(function*() {
    const { files } = run
    const written = yield* write(files).pipe(
      Effect.scoped,
      Effect.tap(() => removeQuietly(files.statePath)),
      Effect.tap(() => publish(files.temp, files.out)),
      Effect.onError(() => removeQuietly(files.temp))
    )
    const reason = yield* run.truncation
    return yield* run.finish({
      rows: run.live.rows,
      bytes: written.bytes,
      contentHash: written.contentHash,
      blockRange: null,
      completeness: reason === undefined ? { status: "complete" } : { status: "truncated", reason },
      mode: "fresh"
    })
  })

/** A rows source to Parquet: row groups of `Parquet.rowGroupRows` rows, the footer, then the rename. */
const writeRowsParquet = <A, I, E, R>(source: RowSource<A, I, E, R>, run: Run, columns: ReadonlyArray<Parquet.Column>) =>
  publishWhole(run, (files) =>
    Effect.gen(function*() {
      const { encoder, live } = run
      const writer = yield* Parquet.open(files.temp, columns)
      const groups = Parquet.rowGroups(writer)
      yield* source.rows({ progress: run.progress, allowPartial: run.settings.allowPartial }).pipe(
        Stream.rechunk(rowsChunk),
        Stream.runForEachChunk((chunk) =>
          Effect.flatMap(parquetRows(encoder, Chunk.toReadonlyArray(chunk)), (rows) => {
            live.rows += rows.length
            return groups.add(rows)
          })
        )
      )
      yield* groups.flush
      return yield* writer.finish
    }))

/** A rows source: the temporary file is written whole, then renamed over `out`. */
const writeRows = <A, I, E, R>(source: RowSource<A, I, E, R>, run: Run) =>
  Effect.suspend(() => {
    if (run.parquet !== undefined) return writeRowsParquet(source, run, run.parquet)
    const { encoder, live } = run
    return publishWhole(run, (files) => Effect.gen(function*() {
      const file = yield* openData(files.temp, 0)
      yield* file.append(encoder.header)
      yield* source.rows({ progress: run.progress, allowPartial: run.settings.allowPartial }).pipe(
        // Rows may come one per chunk: encoding and writing per chunk has a fixed cost, so regroup them.
        Stream.rechunk(rowsChunk),
        Stream.runForEachChunk((chunk) =>
          Effect.flatMap(encoder.encode(chunk), (text) => {
            live.rows += chunk.length
            return file.append(text)
          })
        )
      )
      yield* file.sync
      return { bytes: file.bytes(), contentHash: file.contentHash() }
    }))
  })

/** Whether the file holds every block of the goal up to `completeThrough`, and why not. */
const completenessOf = (run: Run, goal: Goal, completeThrough: number) =>
  Effect.map(run.truncation, (fromProgress): Manifest.Completeness => {
    const reasons: Array<string> = []
    if (fromProgress !== undefined) reasons.push(fromProgress)
    if (completeThrough < goal.target) {
      reasons.push(`the source ended at block ${completeThrough}, before the target block ${goal.target}`)
    } else if (completeThrough < goal.wanted) {
      reasons.push(
        `blocks ${completeThrough + 1}..${goal.wanted} are not final yet ` +
          `(latest ${goal.latest}, confirmations ${run.settings.confirmations}); a later run with resume adds them`
      )
    }
    return reasons.length === 0 ? { status: "complete" } : { status: "truncated", reason: reasons.join("; ") }
  })

/** The first checkpoint of a block-ordered run that starts afresh. */
const freshState = <A, I, E, R>(run: Run, source: BlockSource<A, I, E, R>): Checkpoint.State => ({
  version: 1,
  fingerprint: run.fingerprint,
  dataset: run.dataset,
  chainIds: run.chainIds,
  format: run.settings.format,
  phase: "writing",
  tempFile: run.files.tempName,
  bytes: 0,
  rows: 0,
  // Decoded events count their undecoded rows from the first checkpoint on.
  undecodedRows: source.countsDecoding === true ? 0 : undefined,
  fromBlock: source.fromBlock,
  completeThrough: source.fromBlock - 1,
  updatedAt: new Date(run.started).toISOString()
})

/**
 * The partitions a run continues, and its last block: a resumed export reads at least to where they
 * were to end. An assembly that starts (not resumed) continues its parts.
 */
const partitionsOf = (start: Resume.Start, range: BlockRange, assembly: Assembly | undefined) => {
  const resumed = start._tag === "Resume" ? start.state.partitions ?? [] : assembly?.partitions ?? []
  return { resumed, toBlock: Math.max(range.toBlock, ...resumed.map((p) => p.toBlock)) }
}

/**
 * What both block writers (CSV/JSONL and Parquet) give `Partitioned.run` alike: where the run stands,
 * the partitions it continues, how the source reads a range (`reading`: its batches, or its lines
 * when it has them), the limits, and the live display.
 */
const partitionedCommon = <A, I, E, R>(
  source: BlockSource<A, I, E, R>,
  run: Run,
  start: Resume.Start,
  base: Checkpoint.State,
  range: BlockRange,
  until: Effect.Effect<number, E | SinkError> | undefined
) => {
  const { files, live, settings } = run
  const { resumed, toBlock } = partitionsOf(start, range, settings.assembly)
  // An assembly's parts count as written by this run (`Assembly.rowsWritten`); the view counts the rest.
  const rowsBefore = settings.assembly?.rowsWritten ?? 0
  return {
    folder: settings.folder,
    tempName: files.tempName,
    at: { rows: base.rows, completeThrough: base.completeThrough, undecodedRows: base.undecodedRows },
    toBlock,
    until,
    resumed,
    parallel: source.parallel,
    concurrency: settings.concurrency,
    checkpointEvery: settings.checkpointEvery,
    onProgress: (view: Partitioned.View) => {
      live.rows = rowsBefore + view.rows
      live.block = view.completeThrough
      live.fraction = view.fraction
      live.running = view.running
    },
    /** The options of the source's read of one partition. */
    readOptions: (bound: BlockCursor.Bound, onAnswer: (millis: number) => void): StreamOptions => ({
      progress: run.progress,
      bound,
      onAnswer,
      ...(run.lineWorkers === undefined ? {} : { lineWorkers: run.lineWorkers })
    })
  }
}

/** How a block source's partitions read their batches and write their rows (into a spool, or a data file). */
interface RangeIO<E, R> {
  readonly read: (blocks: BlockRange, options: StreamOptions) => Stream.Stream<BlockBatch<unknown>, E | SinkError, R>
  readonly write: (target: DataFile, rows: ReadonlyArray<unknown>) => Effect.Effect<void, SinkError>
}

/**
 * Appends lines given as text, or as bytes (lines a decoding worker made: views into their page's
 * buffer, whose neighbours are appended as one view).
 */
const appendLines = (target: DataFile, rows: ReadonlyArray<string | Uint8Array>): Effect.Effect<void, SinkError> =>
  Effect.suspend(() => {
    const writes: Array<Effect.Effect<void, SinkError>> = []
    // Texts in a row are appended together, each encoded into the file's buffer: not concatenated first
    // (a page's text in one string is made and flattened in pages of its own, as large objects are).
    let texts: Array<string> = []
    let run: Uint8Array | undefined
    const flushRun = () => {
      if (run !== undefined) writes.push(target.appendBytes(run))
      run = undefined
    }
    const flushTexts = () => {
      if (texts.length > 0) writes.push(target.appendTexts(texts))
      texts = []
    }
    for (const row of rows) {
      if (typeof row === "string") {
        flushRun()
        if (row !== "") texts.push(row)
        continue
      }
      flushTexts()
      if (run !== undefined && run.buffer === row.buffer && run.byteOffset + run.byteLength === row.byteOffset) {
        run = new Uint8Array(run.buffer, run.byteOffset, run.byteLength + row.byteLength)
      } else {
        flushRun()
        run = row
      }
    }
    flushRun()
    flushTexts()
    return writes.length === 1 ? writes[0] as Effect.Effect<void, SinkError> : Effect.all(writes, { discard: true })
  })

/**
 * CSV and JSONL: lines are written as they are; decoded rows are encoded first. Written `rowsChunk`
 * rows at a time: the text of a 10,000-row page (and its bytes) need not all be held at once.
 */
const dataIO = <A, I, E, R>(source: BlockSource<A, I, E, R>, run: Run): RangeIO<E, R> => {
  const { encoder } = run
  const lineBatches = source.lineBatches
  const writeSlice = (target: DataFile, rows: ReadonlyArray<unknown>): Effect.Effect<void, SinkError> =>
    lineBatches !== undefined ? appendLines(target, rows as ReadonlyArray<string | Uint8Array>) : Effect.flatMap(encoder.encode(rows), target.append)
  return {
    read: (blocks, options) =>
      lineBatches !== undefined
        ? lineBatches(blocks, encoder.lines, options)
        : (source.encodedBatches ?? source.batches)(blocks, options) as Stream.Stream<BlockBatch<unknown>, E, R>,
    write: (target, rows) =>
      Effect.gen(function*() {
        for (let i = 0; i < rows.length; i += rowsChunk) {
          yield* writeSlice(target, rows.length <= rowsChunk ? rows : rows.slice(i, i + rowsChunk))
        }
      })
  }
}

/**
 * Parquet: the records read become the JSONL encoder's objects at once (never its text parsed back);
 * spools hold JSONL lines, the objects' JSON text (read back as the same objects).
 */
const parquetIO = <A, I, E, R>(source: BlockSource<A, I, E, R>, run: Run): RangeIO<E, R> => {
  const { encoder } = run
  const lineBatches = source.lineBatches
  return {
    read: (blocks, options) =>
      lineBatches !== undefined
        ? lineBatches(blocks, (records: ReadonlyArray<unknown>) => parquetRows(encoder, records), options)
        : Stream.mapEffect((source.encodedBatches ?? source.batches)(blocks, options) as Stream.Stream<BlockBatch<unknown>, E, R>, (batch) =>
          Effect.map(parquetRows(encoder, batch.rows), (rows): BlockBatch<unknown> => ({ ...batch, rows }))),
    write: (target, rows) => target.append((rows as ReadonlyArray<Parquet.Row>).map((row) => JSON.stringify(row) + "\n").join(""))
  }
}

/** The read and write of a run's format. */
const ioOf = <A, I, E, R>(source: BlockSource<A, I, E, R>, run: Run): RangeIO<E, R> =>
  run.parquet !== undefined ? parquetIO(source, run) : dataIO(source, run)

/**
 * Writes the blocks of `range` after where the run starts, in partitions read in parallel when the
 * source allows it (`Partitioned`), committing checkpoints on the way (and a last one when it fails or
 * is interrupted, so `resume` continues from there). Ends with the file complete, fsynced and its state
 * "publishing".
 */
const writeRange = <A, I, E, R>(
  source: BlockSource<A, I, E, R>,
  run: Run,
  start: Resume.Start,
  range: BlockRange,
  until: Effect.Effect<number, E | SinkError> | undefined
) =>
  Effect.gen(function*() {
    const { encoder, files, live, settings } = run
    // An assembly's parts are spools beside the temporary file: kept.
    if (start._tag === "Fresh" && settings.assembly === undefined) yield* Partitioned.removeSpools(settings.folder, files.tempName)
    const { base, file } = yield* Resume.open(start, files, encoder.header, freshState(run, source))
    const { readOptions, ...common } = partitionedCommon(source, run, start, base, range, until)
    const snapshotAt = (snapshot: Partitioned.Snapshot) =>
      Resume.write(files, base, "writing", { ...snapshot.main, partitions: snapshot.partitions })
    live.block = base.completeThrough
    if (start._tag === "Fresh") {
      // An assembly's first checkpoint names its parts: resumed, it merges them rather than read again.
      yield* snapshotAt({
        main: { bytes: file.bytes(), rows: 0, completeThrough: base.completeThrough, undecodedRows: 0 },
        partitions: common.resumed
      })
    }
    const { read, write } = dataIO(source, run)
    const position = yield* Partitioned.run({
      ...common,
      main: Partitioned.dataMain(file, write),
      read: (blocks, bound, onAnswer) => read(blocks, readOptions(bound, onAnswer)),
      write,
      commit: snapshotAt
    }).pipe(
      // Failed or interrupted: the last committed checkpoint stands (it counts only fsynced rows), and
      // `resume` continues from there.
      Effect.scoped
    )
    yield* file.sync
    const contentHash = file.contentHash()
    yield* Resume.write(files, base, "publishing", { ...position, contentHash })
    yield* Partitioned.removeSpools(settings.folder, files.tempName)
    return { ...position, contentHash, base }
  }).pipe(Effect.scoped)

/**
 * The temporary file of a Parquet export as the partitions write it: the rows of a batch (the encoder's
 * objects) and of a merged spool (read line by line) gathered into row groups; a checkpoint's mark
 * cuts the rows gathered so far into a smaller row group, and `sync` returns the row groups up to the
 * mark.
 */
const parquetMain = (writer: Parquet.ParquetWriter, groups: Parquet.RowGroups): Partitioned.Main => {
  // A row group of wide rows is cut sooner (`Parquet.rowGroupBytes`), counted alike whether its rows
  // came from a batch or a spool: the row groups depend on the rows alone.
  const add = (rows: ReadonlyArray<Parquet.Row>) => groups.add(rows, rows.map(Parquet.rowChars))
  const addLines = (lines: ReadonlyArray<string>) => add(rowsOfLines(lines))
  return {
    bytes: () => writer.state().bytes,
    write: (rows) => add(rows as ReadonlyArray<Parquet.Row>),
    appendSpool: (spool) =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const decoder = new TextDecoder()
        let rest = ""
        yield* fs.stream(spool.path).pipe(
          Stream.mapError(fileSystemError(spool.path, "reading the spool")),
          Stream.runForEach((chunk) => {
            const text = rest + decoder.decode(chunk, { stream: true })
            const end = text.lastIndexOf("\n")
            rest = end < 0 ? text : text.slice(end + 1)
            if (end < 0) return Effect.void
            const lines = text.slice(0, end).split("\n")
            return addLines(lines.map((line) => line + "\n"))
          })
        )
        rest += decoder.decode()
        if (rest !== "") {
          return yield* new SinkError({ reason: "StateMismatch", path: spool.path, detail: "the spool ends inside a line" })
        }
      }),
    mark: groups.mark,
    sync: groups.sync
  }
}

/**
 * `writeRange` for Parquet: the same partitions, checkpoints and resume, with the rows of a batch
 * gathered into row groups of `Parquet.rowGroupRows` rows in the temporary file, and spools holding
 * the partitions' rows as JSONL lines until they are merged. A checkpoint writes the rows gathered
 * so far as a smaller row group, fsyncs, and records the row groups (`Parquet.State`) with the
 * position. Ends with the footer written, the file fsynced and its state "publishing".
 */
const writeRangeParquet = <A, I, E, R>(
  source: BlockSource<A, I, E, R>,
  run: Run,
  start: Resume.Start,
  range: BlockRange,
  columns: ReadonlyArray<Parquet.Column>,
  until: Effect.Effect<number, E | SinkError> | undefined
) =>
  Effect.gen(function*() {
    const { files, live, settings } = run
    // An assembly's parts are spools beside the temporary file: kept.
    if (start._tag === "Fresh" && settings.assembly === undefined) yield* Partitioned.removeSpools(settings.folder, files.tempName)
    const { base, writer } = yield* Resume.openParquet(start, files, columns, freshState(run, source))
    const groups = Parquet.rowGroups(writer)
    const { readOptions, ...common } = partitionedCommon(source, run, start, base, range, until)
    if (start._tag === "Fresh") {
      const state = writer.state()
      yield* Resume.write(files, base, "writing", {
        rows: 0,
        completeThrough: base.completeThrough,
        undecodedRows: 0,
        bytes: state.bytes,
        parquet: state,
        partitions: common.resumed
      })
    }
    live.block = base.completeThrough
    const { read, write } = parquetIO(source, run)
    const position = yield* Partitioned.run({
      ...common,
      main: parquetMain(writer, groups),
      read: (blocks, bound, onAnswer) => read(blocks, readOptions(bound, onAnswer)),
      write,
      commit: (snapshot, parquet) =>
        parquet === undefined
          ? Effect.void
          : Resume.write(files, base, "writing", {
            ...snapshot.main,
            bytes: parquet.bytes,
            partitions: snapshot.partitions,
            parquet
          })
    }).pipe(Effect.scoped)
    yield* groups.flush
    const finished = yield* writer.finish
    const done = { rows: position.rows, completeThrough: position.completeThrough, undecodedRows: position.undecodedRows, bytes: finished.bytes }
    yield* Resume.write(files, base, "publishing", { ...done, contentHash: finished.contentHash, parquet: finished.state })
    yield* Partitioned.removeSpools(settings.folder, files.tempName)
    return { ...done, contentHash: finished.contentHash, base, parquet: finished.state }
  }).pipe(Effect.scoped)

/** The chain's head, as the source asks for it (one call), checked to be a block number. */
const latestOf = <A, I, E, R>(source: BlockSource<A, I, E, R>, run: Run) =>
  Effect.flatMap(source.latestBlock({ progress: run.progress }), (latest) =>
    !Number.isSafeInteger(latest) || latest < 0
      ? new SinkError({ reason: "InvalidInput", path: run.files.out, detail: `the latest block is not a block number: ${latest}` })
      : Effect.succeed(latest))

/**
 * The goal of a run whose chain head is `latest`: `latest` asks for every final block; a fixed toBlock
 * may be past them (then the file is truncated).
 */
export const goalAt = <A, I, E, R>(source: BlockSource<A, I, E, R>, settings: Settings, latest: number): Goal => {
  const wanted = source.toBlock === "latest" ? latest - settings.confirmations : source.toBlock
  return { latest, wanted, target: Math.min(wanted, latest - settings.confirmations) }
}

/**
 * A block-ordered source: from where `Resume` decides, up to the last final block, then published.
 *
 * The last final block comes from the chain's head (`latestBlock`). When the source reads in parallel,
 * the head is asked while the first page is already on the wire (one round trip less before the export
 * is under way; an open end is asked as `BlockCursor.openEnd` meanwhile); the first page's rows are cut
 * at the known end before anything is written, and only if the end is lower than the first block is
 * the range read again with it.
 */
const writeBlocks = <A, I, E, R>(source: BlockSource<A, I, E, R>, run: Run) =>
  Effect.gen(function*() {
    const { files, settings } = run
    const start = yield* Resume.decide(files, run.fingerprint, settings.resume)
    if (start._tag === "Resume") {
      // The interrupted runs' requests (up to their last checkpoint) count in this one's manifest.
      yield* CallCount.add(run.counter, { requests: start.state.calls, retries: start.state.retries })
      run.callsBefore.value = start.state.calls ?? 0
    }
    if (start._tag === "Resume" && start.implied === true && settings.quiet !== true) {
      Reporter.notice(settings.progressOutput ?? Reporter.stderr, Resume.impliedLine(start.state))
    }
    const latestBlock = latestOf(source, run)
    const goalOf = (latest: number) => goalAt(source, settings, latest)
    const firstBlock = Resume.firstBlock(start, source.fromBlock)
    const write = (toBlock: number, until: Effect.Effect<number, E | SinkError> | undefined) => {
      const blocks = { fromBlock: firstBlock, toBlock }
      return run.parquet !== undefined
        ? writeRangeParquet(source, run, start, blocks, run.parquet, until)
        : writeRange(source, run, start, blocks, until)
    }
    const isEndMoved = (e: unknown): e is Partitioned.EndMoved => e instanceof Partitioned.EndMoved
    // Without `until` the end never moves.
    const writeTo = (toBlock: number) => Effect.catchIf(write(toBlock, undefined), isEndMoved, Effect.die)
    // Only for sources that honour a lowered end (`parallel`: the library's block cursors).
    // An open end (`latest`) is asked as far as `BlockCursor.openEnd` until the head answers.
    const askedEnd = source.toBlock === "latest" ? BlockCursor.openEnd : source.toBlock
    const early = settings.assembly === undefined && source.parallel !== undefined &&
      firstBlock <= askedEnd &&
      start._tag !== "Extend" &&
      (start._tag === "Fresh" || (start.state.partitions ?? []).length === 0)
    let goal: Goal
    let written: Effect.Effect.Success<ReturnType<typeof write>>
    if (early) {
      const head = yield* Effect.fork(latestBlock)
      written = yield* write(askedEnd, Effect.map(Fiber.join(head), (latest) => goalOf(latest).target)).pipe(
        Effect.catchIf(isEndMoved, (moved) => writeTo(moved.toBlock)),
        // A failure of the head is told first, as when it is asked before the first page.
        Effect.catchAll((e) => Effect.flatMap(Fiber.await(head), (exit) => Exit.isFailure(exit) ? Effect.failCause(exit.cause) : Effect.fail(e)))
      )
      goal = goalOf(yield* Fiber.join(head))
    } else {
      // An assembly's goal is its plan's: the parts were read up to its target.
      goal = settings.assembly?.goal ?? goalOf(yield* latestBlock)
      if (start._tag === "Extend" && firstBlock > goal.target) {
        // Nothing new is final yet: the file stays as it is (checked); only the manifest is refreshed.
        const state = start.state
        return yield* run.finish({
          rows: state.rows,
          bytes: state.bytes,
          contentHash: yield* Resume.checkUnchanged(files, state),
          blockRange: { from: state.fromBlock, to: state.completeThrough },
          completeness: yield* completenessOf(run, goal, state.completeThrough),
          mode: "unchanged",
          undecodedRows: state.undecodedRows
        })
      }
      written = yield* writeTo(goal.target)
    }
    yield* publish(files.temp, files.out)
    yield* Resume.write(files, written.base, "published", written)
    return yield* run.finish({
      rows: written.rows,
      bytes: written.bytes,
      contentHash: written.contentHash,
      blockRange: { from: source.fromBlock, to: written.completeThrough },
      completeness: yield* completenessOf(run, goal, written.completeThrough),
      mode: start._tag === "Fresh" ? "fresh" : start._tag === "Resume" ? "resumed" : "extended",
      // A checkpoint written before undecoded rows were counted leaves the total unknown.
      undecodedRows: written.base.undecodedRows === undefined ? undefined : written.undecodedRows
    })
  })

/** The spool of an export's part `index` (1: the plan's first page), beside its temporary file. */
export const partSpool: (tempName: string, index: number) => string = spoolName

/**
 * Reads the blocks of `range` into the spool `spoolFile` beside the run's temporary file, in partitions
 * read in parallel as an export reads its range (`Partitioned`), written apart (`<spool>.tmp`) and
 * renamed once complete and fsynced. `firstPageOnly`: one call, the range's first page; the part
 * ends where that page does.
 */
const writeSpool = <A, I, E, R>(
  source: BlockSource<A, I, E, R>,
  run: Run,
  range: BlockRange & { readonly spoolFile: string },
  firstPageOnly: boolean
) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const { settings } = run
    const { read, write } = ioOf(source, run)
    const tempName = partTempName(range.spoolFile)
    const temp = path.join(settings.folder, tempName)
    const callsBefore = run.counter.requests
    yield* Partitioned.removeSpools(settings.folder, tempName)
    const file = yield* openData(temp, 0)
    const position = yield* Partitioned.run({
      folder: settings.folder,
      tempName,
      main: Partitioned.dataMain(file, write),
      at: { rows: 0, completeThrough: range.fromBlock - 1, undecodedRows: 0 },
      toBlock: range.toBlock,
      until: undefined,
      resumed: [],
      read: (blocks, bound, onAnswer) => {
        const batches = read(blocks, { progress: run.progress, bound, onAnswer })
        return firstPageOnly
          // The range ends where the first page does: no row after it is taken (a full page's last
          // block, whose rows may go on in the next page, is left to the next part).
          ? batches.pipe(Stream.take(1), Stream.map((batch) => {
            bound.end = Math.min(bound.end, batch.completeThrough)
            return batch
          }))
          : batches
      },
      write,
      parallel: source.parallel,
      concurrency: firstPageOnly ? 1 : settings.concurrency,
      // Nothing to checkpoint (a part read again starts over): the spools are fsynced now and then.
      checkpointEvery: 1000,
      commit: () => Effect.void,
      onProgress: (view) => {
        run.live.rows = view.rows
        run.live.block = view.completeThrough
      }
    }).pipe(
      Effect.scoped,
      // Without `until` the end never moves.
      Effect.catchIf((e): e is Partitioned.EndMoved => e instanceof Partitioned.EndMoved, Effect.die)
    )
    yield* file.sync
    yield* Partitioned.removeSpools(settings.folder, tempName)
    const spool = path.join(settings.folder, range.spoolFile)
    yield* fs.rename(temp, spool).pipe(Effect.mapError(fileSystemError(spool, `renaming ${temp}`)))
    const calls = run.counter.requests - callsBefore
    return {
      fromBlock: range.fromBlock,
      toBlock: position.completeThrough,
      completeThrough: position.completeThrough,
      spoolFile: range.spoolFile,
      spoolBytes: file.bytes(),
      rows: position.rows,
      ...(position.undecodedRows === 0 ? {} : { undecodedRows: position.undecodedRows }),
      contentHash: file.contentHash(),
      calls
    } satisfies Part
  }).pipe(Effect.scoped)

/** How a block-ordered export is cut into parts read apart (a cluster's): see {@link plan}. */
export interface PartsPlan {
  readonly goal: Goal
  /** When the plan started (epoch ms). */
  readonly startedAt: number
  /** Calls the plan made: the chain's head and the first page. */
  readonly calls: number
  /** The parts the plan read itself: the first page (spool 1); none when no block is left to read. */
  readonly read: ReadonlyArray<Part>
  /**
   * The ranges after it, ascending and contiguous up to the goal's target, for parts of their own; none
   * when fewer than two parts' worth of rows are expected there (the export reads them itself).
   */
  readonly rest: ReadonlyArray<BlockRange>
}

/**
 * Plans an export of a block-ordered source read in parts apart (a cluster's runners each read some):
 * where the run starts (as `resume` decides), its goal (the chain's head asked once), the range's
 * first page read into spool 1 — a range that one page holds costs one call, as a plain export's —
 * and the blocks after it cut into at most `maxParts` ranges of about `partRows` rows each by that
 * page's density; fewer than two parts' worth expected, none (the export reads them itself, as its
 * last partition continues to the target). The parts are read by {@link writePart}, then merged
 * by the export run with `Settings.assembly`, which writes the file, manifest and checkpoint a plain
 * export writes.
 *
 * None (read it whole, as a plain export) for a source that does not read in parallel, a rows
 * source, or an export to resume from its own checkpoint.
 */
export const plan = <A, I, E, R>(
  source: Source<A, I, E, R>,
  settings: Settings,
  options: { readonly maxParts: number; readonly partRows: number }
): Effect.Effect<PartsPlan | undefined, E | SinkError, R | FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    if (source._tag !== "Blocks" || source.parallel === undefined) return undefined
    const run = yield* begin(source, { ...settings, quiet: true })
    return yield* planParts(source, settings, options, run)
  }).pipe(Effect.scoped)

const planParts = <A, I, E, R>(
  source: BlockSource<A, I, E, R>,
  settings: Settings,
  options: { readonly maxParts: number; readonly partRows: number },
  run: Run
) =>
  Effect.gen(function*() {
    const start = yield* Resume.decide(run.files, run.fingerprint, settings.resume)
    if (start._tag === "Resume") return undefined
    const goal = goalAt(source, settings, yield* latestOf(source, run))
    const firstBlock = Resume.firstBlock(start, source.fromBlock)
    const planned = (read: ReadonlyArray<Part>, rest: ReadonlyArray<BlockRange>) =>
      Effect.sync((): PartsPlan => ({ goal, startedAt: run.started, calls: run.counter.requests, read, rest }))
    if (firstBlock > goal.target) return yield* planned([], [])
    const spoolFile = partSpool(run.files.tempName, 1)
    const first = yield* writeSpool(source, run, { fromBlock: firstBlock, toBlock: goal.target, spoolFile }, true)
    const left = goal.target - first.completeThrough
    const expected = left <= 0 ? 0 : (first.rows / (first.completeThrough - firstBlock + 1)) * left
    // Too few rows to share (or none left): the export reads them itself, continuing the first page's
    // part to the target (a checkpoint's last partition reads on to the run's last block) into the file.
    if (expected < 2 * options.partRows) return yield* planned([first], [])
    const parts = Math.max(1, Math.min(options.maxParts, left, Math.ceil(expected / options.partRows)))
    return yield* planned([first], Array.from({ length: parts }, (_, i): BlockRange => ({
      fromBlock: first.completeThrough + 1 + Math.floor((left * i) / parts),
      toBlock: first.completeThrough + Math.floor((left * (i + 1)) / parts)
    })))
  }).pipe(CallCount.tracking(run.counter))

/**
 * Reads part `index` (after those the {@link plan} read) of an export, the blocks of `range`, into its spool
 * beside the export's temporary file. Read again, it starts over (its spool is replaced whole).
 */
export const writePart = <A, I, E, R>(
  source: Source<A, I, E, R>,
  settings: Settings,
  range: BlockRange & { readonly index: number }
): Effect.Effect<Part, E | SinkError, R | FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    if (source._tag !== "Blocks") {
      return yield* new SinkError({ reason: "InvalidInput", path: settings.out, detail: "a rows source is not read in parts" })
    }
    const run = yield* begin(source, { ...settings, quiet: true })
    return yield* writeSpool(source, run, { ...range, spoolFile: partSpool(run.files.tempName, range.index) }, false).pipe(
      CallCount.tracking(run.counter)
    )
  }).pipe(Effect.scoped)

/**
 * Runs an export of `source` with checked `settings`: see the module header for the exact behaviour.
 * Use it through `Exports.toFile`, which checks the options first.
 */
export const run = <A, I, E, R>(
  source: Source<A, I, E, R>,
  settings: Settings
): Effect.Effect<ExportSummary, E | SinkError, R | FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const started = yield* begin(source, settings)
    // Every request the source sends, wherever it calls the client from (retries included), counts.
    return yield* (source._tag === "Rows" ? writeRows(source, started) : writeBlocks(source, started)).pipe(
      CallCount.tracking(started.counter)
    )
  }).pipe(Effect.scoped)
