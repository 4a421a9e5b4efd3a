/**
 * One `Stream` per data set: lazy, back-pressured (a page is fetched only when the consumer wants
 * more rows), constant-memory, and exact — every row exactly once, in block order for block-ordered
 * data sets. All streams of one program share the client's per-key limiter, so `Stream.merge` of
 * streams on several chains and data sets never trips the rate limit.
 *
 * @example
 * import { Streams } from "explorer-etl"
 * import { Stream } from "effect"
 *
 * const transfers = Streams.logs({
 *   chainId: 1,
 *   address: "0xdac17f958d2ee523a2206206994597c13d831ec7",
 *   topic0: "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",
 *   fromBlock: 19_000_000
 * })
 * const count = transfers.pipe(Stream.runCount) // Effect<number, StreamError, ExplorerClient>
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { ExplorerClient } from "../ExplorerClient.js"
import type { StreamError } from "../ExplorerError.js"
import type { SinkError } from "../sinks/SinkError.js"
import * as DiskSpill from "./DiskSpill.js"
import * as BlockCursor from "./engine/BlockCursor.js"
import * as Scheduler from "./engine/Scheduler.js"
import * as Progress from "./Progress.js"
import * as Sources from "./Sources.js"

export type { SpillingStreamOptions, SpillOptions, StreamOptions } from "./Sources.js"

/**
 * A data set's Stream from its query: in memory by default; with `spill`, its rows read ahead wait
 * on disk (it then needs a `FileSystem` and may fail with a `SinkError`, see
 * `Sources.SpillingStreamOptions`).
 *
 * @since 0.1.0
 * @category models
 */
export interface StreamFunction<Q, A> {
  (query: Q, options: Sources.SpillingStreamOptions): Stream.Stream<A, StreamError | SinkError, ExplorerClient | FileSystem.FileSystem>
  (query: Q, options?: Sources.StreamOptions): Stream.Stream<A, StreamError, ExplorerClient>
}

/**
 * The block range of a block-ordered source with `latest` resolved (the source counts its call in `progress`).
 *
 * @since 0.1.0
 * @category utils
 */
export const resolveRange = <A, I, E, R>(
  source: Sources.BlockSource<A, I, E, R>,
  options?: Sources.StreamOptions
): Effect.Effect<Sources.BlockRange, E, R> =>
  source.toBlock === "latest"
    ? Effect.map(source.latestBlock(options), (latest) => ({ fromBlock: source.fromBlock, toBlock: latest }))
    : Effect.succeed({ fromBlock: source.fromBlock, toBlock: source.toBlock })

/**
 * Every row of a source, exactly once (in block order for a block-ordered one). A block-ordered source
 * that reads in parallel (`parallel`: the library's) is read by the paging engine's scheduler, as an
 * export is (several pages and ranges in flight, handed over in block order, rows read ahead held in
 * memory up to `heldRows`, or on disk with `spill`); `concurrency: 1` reads it with one cursor.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromSource: {
  <A, I, E, R>(
    source: Sources.Source<A, I, E, R>,
    options: Sources.SpillingStreamOptions
  ): Stream.Stream<A, E | SinkError, R | FileSystem.FileSystem>
  <A, I, E, R>(source: Sources.Source<A, I, E, R>, options?: Sources.StreamOptions): Stream.Stream<A, E, R>
} = <A, I, E, R>(source: Sources.Source<A, I, E, R>, options?: Sources.StreamOptions) => read(source, options)

/** `fromSource`, typed as it reads with a spill (without one, no `SinkError` and no `FileSystem`). */
const read = <A, I, E, R>(
  source: Sources.Source<A, I, E, R>,
  options: Spilling | undefined
): Stream.Stream<A, E | SinkError, R | FileSystem.FileSystem> => {
  if (source._tag === "Rows") return source.rows(options)
  const parallel = source.parallel
  // An open end: the chain's head is asked together with the first page (see `Scheduler.Options.until`).
  if (source.toBlock === "latest" && parallel !== undefined && options?.concurrency !== 1 && options?.bound === undefined) {
    return inOrder(source, { fromBlock: source.fromBlock, toBlock: BlockCursor.openEnd }, parallel, options, source.latestBlock(options))
  }
  return Stream.unwrap(
    Effect.map(resolveRange(source, options), (range) =>
      parallel === undefined || options?.concurrency === 1 || options?.bound !== undefined
        ? source.batches(range, options).pipe(Stream.mapConcat((batch) => batch.rows))
        : inOrder(source, range, parallel, options))
  )
}

/** Options as the readers see them: a spill, or none. */
type Spilling = Sources.StreamOptions & { readonly spill?: Sources.SpillOptions | undefined }

/** A parallel source's range through the scheduler, its progress told as one cursor's would be. */
const inOrder = <A, I, E, R>(
  source: Sources.BlockSource<A, I, E, R>,
  range: Sources.BlockRange,
  parallel: NonNullable<Sources.BlockSource<A, I, E, R>["parallel"]>,
  options: Spilling | undefined,
  until?: Effect.Effect<number, E, R>
): Stream.Stream<A, E | SinkError, R | FileSystem.FileSystem> => {
  const progress = options?.progress
  // The last block: `range.toBlock`, or the head once `until` tells it.
  let toBlock = range.toBlock
  const known = until === undefined ? undefined : Effect.tap(until, (last) =>
    Effect.zipRight(
      Effect.sync(() => void (toBlock = Math.min(toBlock, last))),
      Progress.update(progress, (p) => ({ ...p, targetBlock: toBlock }))
    ))
  // The cursors of the ranges count their calls, pages and rows in `progress`; the block position is
  // the whole range's, told when it starts and when it is complete.
  const rows = Scheduler.rowsInOrder<A, E, R, SinkError, FileSystem.FileSystem>({
    range,
    parallel,
    concurrency: options?.concurrency,
    heldRows: options?.heldRows,
    spill: options?.spill === undefined ? undefined : DiskSpill.make(source.schema, options.spill.directory),
    until: known,
    read: (blocks, bound, onAnswer) => source.batches(blocks, { ...options, bound, onAnswer })
  })
  if (progress === undefined) return rows
  return Stream.fromEffect(Progress.update(progress, (p) => ({
    ...p,
    fromBlock: range.fromBlock,
    ...(until === undefined ? { targetBlock: range.toBlock } : {}),
    completeThrough: range.fromBlock - 1
  }))).pipe(
    Stream.drain,
    Stream.concat(rows),
    Stream.concat(Stream.suspend(() =>
      Stream.fromEffect(Progress.update(progress, (p) => ({
        ...p,
        completeThrough: Math.max(p.completeThrough ?? toBlock, toBlock),
        completeness: "complete" as const
      }))).pipe(Stream.drain)
    ))
  )
}

/**
 * A stream function from a source function: the source made for the query, then read whole as
 * `fromSource` reads it. Every `Streams.*` function is one (and a registry's data sets' too).
 *
 * @example
 * import { Sources, Streams } from "explorer-etl"
 *
 * const logs = Streams.fromSourceFunction(Sources.logs)
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromSourceFunction = <Q, A, I>(
  make: (query: Q) => Effect.Effect<Sources.Source<A, I>, StreamError, ExplorerClient>
): StreamFunction<Q, A> =>
  // Typed by `StreamFunction`'s overloads: with a spill, a `SinkError` and a `FileSystem` too.
  ((query: Q, options?: Spilling) => Stream.unwrap(Effect.map(make(query), (source) => read(source, options)))) as StreamFunction<Q, A>

const streamOf = fromSourceFunction

/**
 * Event logs by address and/or topic0..3 (with and/or operators) over a block range.
 *
 * @example
 * import { Streams } from "explorer-etl"
 * import { Stream } from "effect"
 *
 * const transfers = Streams.logs({
 *   chainId: 1,
 *   address: "0xdac17f958d2ee523a2206206994597c13d831ec7",
 *   topic0: "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",
 *   fromBlock: 19_000_000
 * })
 * const count = Stream.runCount(transfers) // Effect<number, StreamError, ExplorerClient>
 *
 * @since 0.1.0
 * @category streams
 */
export const logs = streamOf(Sources.logs)
/**
 * Event logs decoded by an ABI (the `events` data set: see `Events`), undecodable logs kept with an
 * empty `event`. The same rows as `Streams.logs(…).pipe(Events.decodeLogs(decoder))`.
 *
 * @since 0.1.0
 * @category streams
 */
export const events = streamOf(Sources.events)
/**
 * Normal transactions of an address (txlist).
 *
 * @since 0.1.0
 * @category streams
 */
export const transactions = streamOf(Sources.transactions)
/**
 * Internal transactions of an address, or of a block range (PRO) (txlistinternal).
 *
 * @since 0.1.0
 * @category streams
 */
export const internalTransactions = streamOf(Sources.internalTransactions)
/**
 * ERC-20 transfers by address and/or token contract (tokentx).
 *
 * @since 0.1.0
 * @category streams
 */
export const erc20Transfers = streamOf(Sources.erc20Transfers)
/**
 * ERC-721 transfers by address and/or collection (tokennfttx).
 *
 * @since 0.1.0
 * @category streams
 */
export const erc721Transfers = streamOf(Sources.erc721Transfers)
/**
 * ERC-1155 transfers by address and/or collection (token1155tx).
 *
 * @since 0.1.0
 * @category streams
 */
export const erc1155Transfers = streamOf(Sources.erc1155Transfers)
/**
 * Every holder of a token (tokenholderlist, PRO); `allowPartial` accepts a list cut by the window.
 *
 * @since 0.1.0
 * @category streams
 */
export const tokenHolders = streamOf(Sources.tokenHolders)
/**
 * The largest holders of a token (topholders, PRO).
 *
 * @since 0.1.0
 * @category streams
 */
export const topHolders = streamOf(Sources.topHolders)
/**
 * The NFT holdings of an address (addresstokennftbalance, PRO).
 *
 * @since 0.1.0
 * @category streams
 */
export const nftHoldings = streamOf(Sources.nftHoldings)
/**
 * The ERC-20 balances of an address (addresstokenbalance, PRO).
 *
 * @since 0.1.0
 * @category streams
 */
export const tokenBalances = streamOf(Sources.tokenBalances)
/**
 * Gas used per day (dailygasused, PRO).
 *
 * @since 0.1.0
 * @category streams
 */
export const dailyGasUsed = streamOf(Sources.dailyGasUsed)
/**
 * Transactions per day (dailytx, PRO).
 *
 * @since 0.1.0
 * @category streams
 */
export const dailyTxCount = streamOf(Sources.dailyTxCount)
/**
 * The name tags of a label (exportaddresstags download, Pro Plus).
 *
 * @since 0.1.0
 * @category streams
 */
export const addressTags = streamOf(Sources.addressTags)
/**
 * Blocks an address proposed, newest first, with their rewards (getminedblocks).
 *
 * @since 0.1.0
 * @category streams
 */
export const minedBlocks = streamOf(Sources.minedBlocks)
/**
 * Consensus-layer withdrawals to an address, in block order (txsBeaconWithdrawal).
 *
 * @since 0.1.0
 * @category streams
 */
export const beaconWithdrawals = streamOf(Sources.beaconWithdrawals)
/**
 * One daily statistic between two dates, named by its action (PRO).
 *
 * @since 0.1.0
 * @category streams
 */
export const dailyStatistic = <K extends Sources.DailyStatistic>(stat: K, query: Sources.DailyQuery, options?: Sources.StreamOptions) =>
  streamOf((q: Sources.DailyQuery) => Sources.dailyStatistic(stat, q))(query, options)
