/**
 * The export runner: turns an explorer-etl stream into a CSV or JSONL file that is complete, never
 * half-written, resumable after a crash, and extendable on the next scheduled run.
 *
 * Files beside `out` (all in its folder, so every rename is atomic):
 * - `.<name>.partial`: the file being written. It becomes `out` by a rename, after an fsync, only once
 *   complete; `out` is therefore either the previous complete file, the new complete file, or absent.
 * - `<out>.state.json` (block-ordered exports only): the checkpoint, see `Checkpoint`.
 * - `<out>.manifest.json`: what the published file holds, see `Manifest`.
 *
 * Two kinds of source:
 * - `Blocks` (logs, transactions, transfers…): a stream of `BlockBatch`es over a block range. Resumable
 *   and incremental. The checkpoint is committed at most once per `checkpointEvery` (1 s) and at the
 *   end, each time after an fsync of the rows it counts. When such an export fails or is interrupted,
 *   a last checkpoint is committed and `.<name>.partial` + state are kept so `resume: true` can continue
 *   (a SIGKILL keeps the last periodic checkpoint; resume cuts any torn tail written after it).
 * - `Rows` (holders, balances…): any stream of records, written atomically. A failed or interrupted
 *   export removes its temporary file; a re-run rewrites the whole file. `resume` does not apply.
 *
 * `resume: true` on a block-ordered export:
 * - no state file (or one that cannot be continued: temporary file gone or shorter than the checkpoint,
 *   or a finished state whose output was deleted) → a fresh export;
 * - an unfinished checkpoint of the same export → truncate the temporary file to the checkpoint and
 *   continue from `completeThrough + 1` (no second CSV header);
 * - a finished export → copy `out` (its length and sha256 must match the state, else `StateMismatch`),
 *   append the blocks from `completeThrough + 1` to the new target, publish atomically, update state and
 *   manifest (`rows` = every row in the file); with no new final block the file is only checked against
 *   its sha256 and the manifest rewritten (`run.mode: "unchanged"`);
 * - a state of another export (fingerprint differs) or an unreadable state → `StateMismatch`: run without
 *   `resume` to replace it. Without `resume` every export starts fresh (the previous `out` stays in place
 *   until the new file replaces it).
 *
 * One export per output at a time: the temporary and state file names are fixed, not locked.
 *
 * The target block is `min(toBlock, latest − confirmations)` (`latest` is always asked once per run):
 * blocks newer than that are left for the next run. A fixed `toBlock` not yet reached makes the manifest
 * say `truncated` with the reason.
 *
 * @example
 * import { NodeContext } from "@effect/platform-node"
 * const summary = yield* Export.exportToFile({
 *   dataset: "logs", chainId: 1, plan: "standard", query: { address }, schema: LogFile,
 *   source: Export.blocks({ fromBlock: 0, toBlock: "latest", latestBlock, batches: (r) => logBatches(r) })
 * }, { out: "logs.csv", resume: true, confirmations: 12 }).pipe(Effect.provide(NodeContext.layer))
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import type * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import type { BlockBatch } from "../streams/BlockCursor.js"
import * as Progress from "../streams/Progress.js"
import * as Checkpoint from "./Checkpoint.js"
import { copyHashed, type DataFile, digest, hashFile, openData, publish, removeQuietly, sizeOf } from "./Files.js"
import * as Format from "./Format.js"
import * as Manifest from "./Manifest.js"
import * as Reporter from "./Reporter.js"
import { fileSystemError, SinkError } from "./SinkError.js"

/** A range of blocks, both ends included. */
export interface BlockRange {
  readonly fromBlock: number
  readonly toBlock: number
}

/**
 * A block-ordered source: batches over any range, each promising that every row of a block up to its
 * `completeThrough` has been emitted (the block-cursor engine's `batches`).
 */
export interface BlocksSource<A, E, R> {
  readonly _tag: "Blocks"
  /** The first block of the export (fixed for the life of the file: part of its fingerprint). */
  readonly fromBlock: number
  /** The last block, or `latest` (resolved with `latestBlock` at every run). */
  readonly toBlock: number | "latest"
  /** The chain's current block number. */
  readonly latestBlock: Effect.Effect<number, E, R>
  readonly batches: (range: BlockRange) => Stream.Stream<BlockBatch<A>, E, R>
}

/** Any stream of records (no block order): exported atomically, rewritten on a re-run. */
export interface RowsSource<A, E, R> {
  readonly _tag: "Rows"
  readonly rows: Stream.Stream<A, E, R>
}

/** A block-ordered source. */
export const blocks = <A, E, R>(source: Omit<BlocksSource<A, E, R>, "_tag">): BlocksSource<A, E, R> => ({
  _tag: "Blocks",
  ...source
})

/** A source of rows without block order. */
export const rows = <A, E, R>(stream: Stream.Stream<A, E, R>): RowsSource<A, E, R> => ({ _tag: "Rows", rows: stream })

/** Several chains in one file: the rows carry their chain, written in the `chainid` column. */
export interface MultiChain<A> {
  readonly chainIds: ReadonlyArray<number>
  readonly chainIdOf: (row: A) => number
}

interface JobCommon<A, I> {
  /** The data set's name, e.g. "logs", "tokenHolders". */
  readonly dataset: string
  /** The query as plain JSON (for the manifest and the fingerprint). */
  readonly query: unknown
  /** The plan the export ran with (for the manifest). */
  readonly plan: string
  /** The record schema in its file encoding: its encoded side gives the columns and cells. */
  readonly schema: Schema.Schema<A, I, never>
  /** The stream's progress: calls for the display and manifest, and `truncated` for Rows sources. */
  readonly progress?: Progress.ProgressRef | undefined
}

/** A block-ordered export of one chain. */
export interface BlocksJob<A, I, E, R> extends JobCommon<A, I> {
  readonly chainId: number
  readonly source: BlocksSource<A, E, R>
  /**
   * The same batches as the file's lines (Sources' `lineBatches`): when given, the export hands it the
   * `lines` of an encoder of the schema's encoded rows (`Format.encodedEncoder`) and writes the lines
   * as they come, instead of encoding decoded rows. `source` still gives the range and the latest block.
   */
  readonly lineBatches?:
    | ((
      range: BlockRange,
      lines: (rows: ReadonlyArray<I>) => Either.Either<ReadonlyArray<string>, SinkError>
    ) => Stream.Stream<BlockBatch<string>, E | SinkError, R>)
    | undefined
}

/** An export of rows without block order, of one chain or several. */
export interface RowsJob<A, I, E, R> extends JobCommon<A, I> {
  readonly chainId: number | MultiChain<A>
  readonly source: RowsSource<A, E, R>
}

/** What to export. */
export type ExportJob<A, I, E, R> = BlocksJob<A, I, E, R> | RowsJob<A, I, E, R>

/** Where and how to write it. */
export interface ExportOptions {
  /** The output file. Its folder is created if missing. */
  readonly out: string
  /** Default: from the extension (`.csv`; `.jsonl`, `.ndjson`). */
  readonly format?: Format.FileFormat | undefined
  /** Continue an unfinished export, or extend a finished one (block-ordered sources). */
  readonly resume?: boolean | undefined
  /** Keep the last N blocks out until they are final: target = latest − N (default 0). */
  readonly confirmations?: number | undefined
  /** CSV: prefix `'` to text cells starting with = + - @ tab CR (default true). */
  readonly formulaGuard?: boolean | undefined
  /** Print nothing on the progress output, not even the summary. */
  readonly quiet?: boolean | undefined
  /** Where progress and the summary go (default stderr). */
  readonly progressOutput?: Reporter.ProgressOutput | undefined
  /** Interval of progress lines when the output is not a TTY (default 5 seconds). */
  readonly progressEvery?: Duration.DurationInput | undefined
  /** Minimum interval between checkpoints (default 1 second; the last one is always committed). */
  readonly checkpointEvery?: Duration.DurationInput | undefined
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

/** Rows encoded together: a Rows source's rows are grouped by this many, a block batch written in such slices. */
const rowsChunk = 1024

/**
 * Runs `f` on every element of `stream`, one element read ahead: the next batch is read (its request on
 * the wire, the server busy with it, its answer parsed) while `f` writes this one, and no further, so at
 * most two pages are held. The limiter still spaces every request.
 */
const forEachReadingAhead = <A, E, R, E2, R2>(
  stream: Stream.Stream<A, E, R>,
  f: (a: A) => Effect.Effect<void, E2, R2>
): Effect.Effect<void, E | E2, R | R2> =>
  Effect.scoped(Effect.gen(function*() {
    const pull = yield* Stream.toPull(stream)
    const next = Effect.forkScoped(Effect.catchAll(pull, Option.match({
      onNone: () => Effect.succeed(undefined),
      onSome: (e: E) => Effect.fail(e)
    })))
    let ahead = yield* next
    while (true) {
      const chunk = yield* Fiber.join(ahead)
      if (chunk === undefined) return
      ahead = yield* next
      for (const a of chunk) yield* f(a)
    }
  }))

const invalid = (path: string, detail: string) => new SinkError({ reason: "InvalidInput", path, detail })
const mismatch = (path: string, detail: string) => new SinkError({ reason: "StateMismatch", path, detail })

const isBlockNumber = (n: number): boolean => Number.isSafeInteger(n) && n >= 0

const plural = (n: number, word: string): string => `${Reporter.count(n)} ${word}${n === 1 ? "" : "s"}`

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
  return `${head} (${status}${range}) in ${Reporter.duration(m.durationMs)}, ${plural(m.calls, "call")}`
}

/** Where a block-ordered export starts. */
type Start =
  | { readonly _tag: "Fresh" }
  | { readonly _tag: "Resume"; readonly state: Checkpoint.State }
  | { readonly _tag: "Extend"; readonly state: Checkpoint.State }

/**
 * Exports a stream to `options.out` (CSV or JSONL) with atomic publish, checkpoints, resume,
 * incremental runs, a manifest and a progress display: see the module header for the exact behaviour.
 */
export const exportToFile = <A, I, E, R>(
  job: ExportJob<A, I, E, R>,
  options: ExportOptions
): Effect.Effect<ExportSummary, E | SinkError, R | FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const out = options.out
    const folder = path.dirname(out)
    const name = path.basename(out)

    // Everything is validated before a file is touched.
    const format = yield* Format.formatOf(out, options.format)
    if (name.length === 0 || name === "." || name === "..") return yield* invalid(out, "the output is not a file name")
    const confirmations = options.confirmations ?? 0
    if (!isBlockNumber(confirmations)) {
      return yield* invalid(out, `confirmations must be a whole number ≥ 0, got ${confirmations}`)
    }
    const source = job.source
    if (source._tag === "Blocks") {
      if (!isBlockNumber(source.fromBlock)) return yield* invalid(out, `fromBlock must be a block number, got ${source.fromBlock}`)
      if (source.toBlock !== "latest" && (!isBlockNumber(source.toBlock) || source.toBlock < source.fromBlock)) {
        return yield* invalid(out, `toBlock must be a block number ≥ fromBlock (${source.fromBlock}), got ${source.toBlock}`)
      }
    }
    const multi = typeof job.chainId === "number" ? undefined : job.chainId
    const chainIds = multi === undefined ? [job.chainId as number] : [...multi.chainIds]
    const formulaGuard = format === "csv" ? options.formulaGuard ?? true : undefined
    const atOut = (e: SinkError) => new SinkError({ reason: e.reason, path: out, detail: e.detail })
    const lineBatches = source._tag === "Blocks" ? (job as BlocksJob<A, I, E, R>).lineBatches : undefined
    // `lineBatches` encodes the schema's encoded form (I), the other sources give its decoded values
    // (A): one encoder for the kind the run reads, each checked against its own row type where it is built.
    const rowEncoder: Format.RowEncoder<unknown> = lineBatches !== undefined
      ? (yield* Format.encodedEncoder(job.schema, { format, formulaGuard }).pipe(Effect.mapError(atOut))) as Format.RowEncoder<unknown>
      : (yield* Format.encoder(job.schema, { format, chainIdOf: multi?.chainIdOf, formulaGuard }).pipe(
        Effect.mapError(atOut)
      )) as Format.RowEncoder<unknown>
    const encoder: Format.RowEncoder<unknown> = {
      ...rowEncoder,
      encode: (rows) => Effect.mapError(rowEncoder.encode(rows), atOut),
      lines: (rows) => Either.mapLeft(rowEncoder.lines(rows), atOut)
    }
    const identity: Checkpoint.Identity = {
      dataset: job.dataset,
      chainIds,
      query: Checkpoint.canonical(job.query),
      format,
      columns: encoder.columns,
      fromBlock: source._tag === "Blocks" ? source.fromBlock : undefined,
      formulaGuard
    }
    const fingerprint = Checkpoint.fingerprint(identity)
    const tempName = `.${name}.partial`
    const temp = path.join(folder, tempName)
    const statePath = Checkpoint.statePath(out)
    const checkpointEvery = Duration.toMillis(Duration.decode(options.checkpointEvery ?? Duration.seconds(1)))

    yield* fs.makeDirectory(folder, { recursive: true }).pipe(Effect.mapError(fileSystemError(folder, "creating the folder")))

    const started = yield* Clock.currentTimeMillis
    const live = { rows: 0, block: undefined as number | undefined, fraction: undefined as number | undefined }
    const progressOf = job.progress === undefined ? Effect.succeed(undefined) : SubscriptionRef.get(job.progress)
    const callsOf = Effect.map(progressOf, (p) => p?.calls ?? 0)
    const snapshot: Effect.Effect<Reporter.Snapshot> = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const p = yield* progressOf
      return {
        label: `${job.dataset} chain ${chainIds.join(",")}`,
        rows: live.rows,
        calls: p?.calls ?? 0,
        elapsedMs: now - started,
        block: live.block,
        fraction: live.fraction ?? (p === undefined ? undefined : Progress.fraction(p))
      }
    })
    const reporter = yield* Reporter.start({
      output: options.progressOutput,
      quiet: options.quiet,
      snapshot,
      every: options.progressEvery
    })

    const manifestOf = (fields: {
      readonly rows: number
      readonly bytes: number
      readonly contentHash: string
      readonly blockRange: { readonly from: number; readonly to: number } | null
      readonly completeness: Manifest.Completeness
      readonly mode: Manifest.RunMode
    }) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const manifest: Manifest.Manifest = {
          manifestVersion: 1,
          file: name,
          dataset: job.dataset,
          query: identity.query,
          chainIds,
          plan: job.plan,
          format,
          columns: encoder.columns,
          rows: fields.rows,
          bytes: fields.bytes,
          blockRange: fields.blockRange,
          completeness: fields.completeness,
          calls: yield* callsOf,
          durationMs: now - started,
          contentHash: fields.contentHash,
          createdAt: new Date(now).toISOString(),
          tool: { name: Manifest.tool.name, version: Manifest.tool.version },
          run: { mode: fields.mode, rowsWritten: live.rows }
        }
        yield* Manifest.write(out, manifest)
        yield* reporter.finish(summaryLine(out, manifest, fields.mode, live.rows))
        return {
          out,
          manifestPath: Manifest.manifestPath(out),
          manifest,
          mode: fields.mode,
          rowsWritten: live.rows
        } satisfies ExportSummary
      })

    const progressTruncation = Effect.map(progressOf, (p): string | undefined =>
      p?.completeness === "truncated" ? p.truncatedReason ?? "the stream stopped before the end of its data" : undefined)

    if (source._tag === "Rows") {
      // Atomic only: write the temporary file whole, then rename it over `out`.
      const written = yield* Effect.gen(function*() {
        const file = yield* openData(temp, 0)
        yield* file.append(encoder.header)
        yield* source.rows.pipe(
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
      }).pipe(
        Effect.scoped,
        // A state file beside `out` would describe the file being replaced.
        Effect.tap(() => removeQuietly(statePath)),
        Effect.tap(() => publish(temp, out)),
        Effect.onError(() => removeQuietly(temp))
      )
      const reason = yield* progressTruncation
      return yield* manifestOf({
        rows: live.rows,
        bytes: written.bytes,
        contentHash: written.contentHash,
        blockRange: null,
        completeness: reason === undefined ? { status: "complete" } : { status: "truncated", reason },
        mode: "fresh"
      })
    }

    // Block-ordered: decide where to start.
    const fromBlock = source.fromBlock
    const existing = yield* Checkpoint.read(out)
    const stateOf = (state: Checkpoint.State, phase: Checkpoint.Phase, fields: {
      readonly bytes: number
      readonly rows: number
      readonly completeThrough: number
      readonly contentHash?: string | undefined
    }): Effect.Effect<Checkpoint.State> =>
      Effect.map(Clock.currentTimeMillis, (now) => ({
        ...state,
        phase,
        bytes: fields.bytes,
        rows: fields.rows,
        completeThrough: fields.completeThrough,
        ...(fields.contentHash === undefined ? { contentHash: undefined } : { contentHash: fields.contentHash }),
        updatedAt: new Date(now).toISOString()
      }))
    const classify = (state: Checkpoint.State): Effect.Effect<Start, SinkError, FileSystem.FileSystem> =>
      Effect.gen(function*() {
        if (state.tempFile !== tempName) return { _tag: "Fresh" } as const
        if (state.phase === "published") {
          const size = yield* sizeOf(out)
          if (size === undefined) return { _tag: "Fresh" } as const
          if (size !== state.bytes) {
            return yield* mismatch(
              out,
              `the file changed since the export that wrote it (${size} bytes, the state says ${state.bytes}); ` +
                `run without resume to export it again`
            )
          }
          return { _tag: "Extend", state } as const
        }
        const tempSize = yield* sizeOf(temp)
        if (tempSize !== undefined && tempSize >= state.bytes) return { _tag: "Resume", state } as const
        if (state.phase === "publishing" && state.contentHash !== undefined) {
          // Crashed between the rename and the final state: `out` may already be the finished file.
          const size = yield* sizeOf(out)
          if (size === state.bytes && (yield* hashFile(out)) === state.contentHash) {
            return { _tag: "Extend", state: { ...state, phase: "published" } } as const
          }
        }
        return { _tag: "Fresh" } as const
      })
    let start: Start = { _tag: "Fresh" }
    if (options.resume === true && Option.isSome(existing)) {
      const found = existing.value
      if ("unreadable" in found) {
        return yield* mismatch(statePath, `the state file cannot be read (${found.unreadable}); run without resume to start over`)
      }
      if (found.fingerprint !== fingerprint) {
        return yield* mismatch(
          statePath,
          `the checkpoint belongs to another export (${found.dataset} on chain ${found.chainIds.join(",")}, ` +
            `${found.format}, or a different query, columns or first block); run without resume to replace it`
        )
      }
      start = yield* classify(found)
    }

    const latest = yield* source.latestBlock
    if (!isBlockNumber(latest)) return yield* invalid(out, `the latest block is not a block number: ${latest}`)
    // `latest` asks for every final block; a fixed toBlock may be past them (then the file is truncated).
    const wanted = source.toBlock === "latest" ? latest - confirmations : source.toBlock
    const target = Math.min(wanted, latest - confirmations)
    const firstBlock = start._tag === "Fresh" ? fromBlock : start.state.completeThrough + 1
    const completenessOf = (completeThrough: number) =>
      Effect.map(progressTruncation, (fromProgress): Manifest.Completeness => {
        const reasons: Array<string> = []
        if (fromProgress !== undefined) reasons.push(fromProgress)
        if (completeThrough < target) {
          reasons.push(`the source ended at block ${completeThrough}, before the target block ${target}`)
        } else if (completeThrough < wanted) {
          reasons.push(
            `blocks ${completeThrough + 1}..${wanted} are not final yet (latest ${latest}, confirmations ${confirmations}); ` +
              `a later run with resume adds them`
          )
        }
        return reasons.length === 0 ? { status: "complete" } : { status: "truncated", reason: reasons.join("; ") }
      })

    if (start._tag === "Extend" && firstBlock > target) {
      // Nothing new is final yet: the file stays as it is (checked); only the manifest is refreshed.
      const state = start.state
      const contentHash = yield* hashFile(out)
      if (contentHash !== state.contentHash) {
        return yield* mismatch(
          out,
          "the file changed since the export that wrote it (its sha256 differs from the state); " +
            "run without resume to export it again"
        )
      }
      return yield* manifestOf({
        rows: state.rows,
        bytes: state.bytes,
        contentHash,
        blockRange: { from: state.fromBlock, to: state.completeThrough },
        completeness: yield* completenessOf(state.completeThrough),
        mode: "unchanged"
      })
    }

    const fresh: Checkpoint.State = {
      version: 1,
      fingerprint,
      dataset: job.dataset,
      chainIds,
      format,
      phase: "writing",
      tempFile: tempName,
      bytes: 0,
      rows: 0,
      fromBlock,
      completeThrough: fromBlock - 1,
      updatedAt: new Date(started).toISOString()
    }
    const written = yield* Effect.gen(function*() {
      let file: DataFile
      let base: Checkpoint.State
      switch (start._tag) {
        case "Fresh": {
          // An unfinished checkpoint names the temporary file about to be emptied: drop it first.
          if (Option.isSome(existing) && ("unreadable" in existing.value || existing.value.phase !== "published")) {
            yield* fs.remove(statePath, { force: true }).pipe(Effect.mapError(fileSystemError(statePath, "removing")))
          }
          file = yield* openData(temp, 0)
          yield* file.append(encoder.header)
          base = fresh
          break
        }
        case "Resume": {
          file = yield* openData(temp, start.state.bytes)
          base = start.state
          break
        }
        case "Extend": {
          const state = start.state
          const copy = yield* copyHashed(out, temp)
          if (copy.bytes !== state.bytes || digest(copy.hash) !== state.contentHash) {
            yield* removeQuietly(temp)
            return yield* mismatch(
              out,
              "the file changed since the export that wrote it (its sha256 differs from the state); " +
                "run without resume to export it again"
            )
          }
          file = yield* openData(temp, copy.bytes, copy.hash)
          base = state
          break
        }
      }
      let rowCount = base.rows
      let completeThrough = base.completeThrough
      const firstOfRun = firstBlock
      const track = () => {
        live.block = completeThrough
        const span = target - firstOfRun + 1
        live.fraction = span <= 0 ? 1 : Math.max(0, Math.min(1, (completeThrough - firstOfRun + 1) / span))
      }
      track()
      const commit = (phase: Checkpoint.Phase, contentHash?: string) =>
        Effect.gen(function*() {
          yield* file.sync
          const state = yield* stateOf(base, phase, {
            bytes: file.bytes(),
            rows: rowCount,
            completeThrough,
            contentHash
          })
          yield* Checkpoint.write(out, { ...state, fingerprint, tempFile: tempName })
        })
      if (start._tag === "Fresh") yield* commit("writing")
      let lastCommit = yield* Clock.currentTimeMillis
      if (firstBlock <= target) {
        const range = { fromBlock: firstBlock, toBlock: target }
        // Lines are written as they are; decoded rows are encoded first.
        const batches: Stream.Stream<BlockBatch<unknown>, E | SinkError, R> = lineBatches !== undefined
          ? lineBatches(range, encoder.lines)
          : source.batches(range)
        const write = (rows: ReadonlyArray<unknown>): Effect.Effect<void, SinkError> =>
          lineBatches !== undefined
            ? file.append((rows as ReadonlyArray<string>).join(""))
            : Effect.flatMap(encoder.encode(rows), file.append)
        yield* forEachReadingAhead(batches, (batch) =>
          Effect.gen(function*() {
            // Written `rowsChunk` rows at a time: the text of a 10,000-row page (and its bytes) need not
            // all be held at once.
            for (let i = 0; i < batch.rows.length; i += rowsChunk) {
              yield* write(batch.rows.length <= rowsChunk ? batch.rows : batch.rows.slice(i, i + rowsChunk))
            }
            rowCount += batch.rows.length
            live.rows += batch.rows.length
            // A batch never un-completes blocks, nor completes blocks it was not asked for.
            completeThrough = Math.max(completeThrough, Math.min(batch.completeThrough, target))
            track()
            const now = yield* Clock.currentTimeMillis
            if (now - lastCommit >= checkpointEvery) {
              yield* commit("writing")
              lastCommit = now
            }
          })).pipe(
            // Failed or interrupted: keep what is durable so `resume` continues from here.
            Effect.onError(() => commit("writing").pipe(Effect.ignore))
          )
      }
      yield* file.sync
      const contentHash = file.contentHash()
      yield* commit("publishing", contentHash)
      return { bytes: file.bytes(), rows: rowCount, completeThrough, contentHash, base }
    }).pipe(Effect.scoped)

    yield* publish(temp, out)
    const published = yield* stateOf(written.base, "published", written)
    yield* Checkpoint.write(out, { ...published, fingerprint, tempFile: tempName })
    return yield* manifestOf({
      rows: written.rows,
      bytes: written.bytes,
      contentHash: written.contentHash,
      blockRange: { from: fromBlock, to: written.completeThrough },
      completeness: yield* completenessOf(written.completeThrough),
      mode: start._tag === "Fresh" ? "fresh" : start._tag === "Resume" ? "resumed" : "extended"
    })
  }).pipe(Effect.scoped)
