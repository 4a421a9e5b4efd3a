/**
 * What the library's data sets (`streams/datasets/`, one file each) make their sources with: each names
 * its operation, checks its whole query with the parameter checker (`Params.ts`, the one checker of a
 * call's input) and the plan's rules before its first request, and pages it with the block cursor,
 * page numbers or one request. The queries' types, `oneCall` and the daily statistics are here too
 * (re-exported by `Sources`).
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Chain from "../Chain.js"
import { type CallOptions, ExplorerClient, type ListOperationName, type ParamsOf, type RecordOf, type WorkerLines } from "../ExplorerClient.js"
import { type StreamError, UnsupportedChainError } from "../ExplorerError.js"
import * as Params from "../Params.js"
import * as Plan from "../Plan.js"
import * as Schemas from "../schemas/index.js"
import * as BlockCursor from "./engine/BlockCursor.js"
import * as PageNumbers from "./engine/PageNumbers.js"
import * as Partitions from "./engine/Partitions.js"
import * as Progress from "./Progress.js"
import type { BlockRange, BlockSource, RowSource, StreamOptions } from "./Sources.js"

/**
 * A block range; `toBlock` defaults to `"latest"`, resolved once when the stream starts.
 *
 * @since 0.1.0
 * @category models
 */
export interface BlockRangeQuery {
  readonly chainId?: number | undefined
  readonly fromBlock?: number | undefined
  readonly toBlock?: number | "latest" | undefined
}

/**
 * Logs by emitting contract and/or topics, with the API's and/or operators between topics.
 *
 * @since 0.1.0
 * @category models
 */
export interface LogsQuery extends BlockRangeQuery {
  readonly address?: string | undefined
  readonly topic0?: string | undefined
  readonly topic1?: string | undefined
  readonly topic2?: string | undefined
  readonly topic3?: string | undefined
  readonly topicOperators?: ParamsOf<"getLogs">["topicOperators"]
}

/**
 * Transactions of one address.
 *
 * @since 0.1.0
 * @category models
 */
export interface AddressQuery extends BlockRangeQuery {
  readonly address: string
}

/**
 * Internal transactions of an address, or of every address in a block range (a PRO call).
 *
 * @since 0.1.0
 * @category models
 */
export interface InternalQuery extends BlockRangeQuery {
  readonly address?: string | undefined
}

/**
 * Token transfers of an address and/or a token contract (at least one of the two).
 *
 * @since 0.1.0
 * @category models
 */
export interface TransfersQuery extends BlockRangeQuery {
  readonly address?: string | undefined
  readonly contractAddress?: string | undefined
}

/**
 * Daily statistics between two dates (yyyy-MM-dd).
 *
 * @since 0.1.0
 * @category models
 */
export interface DailyQuery {
  readonly chainId?: number | undefined
  readonly startDate: string
  readonly endDate: string
  readonly sort?: "asc" | "desc" | undefined
}

/** A query without its undefined fields: plain JSON for the manifest. */
export const plain = (query: object): Readonly<Record<string, unknown>> =>
  Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined))

/** The client and the chain of a source (the client's default chain when none is named), checked. */
const clientAndChain = (name: Plan.OperationName, chainId: number | undefined) =>
  Effect.gen(function*() {
    const client = yield* ExplorerClient
    const { action, module } = Plan.operations[name]
    const id = chainId ?? client.defaultChainId
    if (!Chain.isSupported(id)) {
      return yield* new UnsupportedChainError({ chainId: id, module, action, detail: `chain ${id} is not served by the explorer API` })
    }
    return { client, chainId: Chain.ChainId.make(id) }
  })

/**
 * The client and the chain of a query, the query itself checked as the operation's parameters
 * (`input`, without the chain) by `Params.check`, and the plan's rules for it (the plan it needs, the
 * chains open to free keys): everything is refused here, before anything is sent — and as the source
 * is made, so a pipeline's check (`Pipeline.check`) finds it before the pipeline's first export.
 */
export const prepare = (name: Plan.OperationName, chainId: number | undefined, input: Readonly<Record<string, unknown>>) =>
  Effect.gen(function*() {
    const found = yield* clientAndChain(name, chainId)
    const operation = Plan.operations[name]
    const ctx = { chainId: found.chainId, module: operation.module, action: operation.action }
    const checked = Params.check(name, { ...input, chainId: found.chainId })
    if (Either.isLeft(checked)) return yield* Params.invalid(ctx, checked.left)
    yield* Params.planRules(found.client.plan, operation, Params.toWire(checked.right), ctx)
    return found
  })

/** A query's block range, `fromBlock` 0 and `toBlock` latest by default. */
const rangeOf = (query: BlockRangeQuery) => ({ fromBlock: query.fromBlock ?? 0, toBlock: query.toBlock ?? "latest" as const })

/** A query's block range as the account lists take it (startblock/endblock; no end for `latest`). */
export const accountRange = (query: BlockRangeQuery) => {
  const { fromBlock, toBlock } = rangeOf(query)
  return { startBlock: fromBlock, endBlock: toBlock === "latest" ? undefined : toBlock }
}

/** A block page as the account lists take it: ascending, by startblock/endblock. */
export const accountPage = (r: BlockCursor.BlockPageRequest) => ({
  startBlock: r.fromBlock,
  endBlock: r.toBlock,
  page: r.page,
  offset: r.offset,
  sort: "asc" as const
})

/**
 * The streams split block ranges on query timeouts themselves; a one-block range cannot be split, so
 * its request asks the client to retry a timeout like any transient failure (BlockCursor decides).
 */
/** A page request's call options: its timeout policy, and its urgency at the limiter when it says one. */
const timeoutPolicy = (r: BlockCursor.BlockPageRequest): CallOptions => (
  r.priority === undefined ? { retryQueryTimeout: r.retryQueryTimeout } : { retryQueryTimeout: r.retryQueryTimeout, priority: r.priority }
)

/** A row of `lineBatches` while the cursor pages: its line (or file row) and its block. */
/**
 * A page's lines as a decoding worker made them, as the cursor takes them: each line's bytes (a view
 * into the page's buffer) where `lines` would give its text (see `StreamOptions.lineWorkers`).
 */
const workerLines = <B>(lines: WorkerLines): ReadonlyArray<BlockLine<B>> => {
  const out: Array<BlockLine<B>> = new Array(lines.ends.length)
  let start = 0
  for (let i = 0; i < out.length; i++) {
    const end = lines.ends[i] as number
    out[i] = { block: lines.blocks[i] as number, row: lines.bytes.subarray(start, end) as unknown as B }
    start = end
  }
  return out
}

interface BlockLine<B> {
  readonly block: number
  readonly row: B
}

/** One partition pool per client: the exports of a client share its requests in flight. */
const pools = new WeakMap<ExplorerClient.Service, Partitions.Pool>()
const poolOf = (client: ExplorerClient.Service): Partitions.Pool => {
  const found = pools.get(client)
  if (found !== undefined) return found
  const made = Partitions.pool()
  pools.set(client, made)
  return made
}

/** Builds a block-ordered source over one list operation. */
export const blockSource = <K extends ListOperationName, I extends { readonly blockNumber: string }>(
  client: ExplorerClient.Service,
  args: {
    readonly dataset: string
    readonly name: K
    readonly chainId: Chain.ChainId
    readonly query: BlockRangeQuery
    readonly schema: Schema.Schema<RecordOf<K>, I>
    /** The parameters of one page request. */
    readonly params: (request: BlockCursor.BlockPageRequest) => ParamsOf<K>
  }
): BlockSource<RecordOf<K>, I> => {
  const { chainId, name } = args
  const operation = Plan.operations[name]
  const method = client[name] as unknown as (params: ParamsOf<K>, options: CallOptions) => Effect.Effect<ReadonlyArray<RecordOf<K>>, StreamError>
  /**
   * The server's word on a window the facts leave open (the free plan's): the key's, if a probe has
   * settled it already (no second probe); else what the page `fetch` asks past it (`probeWindow`) says.
   */
  const learnWindow = <R, E>(
    fetch: (request: BlockCursor.BlockPageRequest, probe: boolean) => Effect.Effect<ReadonlyArray<R>, StreamError | E>
  ) =>
  (request: BlockCursor.BlockPageRequest): Effect.Effect<BlockCursor.LearnedWindow<R>, StreamError | E> =>
    Effect.flatMap(client.resultWindow(name), (known): Effect.Effect<BlockCursor.LearnedWindow<R>, StreamError | E> =>
      known.source !== "assumed" ? Effect.succeed({ window: known.rows, asked: false }) : fetch(request, true).pipe(
        Effect.map((rows): ReadonlyArray<R> | undefined => rows),
        Effect.catchIf((e) => typeof e === "object" && e !== null && "_tag" in e && e._tag === "ResultWindowError", () => Effect.succeed(undefined)),
        Effect.flatMap((rows) =>
          Effect.map(client.resultWindow(name), (settled) => ({ window: settled.rows, asked: true, ...(rows === undefined ? {} : { rows }) }))
        )
      ))
  const cursor = <R, E = never>(
    range: BlockRange,
    options: StreamOptions | undefined,
    blockOf: (row: R) => number,
    fetch: (request: BlockCursor.BlockPageRequest, probe: boolean) => Effect.Effect<ReadonlyArray<R>, StreamError | E>
  ) =>
    Stream.unwrap(Effect.map(client.resultWindow(name), (known) =>
      BlockCursor.batches({
        chainId,
        module: operation.module,
        action: operation.action,
        fromBlock: range.fromBlock,
        toBlock: range.toBlock,
        rowsPerRequest: Plan.rowsPerRequest(client.plan, operation),
        window: known.rows,
        learnWindow: known.source === "plan" ? undefined : learnWindow(fetch),
        blockOf,
        fetch: (request) => fetch(request, false),
        progress: options?.progress,
        bound: options?.bound
      })))
  const callOptions = (r: BlockCursor.BlockPageRequest, options: StreamOptions | undefined, probe: boolean): CallOptions => ({
    ...timeoutPolicy(r),
    onAnswer: options?.onAnswer,
    ...(probe ? { probeWindow: true } : {})
  })
  const callsPerSecond = operation.throttled ? Plan.THROTTLED_CALLS_PER_SECOND : Plan.limits[client.plan].callsPerSecond
  return {
    _tag: "Blocks",
    dataset: args.dataset,
    chainId,
    plan: client.plan,
    callsPerSecond,
    query: plain({ chainId, ...args.query }),
    schema: args.schema,
    ...rangeOf(args.query),
    parallel: {
      callsPerSecond,
      rowsPerCall: Plan.rowsPerRequest(client.plan, operation),
      pagesPerQuery: Math.floor(Plan.resultWindow(client.plan, operation) / Plan.rowsPerRequest(client.plan, operation)),
      pool: poolOf(client)
    },
    latestBlock: (options) =>
      Progress.update(options?.progress, (p) => ({ ...p, calls: p.calls + 1 })).pipe(
        Effect.zipRight(Clock.currentTimeMillis),
        Effect.flatMap((now) => client.getblocknobytime({ chainId, timestamp: Math.floor(now / 1000), closest: "before" }))
      ),
    batches: (range, options) =>
      cursor(range, options, (row: RecordOf<K>) => (row as { readonly blockNumber: number }).blockNumber, (r, probe) =>
        method(args.params(r), callOptions(r, options, probe))),
    // The cursor pages over each row's line and block. Block numbers of a file row are decimal text
    // (DecimalInt) in every block-ordered file schema.
    lineBatches: <B, E>(
      range: BlockRange,
      lines: (rows: ReadonlyArray<I>) => Either.Either<ReadonlyArray<B>, E>,
      options?: StreamOptions
    ) =>
      cursor(range, options, (row: BlockLine<B>) => row.block, (r, probe) =>
        client.fileRecordsMapped(
          name,
          args.params(r),
          args.schema,
          (rows) => Either.map(lines(rows), (mapped) => mapped.map((row, i): BlockLine<B> => ({ block: Number((rows[i] as I).blockNumber), row }))),
          callOptions(r, options, probe),
          // Only where `lines` is this schema's encoder: a wrapping source's `lines` writes rows of its own.
          options?.lineWorkers === undefined || options.lineWorkers.schema !== args.schema
            ? undefined
            : { ...options.lineWorkers, rows: workerLines<B> }
        )).pipe(
          Stream.map((batch) => ({
            rows: batch.rows.map((row) => row.row),
            completeThrough: batch.completeThrough,
            firstBlock: batch.firstBlock
          }))
        )
  }
}

/** What a source read whole says of itself. */
interface RowInfo<A, I> {
  readonly dataset: string
  readonly operation: Plan.Operation
  readonly chainId: Chain.ChainId
  readonly plan: string
  readonly query: object
  readonly schema: Schema.Schema<A, I>
}

/** A source read whole, from what it says of itself and its stream. */
const rowSource = <A, I>(info: RowInfo<A, I>, rows: RowSource<A, I>["rows"]): RowSource<A, I> => ({
  _tag: "Rows",
  dataset: info.dataset,
  chainId: info.chainId,
  plan: info.plan,
  callsPerSecond: Plan.callsPerSecondOf(info.plan),
  query: plain({ chainId: info.chainId, ...info.query }),
  schema: info.schema,
  rows
})

/** Builds a page-numbered source over one client method. */
const pagedSource = <A, I>(
  client: ExplorerClient.Service,
  info: RowInfo<A, I>,
  fetch: (page: number, offset: number) => Effect.Effect<ReadonlyArray<A>, StreamError>
): RowSource<A, I> =>
  rowSource(info, (options) =>
    PageNumbers.rows({
      chainId: info.chainId,
      module: info.operation.module,
      action: info.operation.action,
      offset: Plan.rowsPerRequest(client.plan, info.operation),
      window: Plan.resultWindow(client.plan, info.operation),
      fetch,
      allowPartial: options?.allowPartial,
      progress: options?.progress
    }))

/** A source answered by one call. */
const singleSource = <A, I>(info: RowInfo<A, I>, fetch: Effect.Effect<ReadonlyArray<A>, StreamError>): RowSource<A, I> =>
  rowSource(info, (options) =>
    Stream.fromIterableEffect(
      Progress.update(options?.progress, (p) => ({ ...p, calls: p.calls + 1 })).pipe(
        Effect.zipRight(fetch),
        Effect.tap((rows) =>
          Progress.update(options?.progress, (p) => ({
            ...p,
            pages: p.pages + 1,
            rows: p.rows + rows.length,
            completeness: "complete"
          }))
        )
      )
    ))

/**
 * A source answered by one call (tokeninfo, ethsupply, or a value of your own shaped as a row): the
 * file holds the call's rows, is rewritten at every run and gets a manifest like every export. The
 * chain is checked before anything is sent, as for the data-set sources; the call checks its own
 * parameters.
 *
 * @example
 * Sources.oneCall({
 *   dataset: "tokenInfo", operation: "tokeninfo", query: { contractAddress: token },
 *   schema: Schemas.TokenInfo, fetch: (client, chainId) => client.tokeninfo({ chainId, contractAddress: token })
 * })
 *
 * @since 0.1.0
 * @category constructors
 */
export const oneCall = <A, I>(args: {
  /** The data set's name for the manifest, e.g. "tokenInfo". */
  readonly dataset: string
  /** The operation the call makes. */
  readonly operation: Plan.OperationName
  /** Default: the client's chain. */
  readonly chainId?: number | undefined
  /** The query as plain JSON (for the manifest). */
  readonly query: Readonly<Record<string, unknown>>
  /** The schema whose encoded form is the file's row. */
  readonly schema: Schema.Schema<A, I>
  readonly fetch: (client: ExplorerClient.Service, chainId: Chain.ChainId) => Effect.Effect<ReadonlyArray<A>, StreamError>
}): Effect.Effect<RowSource<A, I>, StreamError, ExplorerClient> =>
  Effect.gen(function*() {
    const { chainId, client } = yield* clientAndChain(args.operation, args.chainId)
    const operation = Plan.operations[args.operation]
    // The call's parameters are `fetch`'s: the plan's rules are checked here when they do not depend on
    // them (all but txlistinternal's), else by the call.
    if (Plan.requiredPlan(operation, {}) === operation.minimumPlan) {
      yield* Params.planRules(client.plan, operation, {}, { chainId, module: operation.module, action: operation.action })
    }
    const info = { ...args, operation, chainId, plan: client.plan }
    return singleSource(info, args.fetch(client, chainId))
  })

/** A token-transfer list (tokentx, tokennfttx, token1155tx): the same filters, its own record. */
export const transfers = <K extends "tokentx" | "tokennfttx" | "token1155tx", I extends { readonly blockNumber: string }>(
  name: K,
  dataset: string,
  schema: Schema.Schema<RecordOf<K>, I>
) =>
(query: TransfersQuery) =>
  Effect.gen(function*() {
    const filters = plain({ address: query.address, contractAddress: query.contractAddress })
    const { chainId, client } = yield* prepare(name, query.chainId, { ...filters, ...accountRange(query) })
    return blockSource(client, {
      dataset,
      name,
      chainId,
      query,
      schema,
      params: (r) => ({ chainId, ...filters, ...accountPage(r) }) as ParamsOf<K>
    })
  })

/** The list operations a data set reads with one request, or page by page. */
type ListName =
  | "tokenholderlist"
  | "addresstokenbalance"
  | "addresstokennftbalance"
  | "topholders"
  | "dailygasused"
  | "dailytx"
  | "exportaddresstags"
  | "getminedblocks"
  | DailyStatistic

/**
 * A list source of one operation, its query checked: read page by page (holders, balances, NFT
 * holdings) or answered by one request (top holders, daily statistics, name tags).
 */
export const listSource = <K extends ListName, A, I, Q extends { readonly chainId?: number | undefined }>(
  name: K,
  dataset: string,
  schema: Schema.Schema<A, I>,
  query: Q,
  params: Readonly<Record<string, unknown>>,
  paging: "pages" | "one request"
) =>
  Effect.gen(function*() {
    const { chainId, client } = yield* prepare(name, query.chainId, params)
    const method = client[name] as unknown as (params: ParamsOf<K>) => Effect.Effect<ReadonlyArray<A>, StreamError>
    const info = { dataset, operation: Plan.operations[name], chainId, plan: client.plan, query, schema }
    return paging === "pages"
      ? pagedSource(client, info, (page, offset) => method({ chainId, ...params, page, offset } as ParamsOf<K>))
      : singleSource(info, method({ chainId, ...params } as ParamsOf<K>))
  })

/** A daily statistic between two dates: the dates and the order of the days. */
export const dailyParams = (query: DailyQuery) => ({
  startDate: query.startDate,
  endDate: query.endDate,
  ...(query.sort ? { sort: query.sort } : {})
})

/**
 * The daily statistics beside dailytx and dailygasused, and the record of each.
 *
 * @since 0.1.0
 * @category constants
 */
export const dailyStatistics = {
  dailyavgblocksize: Schemas.DailyAvgBlockSize,
  dailyavgblocktime: Schemas.DailyAvgBlockTime,
  dailyavggaslimit: Schemas.DailyAvgGasLimit,
  dailyavggasprice: Schemas.DailyAvgGasPrice,
  dailyavghashrate: Schemas.DailyAvgHashRate,
  dailyavgnetdifficulty: Schemas.DailyAvgNetDifficulty,
  dailyblkcount: Schemas.DailyBlockCount,
  dailyblockrewards: Schemas.DailyBlockRewards,
  dailynetutilization: Schemas.DailyNetUtilization,
  dailynewaddress: Schemas.DailyNewAddress,
  dailytxnfee: Schemas.DailyTxnFee,
  dailyuncleblkcount: Schemas.DailyUncleBlockCount,
  ethdailymarketcap: Schemas.EthDailyMarketCap,
  ethdailyprice: Schemas.EthDailyPrice
} as const

/**
 * The name (the API's action) of one of {@link dailyStatistics}.
 *
 * @since 0.1.0
 * @category models
 */
export type DailyStatistic = keyof typeof dailyStatistics

