/**
 * The one source type of explorer-etl: what to ask, how to page it, and which schema writes it. Every
 * data set of the library is a source (`Sources.logs`, `Sources.tokenHolders`, …), and so is a data set
 * of your own (`Sources.fromStream`, `Sources.fromBlocks`). `Streams` turns a source into a plain
 * `Stream` of records; `Exports.toFile` writes a source into a file.
 *
 * A block-ordered source (logs, transactions, transfers) pages with the block cursor and can resume
 * from a block; a list source (holders, balances, daily stats, tags) is read whole. A library source
 * checks its whole query with the client's parameter checker before its first request, and gives its
 * batches twice over: `batches` (decoded records, for streams) and `lineBatches` (the same records as
 * the file's lines, checked on the wire but never decoded, each page held as its text: what exports
 * read).
 *
 * @example
 * import { Exports, Sources } from "explorer-etl"
 * const source = yield* Sources.logs({ chainId: 137, address, fromBlock: 50_000_000 })
 * yield* Exports.toFile(source, { out: "out/logs.csv", resume: true })
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import type * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import type * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type { LineWorkers } from "../ExplorerClient.js"
import type { StreamError } from "../ExplorerError.js"
import * as Plan from "../Plan.js"
import type { BlockBatch, Bound } from "./engine/BlockCursor.js"
import type { BlockRange, Pool } from "./engine/Partitions.js"
import type * as Progress from "./Progress.js"
import { statisticSource } from "./datasets/dailyStatistic.js"
import { library } from "./datasets/index.js"

export { dailyStatistics, oneCall } from "./Datasets.js"
export type { DailyStatistic } from "./Datasets.js"
export type { AddressQuery, BlockRangeQuery, DailyQuery, InternalQuery, LogsQuery, TransfersQuery } from "./Datasets.js"
export type { EventsQuery, EventsSource } from "./Events.js"
export { withDecimals } from "./Readable.js"

/**
 * Options every stream of a source takes.
 *
 * @since 0.1.0
 * @category models
 */
export interface StreamOptions {
  /** A progress cell to publish pages, calls, rows and block position to (see Progress.make). */
  readonly progress?: Progress.ProgressRef | undefined
  /**
   * Page-numbered lists only: when the result window stops paging before the end, end with the rows
   * read so far (progress says "truncated") instead of failing with `ResultWindowError`.
   */
  readonly allowPartial?: boolean | undefined
  /**
   * Block-ordered sources that read in parallel (`parallel`): the range's end as a partitioned export
   * may lower it while the stream runs (see `BlockCursor.Bound`).
   */
  readonly bound?: Bound | undefined
  /** Told the latency of each answered request, in ms (see `CallOptions.onAnswer`). */
  readonly onAnswer?: ((millis: number) => void) | undefined
  /**
   * `Streams.*` of a block-ordered source that reads in parallel: at most this many ranges at once
   * (1: one cursor, one request at a time; default: as many as the plan's rate and the latency call for).
   */
  readonly concurrency?: number | undefined
  /**
   * `Streams.*` read in parallel: rows read ahead of their turn held in memory at most (default: twenty
   * pages, at least 20,000 rows); past it the ranges ahead wait for the reader.
   */
  readonly heldRows?: number | undefined
  /**
   * `lineBatches` of an export to CSV or JSONL: each page's lines made in worker threads (the client's
   * `fileRecordsMapped` with `ExplorerClient.LineWorkers`) when the export's `lines` writes what they
   * write: `Format.encodedEncoder(schema, { format, formulaGuard })` of the very schema the data set
   * reads (a source that wraps another with a schema of its own, as `withDecimals`, keeps its `lines`
   * in the main thread). A row a worker made is its line's UTF-8 bytes (a `Uint8Array`) where `lines`
   * gives its text; `workers` below 1: `lines` on the main thread.
   */
  readonly lineWorkers?: (Omit<LineWorkers<never>, "rows"> & { readonly schema: Schema.Schema.Any }) | undefined
}

/**
 * Where the rows a `Streams.*` Stream reads ahead of their turn wait on disk (see
 * `SpillingStreamOptions`).
 *
 * @since 0.1.0
 * @category models
 */
export interface SpillOptions {
  /**
   * The folder the Stream's temporary folder is made in (default: the system's temporary folder); it
   * must exist and be writable.
   */
  readonly directory?: string | undefined
}

/**
 * Options of a `Streams.*` Stream whose rows read ahead of their turn wait in temporary files instead
 * of memory (`spill`): the ranges ahead never wait for `heldRows`, so the Stream reads as far ahead as
 * the plan's rate allows with bounded memory. The rows are written with the data set's record schema
 * in its encoded form (JSON lines) and decoded back into the same values; the files are removed when
 * the Stream ends, fails or is interrupted. The Stream then needs a `FileSystem` and may fail with a
 * `SinkError` (a folder that cannot be written fails it before its first request; a row whose encoded
 * form has no JSON text, as a JSONL export needs, fails it with reason `Encode`). Where nothing is
 * read ahead (`concurrency: 1`, a list read whole) there is nothing to spill.
 *
 * @example
 * import { NodeContext } from "@effect/platform-node"
 * import { Effect, Stream } from "effect"
 * import { Streams } from "explorer-etl"
 *
 * const count = Streams.logs({ chainId: 1, address, fromBlock: 19_000_000, toBlock: 19_500_000 }, { spill: {} })
 *   .pipe(Stream.runCount, Effect.provide(NodeContext.layer))
 *
 * @since 0.1.0
 * @category models
 */
export interface SpillingStreamOptions extends StreamOptions {
  readonly spill: SpillOptions
}

export type { BlockRange } from "./engine/Partitions.js"

/**
 * Rows of several chains in one file: the chains, and the chain of each row (its `chainid` column).
 *
 * @since 0.1.0
 * @category models
 */
export interface MultiChain<A> {
  readonly chainIds: ReadonlyArray<number>
  readonly chainIdOf: (row: A) => number
}

/**
 * What every source says of itself (for the manifest and the resume fingerprint).
 *
 * @since 0.1.0
 * @category models
 */
export interface SourceInfo<A, I> {
  /** The data set's name in the user's words: "logs", "erc20Transfers", "tokenHolders", … */
  readonly dataset: string
  /** The plan the rows are read with (for the manifest). */
  readonly plan: string
  /**
   * The calls per second the source's requests get (an export's time estimate); by default the plan's
   * when `plan` names one, none otherwise.
   */
  readonly callsPerSecond?: number | undefined
  /** The query as plain JSON (for the manifest and the resume fingerprint). */
  readonly query: Readonly<Record<string, unknown>>
  /** The schema whose encoded form is the file's row (its field order is the column order). */
  readonly schema: Schema.Schema<A, I>
}

/**
 * A block-ordered data set: resumable from any block, extendable as the chain grows.
 *
 * @since 0.1.0
 * @category models
 */
export interface BlockSource<A, I = unknown, E = StreamError, R = never> extends SourceInfo<A, I> {
  readonly _tag: "Blocks"
  readonly chainId: number
  /** The first block (fixed for the life of a file: part of its fingerprint). */
  readonly fromBlock: number
  /** The last block, or `latest` (resolved with `latestBlock` at every run). */
  readonly toBlock: number | "latest"
  /**
   * Present when several ranges may be read at once, each stream honouring `options.bound` (a lowered
   * end): exports then split the range into partitions read in parallel, keeping enough requests in
   * flight for `callsPerSecond`, the rate the key's limiter lets these requests through at;
   * `rowsPerCall` is the most rows one request returns (a range expected to hold fewer than two
   * requests' worth is not cut). Exports of sources with one `pool` running at once share it.
   */
  readonly parallel?: {
    readonly callsPerSecond: number
    readonly rowsPerCall: number
    /**
     * Pages one query may have (the result window over `rowsPerCall`; default 1): pages of one query are
     * asked together when there are several (`BlockCursor.Bound.ahead`), before ranges are cut.
     */
    readonly pagesPerQuery?: number | undefined
    /** Shared by the sources of one key (the library's: one per client), see `Partitions.Pool`. */
    readonly pool?: Pool | undefined
  } | undefined
  /**
   * Decoded events: every batch says how many of its rows were kept undecoded (`undecodedRows`), and an
   * export's manifest counts `decodedRows` and `undecodedRows` (carried through checkpoints).
   */
  readonly countsDecoding?: boolean | undefined
  /** The chain's latest block (the library's: one getblocknobytime call, counted in `progress`). */
  readonly latestBlock: (options?: StreamOptions) => Effect.Effect<number, E, R>
  /** The rows of a block range, in batches that each end on a complete block. */
  readonly batches: (range: BlockRange, options?: StreamOptions) => Stream.Stream<BlockBatch<A>, E, R>
  /**
   * The same batches as the file's lines. Each page's records, checked on the wire as `batches` checks
   * them (the decoded values never built), are handed a slice at a time to `lines` (a file encoder's
   * `lines`, or its `objects` for a Parquet file) as the answer is read: a page is held as its text (or
   * its rows), never as all its records at once (`ExplorerClient.fileRecordsMapped`). Exports use it
   * when a source has it; a source of your own leaves it out.
   */
  readonly lineBatches?: <B, E2>(
    range: BlockRange,
    lines: (rows: ReadonlyArray<I>) => Either.Either<ReadonlyArray<B>, E2>,
    options?: StreamOptions
  ) => Stream.Stream<BlockBatch<B>, E | E2, R>
  /**
   * The same batches as `batches`, each row already in the schema's encoded form (I), for exports of a
   * source without `lineBatches` whose rows are built rather than read (the `events` data set builds
   * each decoded row in its file form, so it is not encoded again). Exports use it when a source has it.
   * A source of your own that wraps another and changes `batches` must change or drop `lineBatches`
   * and `encodedBatches` with it.
   */
  readonly encodedBatches?: (range: BlockRange, options?: StreamOptions) => Stream.Stream<BlockBatch<I>, E, R>
}

/**
 * A data set read whole (holders, balances, daily stats, tags, or any stream of your own).
 *
 * @since 0.1.0
 * @category models
 */
export interface RowSource<A, I = unknown, E = StreamError, R = never> extends SourceInfo<A, I> {
  readonly _tag: "Rows"
  /** The chain of every row, or the chains of a file spanning several. */
  readonly chainId: number | MultiChain<A>
  readonly rows: (options?: StreamOptions) => Stream.Stream<A, E, R>
}

/**
 * Any source: the one type `Streams` reads and `Exports.toFile` writes.
 *
 * @since 0.1.0
 * @category models
 */
export type Source<A, I = unknown, E = StreamError, R = never> = BlockSource<A, I, E, R> | RowSource<A, I, E, R>

/**
 * The chains a source's rows belong to.
 *
 * @since 0.1.0
 * @category utils
 */
export const chainIdsOf = <A, I, E, R>(source: Source<A, I, E, R>): ReadonlyArray<number> =>
  typeof source.chainId === "number" ? [source.chainId] : source.chainId.chainIds

/**
 * A data set of your own as a source: rows you computed or a `Stream` you built, written whole (and
 * rewritten at every run) with a manifest like every export. `rows` may take the stream's options
 * (its `progress` cell: a stream that stops early can say "truncated" there, and the manifest says so).
 *
 * @example
 * const summary = yield* Exports.toFile(
 *   Sources.fromStream({ dataset: "topHolders", chainId: 1, plan: client.plan, query: { token },
 *     schema: Schemas.TopHolder, rows: Stream.fromIterable(holders) }),
 *   { out: "out/top-holders.csv" })
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromStream = <A, I, E = never, R = never>(args: SourceInfo<A, I> & {
  readonly chainId: number | MultiChain<A>
  readonly rows: Stream.Stream<A, E, R> | ((options: StreamOptions) => Stream.Stream<A, E, R>)
}): RowSource<A, I, E, R> => {
  const { rows, ...info } = args
  return { _tag: "Rows", ...info, callsPerSecond: info.callsPerSecond ?? Plan.callsPerSecondOf(info.plan), rows: (options = {}) => (Stream.StreamTypeId in rows ? rows : rows(options)) }
}

/**
 * A block-ordered data set of your own (paged with `BlockCursor.batches`, say) as a source: exports
 * of it checkpoint, resume and extend exactly as the library's do. Every batch promises that each row
 * of a block up to its `completeThrough` has been emitted. With `parallel`, exports read it in
 * partitions at once: `batches` must then honour `options.bound` (pass it to `BlockCursor.batches`)
 * and may report latencies to `options.onAnswer`.
 *
 * @example
 * Sources.fromBlocks({ dataset: "swaps", chainId: 1, plan: "standard", query: { pool }, schema: Swap,
 *   fromBlock: 0, toBlock: "latest", latestBlock: headOfChain, batches: (range) => swapBatches(range) })
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromBlocks = <A, I, E = never, R = never>(args: SourceInfo<A, I> & {
  readonly chainId: number
  readonly fromBlock: number
  readonly toBlock: number | "latest"
  readonly latestBlock: Effect.Effect<number, E, R>
  readonly batches: (range: BlockRange, options: StreamOptions) => Stream.Stream<BlockBatch<A>, E, R>
  readonly parallel?: BlockSource<A, I, E, R>["parallel"]
}): BlockSource<A, I, E, R> => {
  const { batches, latestBlock, ...info } = args
  return { _tag: "Blocks", ...info, callsPerSecond: info.callsPerSecond ?? Plan.callsPerSecondOf(info.plan), latestBlock: () => latestBlock, batches: (range, options = {}) => batches(range, options) }
}

// The library's data sets: each is defined once, in its own file of streams/datasets/ (the registry);
// these are their sources under the names users know.

/**
 * Event logs by address and/or topics, every log exactly once, in block order.
 *
 * @since 0.1.0
 * @category sources
 */
export const logs = library.logs.source

/**
 * Event logs decoded by an ABI, every log exactly once, in block order: see `Events.events`.
 *
 * @since 0.1.0
 * @category sources
 */
export const events = library.events.source

/**
 * Normal transactions of an address (txlist).
 *
 * @since 0.1.0
 * @category sources
 */
export const transactions = library.transactions.source

/**
 * Internal transactions of an address, or of a block range when no address is given (PRO).
 *
 * @since 0.1.0
 * @category sources
 */
export const internalTransactions = library.internalTransactions.source

/**
 * ERC-20 transfers of an address and/or a token (tokentx).
 *
 * @since 0.1.0
 * @category sources
 */
export const erc20Transfers = library.erc20Transfers.source

/**
 * ERC-721 transfers of an address and/or a collection (tokennfttx).
 *
 * @since 0.1.0
 * @category sources
 */
export const erc721Transfers = library.erc721Transfers.source

/**
 * ERC-1155 transfers of an address and/or a collection (token1155tx).
 *
 * @since 0.1.0
 * @category sources
 */
export const erc1155Transfers = library.erc1155Transfers.source

/**
 * Every holder of a token with its raw quantity (tokenholderlist, PRO), page by page.
 *
 * @since 0.1.0
 * @category sources
 */
export const tokenHolders = library.tokenHolders.source

/**
 * The largest holders of a token (topholders, PRO; `limit` ≤ 1,000, default 1,000).
 *
 * @since 0.1.0
 * @category sources
 */
export const topHolders = library.topHolders.source

/**
 * The NFT holdings of an address (addresstokennftbalance, PRO), page by page.
 *
 * @since 0.1.0
 * @category sources
 */
export const nftHoldings = library.nftHoldings.source

/**
 * The ERC-20 balances of an address (addresstokenbalance, PRO), page by page.
 *
 * @since 0.1.0
 * @category sources
 */
export const tokenBalances = library.tokenBalances.source

/**
 * Gas used per day (dailygasused, PRO).
 *
 * @since 0.1.0
 * @category sources
 */
export const dailyGasUsed = library.dailyGasUsed.source

/**
 * Transactions per day (dailytx, PRO).
 *
 * @since 0.1.0
 * @category sources
 */
export const dailyTxCount = library.dailyTxCount.source

/**
 * Every name tag of a label (exportaddresstags, Pro Plus): the downloaded file's rows.
 *
 * @since 0.1.0
 * @category sources
 */
export const addressTags = library.addressTags.source

/**
 * The blocks an address proposed (getminedblocks), with their rewards, newest first as the server lists
 * them, page by page (the server takes no block range for it).
 *
 * @since 0.1.0
 * @category sources
 */
export const minedBlocks = library.minedBlocks.source

/**
 * Consensus-layer withdrawals to an address (txsBeaconWithdrawal), every one exactly once, in block order.
 *
 * @since 0.1.0
 * @category sources
 */
export const beaconWithdrawals = library.beaconWithdrawals.source

/**
 * One daily statistic between two dates (PRO), named by its action, e.g. `dailyStatistic("ethdailyprice", …)`.
 *
 * @since 0.1.0
 * @category sources
 */
export const dailyStatistic = statisticSource
