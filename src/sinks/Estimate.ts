/**
 * The dry run of an export (`Exports.estimate`, `explorer-etl export … --dry-run`), as cryo's `--dry`:
 * what the export would read and what it would cost, found with two requests — the chain's head and
 * the first page of the blocks left (a first block denser than a page costs the pages that read it,
 * and the page after it) — and nothing written (no file, no folder, no lock, no checkpoint).
 *
 * Rows are estimated from the density of that first page: its rows over the blocks from its first row
 * to the last block it holds whole, times the blocks left after it (a first page that holds every block
 * left is exact, and so is the estimate). Calls are those rows over the rows a request returns (at least
 * one), plus the head. Where the export would start is read as the export reads it (`Resume.decide`):
 * an interrupted export of the same query is continued, so only the blocks it leaves are estimated; a
 * finished one is extended with `resume`, else rewritten. A list read whole (holders, balances, daily
 * statistics) is one call and sends nothing now.
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as CallCount from "../CallCount.js"
import type { BlockBatch } from "../streams/engine/BlockCursor.js"
import type { BlockRange, BlockSource, Source } from "../streams/Sources.js"
import * as Checkpoint from "./Checkpoint.js"
import { goalAt, identify, rateOf, type Settings } from "./Export.js"
import * as Lock from "./Lock.js"
import * as Files from "./Files.js"
import * as Resume from "./Resume.js"
import { SinkError } from "./SinkError.js"

/**
 * Where the export would start:
 * - `fresh`: from its first block;
 * - `resume`: an interrupted export of the same query is continued (its rows kept);
 * - `extend`: a finished file of the same query gets the blocks final since (`resume`);
 * - `unchanged`: a finished file of the same query, and no new final block (`resume`);
 * - `rewrite`: a finished file of the same query is there, and is written again whole (no `resume`);
 * - `whole`: a list, read whole at every run.
 */
export type Start = "fresh" | "resume" | "extend" | "unchanged" | "rewrite" | "whole"

/** What an export would do, from a dry run. */
export interface Estimate {
  /** The output (as `ToFileOptions.shownAs` names it). */
  readonly out: string
  readonly dataset: string
  readonly chainIds: ReadonlyArray<number>
  readonly plan: string
  readonly start: Start
  /** Rows the file or checkpoint at `out` keeps already (resume, extend, unchanged; the file rewritten). */
  readonly keptRows: number
  /** The first and last block left to read (block-ordered; undefined for a list or nothing left). */
  readonly blocks: BlockRange | undefined
  /** Blocks left to read (0 for a list). */
  readonly blocksLeft: number
  /** Rows the export would read (undefined: a list, not estimated). */
  readonly rows: number | undefined
  /** Whether `rows` is known exactly (the first page held every block left). */
  readonly exact: boolean
  /** Requests the export would send, the chain's head included. */
  readonly calls: number
  /** The most rows one request returns. */
  readonly rowsPerCall: number | undefined
  /** The rate the export's requests get (its operation's, else its plan's). */
  readonly callsPerSecond: number | undefined
  /** The latency measured by the dry run (the first page's, else the head's), in ms. */
  readonly latencyMs: number | undefined
  /** Time the export would take at that rate and latency, in seconds. */
  readonly seconds: number | undefined
  /** Requests the dry run sent (with those its counter held: an ABI fetched to make the source). */
  readonly callsMade: number
}

/**
 * Seconds for `calls` requests at `perSecond`, `inFlight` of them on the wire at once, each taking
 * `latencyMs`: whichever is slower, the rate or the round trips (the head and the first page are two
 * round trips one after the other, however many may be in flight).
 */
export const secondsFor = (calls: number, perSecond: number | undefined, latencyMs: number | undefined, inFlight: number): number | undefined => {
  const byRate = perSecond === undefined ? undefined : calls / perSecond
  const byLatency = latencyMs === undefined
    ? undefined
    : (Math.max(Math.min(calls, 2), calls / inFlight) * latencyMs) / 1000
  return byRate === undefined ? byLatency : byLatency === undefined ? byRate : Math.max(byRate, byLatency)
}

/**
 * The ranges a run would read after `first` up to `toBlock`, around the partitions an interrupted
 * export already read (each from its `completeThrough + 1` to its end).
 */
const rangesLeft = (first: number, toBlock: number, partitions: ReadonlyArray<Checkpoint.Partition>): ReadonlyArray<BlockRange> => {
  const ranges: Array<BlockRange> = []
  let cursor = first
  for (const p of [...partitions].sort((a, b) => a.fromBlock - b.fromBlock)) {
    if (p.fromBlock > cursor) ranges.push({ fromBlock: cursor, toBlock: Math.min(p.fromBlock - 1, toBlock) })
    if (p.completeThrough < p.toBlock) ranges.push({ fromBlock: Math.max(cursor, p.completeThrough + 1), toBlock: p.toBlock })
    cursor = Math.max(cursor, p.toBlock + 1)
  }
  if (cursor <= toBlock) ranges.push({ fromBlock: cursor, toBlock })
  return ranges.filter((r) => r.toBlock >= r.fromBlock)
}

const blocksIn = (ranges: ReadonlyArray<BlockRange>): number => ranges.reduce((n, r) => n + r.toBlock - r.fromBlock + 1, 0)

/** A finished file of this query at `out` (what a run without `resume` rewrites): its rows. */
const finishedRows = (out: string, fingerprint: string) =>
  Effect.map(Checkpoint.read(out), (found) =>
    Option.isSome(found) && !("unreadable" in found.value) && found.value.phase === "published" &&
      Checkpoint.sameExport(found.value.fingerprint, fingerprint)
      ? found.value.rows
      : undefined)

const estimateBlocks = <A, I, E, R>(
  source: BlockSource<A, I, E, R>,
  settings: Settings,
  fingerprint: string,
  counter: CallCount.Counter
) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const files = Files.layout(path, settings.out)
    const start = yield* Resume.decide(files, fingerprint, settings.resume)
    const rewritten = start._tag === "Fresh" ? yield* finishedRows(settings.out, fingerprint) : undefined
    const asked = yield* Clock.currentTimeMillis
    const latest = yield* source.latestBlock()
    const headMs = (yield* Clock.currentTimeMillis) - asked
    if (!Number.isSafeInteger(latest) || latest < 0) {
      return yield* new SinkError({ reason: "InvalidInput", path: settings.out, detail: `the latest block is not a block number: ${latest}` })
    }
    const goal = goalAt(source, settings, latest)
    const partitions = start._tag === "Resume" ? start.state.partitions ?? [] : []
    // A resumed export reads at least to where its partitions were to end (as the run does).
    const toBlock = Math.max(goal.target, ...partitions.map((p) => p.toBlock))
    const ranges = rangesLeft(Resume.firstBlock(start, source.fromBlock), toBlock, partitions)
    const blocksLeft = blocksIn(ranges)
    const rowsPerCall = source.parallel?.rowsPerCall
    const perSecond = rateOf(source)
    const inFlight = source.parallel === undefined ? 1 : settings.concurrency ?? Number.POSITIVE_INFINITY
    const base = {
      out: settings.shownAs,
      dataset: source.dataset,
      chainIds: [source.chainId],
      plan: source.plan,
      start: start._tag === "Resume" ? "resume" as const : start._tag === "Extend" ? "extend" as const : rewritten !== undefined ? "rewrite" as const : "fresh" as const,
      keptRows: start._tag === "Fresh" ? rewritten ?? 0 : Resume.keptRows(start.state),
      callsPerSecond: perSecond
    }
    const first = ranges[0]
    if (first === undefined) {
      return {
        ...base,
        start: start._tag === "Extend" ? "unchanged" as const : base.start,
        blocks: undefined,
        blocksLeft: 0,
        rows: 0,
        exact: true,
        calls: 1,
        rowsPerCall,
        latencyMs: headMs,
        seconds: secondsFor(1, perSecond, headMs, 1),
        callsMade: counter.requests
      } satisfies Estimate
    }
    // The first page of the blocks left, one request (no page asked ahead without a bound). A first
    // batch of one block that goes on (a block denser than a page, read whole by the engine's pages)
    // says nothing of the blocks after it: the next page is read for their density.
    let pageMs: number | undefined
    const spansOneBlock = (batch: BlockBatch<unknown>) =>
      batch.completeThrough < first.toBlock && (batch.firstBlock ?? first.fromBlock) >= batch.completeThrough
    const pages = Chunk.toReadonlyArray(
      yield* source.batches(first, { onAnswer: (ms) => void (pageMs = ms) }).pipe(
        Stream.takeUntil((batch) => !spansOneBlock(batch)),
        Stream.take(2),
        Stream.runCollect
      )
    )
    const last = pages[pages.length - 1]
    const seen = pages.reduce((n, batch) => n + batch.rows.length, 0)
    const rows = ((): { readonly rows: number; readonly exact: boolean } => {
      if (last === undefined) return { rows: 0, exact: true }
      if (last.completeThrough >= first.toBlock) {
        // The first range is read whole: exact when it is the only one, else its density stands for the rest.
        const rest = blocksLeft - (first.toBlock - first.fromBlock + 1)
        const density = seen / (first.toBlock - first.fromBlock + 1)
        return { rows: seen + Math.round(density * rest), exact: rest === 0 }
      }
      // Blocks before the first row were read and hold none: the density counts from that row (of the
      // last batch read: a dense block before it stands for itself alone).
      const from = pages.length > 1
        ? Math.max((pages[0]?.completeThrough ?? first.fromBlock) + 1, Math.min(last.firstBlock ?? 0, last.completeThrough))
        : Math.max(first.fromBlock, Math.min(last.firstBlock ?? first.fromBlock, last.completeThrough))
      const density = last.rows.length / (last.completeThrough - from + 1)
      const rest = blocksLeft - (last.completeThrough - first.fromBlock + 1)
      return { rows: seen + Math.round(density * rest), exact: false }
    })()
    const perCall = rowsPerCall ?? Math.max(1, last?.rows.length ?? 1)
    const calls = 1 + Math.max(1, Math.ceil(rows.rows / perCall))
    const latencyMs = pageMs ?? headMs
    return {
      ...base,
      blocks: { fromBlock: first.fromBlock, toBlock: ranges[ranges.length - 1]?.toBlock ?? first.toBlock },
      blocksLeft,
      rows: rows.rows,
      exact: rows.exact,
      calls,
      rowsPerCall: perCall,
      latencyMs,
      seconds: secondsFor(calls, perSecond, latencyMs, inFlight),
      callsMade: counter.requests
    } satisfies Estimate
  })

/**
 * The dry run of an export of `source` with checked `settings`: see the module header. Refuses what
 * the export would refuse before its first request (another export writing `out` now; a file at `out`
 * explorer-etl did not write, unless `force`; a checkpoint of another query with `resume`), and writes
 * nothing.
 */
export const run = <A, I, E, R>(
  source: Source<A, I, E, R>,
  settings: Settings,
  force: boolean
): Effect.Effect<Estimate, E | SinkError | Lock.OutputExistsError | Lock.OutputLockedError, R | FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    // The lock is looked at, never taken: an export writing `out` now would refuse this one.
    const holder = yield* Lock.inspect(settings.out)
    if (Option.isSome(holder) && holder.value.alive) {
      return yield* new Lock.OutputLockedError({ path: settings.out, pid: holder.value.pid, host: holder.value.host })
    }
    yield* Lock.checkOverwrite(settings.out, settings.name, force)
    const { chainIds, fingerprint } = yield* identify(source, settings)
    const counter = settings.counter ?? CallCount.make()
    if (source._tag === "Rows") {
      const perSecond = rateOf(source)
      return {
        out: settings.shownAs,
        dataset: source.dataset,
        chainIds,
        plan: source.plan,
        start: "whole",
        keptRows: 0,
        blocks: undefined,
        blocksLeft: 0,
        rows: undefined,
        exact: false,
        calls: 1,
        rowsPerCall: undefined,
        callsPerSecond: perSecond,
        latencyMs: undefined,
        seconds: secondsFor(1, perSecond, undefined, 1),
        callsMade: 0
      } satisfies Estimate
    }
    return yield* estimateBlocks(source, settings, fingerprint, counter).pipe(CallCount.tracking(counter))
  })
