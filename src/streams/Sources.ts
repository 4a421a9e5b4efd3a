/**
 * The data sets of explorer-etl as sources: what to ask, how to page it, and which schema writes it.
 * A block-ordered source (logs, transactions, transfers) pages with the block cursor and can resume
 * from a block; a list source (holders, balances, daily stats, tags) is read whole.
 *
 * Streams.ts turns a source into a plain `Stream` of records; the export runner (sinks/) consumes
 * sources directly, to checkpoint on block boundaries. A block-ordered source gives its batches twice
 * over: `batches` (decoded records, for streams) and `lineBatches` (the same records as the file's lines,
 * checked on the wire but never decoded, each page held as its text: what exports read; see
 * bench/RESULTS.md for the gain).
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Chain from "../Chain.js"
import { type CallOptions, ExplorerClient, type ListOperationName, type ParamsOf, type RecordOf } from "../ExplorerClient.js"
import { InvalidInputError, type StreamError, UnsupportedChainError } from "../ExplorerError.js"
import * as Plan from "../Plan.js"
import * as Schemas from "../schemas/index.js"
import * as BlockCursor from "./BlockCursor.js"
import * as PageNumbers from "./PageNumbers.js"
import * as Progress from "./Progress.js"

/** Options every stream takes. */
export interface StreamOptions {
  /** A progress cell to publish pages, calls, rows and block position to (see Progress.make). */
  readonly progress?: Progress.ProgressRef | undefined
  /**
   * Page-numbered lists only: when the result window stops paging before the end, end with the rows
   * read so far (progress says "truncated") instead of failing with `ResultWindowError`.
   */
  readonly allowPartial?: boolean | undefined
}

/** A block range; `toBlock` defaults to `"latest"`, resolved once when the stream starts. */
export interface BlockRangeQuery {
  readonly chainId?: number | undefined
  readonly fromBlock?: number | undefined
  readonly toBlock?: number | "latest" | undefined
}

/** Logs by emitting contract and/or topics, with the API's and/or operators between topics. */
export interface LogsQuery extends BlockRangeQuery {
  readonly address?: string | undefined
  readonly topic0?: string | undefined
  readonly topic1?: string | undefined
  readonly topic2?: string | undefined
  readonly topic3?: string | undefined
  readonly topicOperators?: ParamsOf<"getLogs">["topicOperators"]
}

/** Transactions of one address. */
export interface AddressQuery extends BlockRangeQuery {
  readonly address: string
}

/** Internal transactions of an address, or of every address in a block range (a PRO call). */
export interface InternalQuery extends BlockRangeQuery {
  readonly address?: string | undefined
}

/** Token transfers of an address and/or a token contract (at least one of the two). */
export interface TransfersQuery extends BlockRangeQuery {
  readonly address?: string | undefined
  readonly contractAddress?: string | undefined
}

/** What every source says of itself (for manifests and messages). */
interface SourceInfo<A, I> {
  /** The data set's name in the user's words: "logs", "erc20Transfers", "tokenHolders", … */
  readonly dataset: string
  readonly chainId: Chain.ChainId
  readonly module: string
  readonly action: string
  /** The query as plain JSON (for the manifest and the resume fingerprint). */
  readonly query: Readonly<Record<string, unknown>>
  /** The schema whose encoded form is the file's row (its field order is the column order). */
  readonly schema: Schema.Schema<A, I>
}

/** A block-ordered data set: resumable from any block. */
export interface BlockSource<A, I = unknown> extends SourceInfo<A, I> {
  readonly _tag: "Blocks"
  readonly fromBlock: number
  readonly toBlock: number | "latest"
  /** The chain's latest block (one getblocknobytime call). */
  readonly latestBlock: Effect.Effect<number, StreamError>
  /** The rows of a block range, in batches that each end on a complete block. */
  readonly batches: (
    range: { readonly fromBlock: number; readonly toBlock: number },
    options?: StreamOptions
  ) => Stream.Stream<BlockCursor.BlockBatch<A>, StreamError>
  /**
   * The same batches as the file's lines. Each page's records, checked on the wire as `batches` checks
   * them (the decoded values never built), are handed a slice at a time to `lines` (a file encoder's
   * `lines`) as the answer is read: a page is held as its text, never as all its records at once
   * (`ExplorerClient.fileRecordsMapped`). Exports use it when a source has it; a source of your own
   * may leave it out.
   */
  readonly lineBatches?: <E>(
    range: { readonly fromBlock: number; readonly toBlock: number },
    lines: (rows: ReadonlyArray<I>) => Either.Either<ReadonlyArray<string>, E>,
    options?: StreamOptions
  ) => Stream.Stream<BlockCursor.BlockBatch<string>, StreamError | E>
}

/** A data set read whole (holders, balances, daily stats, tags). */
export interface RowSource<A, I = unknown> extends SourceInfo<A, I> {
  readonly _tag: "Rows"
  readonly rows: (options?: StreamOptions) => Stream.Stream<A, StreamError>
}

/** Any source. */
export type Source<A, I = unknown> = BlockSource<A, I> | RowSource<A, I>

const plain = (query: object): Readonly<Record<string, unknown>> =>
  Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined))

const refuse = (chainId: number, op: Plan.Operation, parameter: string, detail: string) =>
  new InvalidInputError({ chainId, module: op.module, action: op.action, parameter, detail })

const resolveChain = (client: ExplorerClient.Service, op: Plan.Operation, chainId: number | undefined) => {
  const id = chainId ?? client.defaultChainId
  return Chain.isSupported(id)
    ? Effect.succeed(Chain.ChainId.make(id))
    : Effect.fail(
      new UnsupportedChainError({
        chainId: id,
        module: op.module,
        action: op.action,
        detail: `chain ${id} is not served by the explorer API`
      })
    )
}

const checkRange = (chainId: number, op: Plan.Operation, query: BlockRangeQuery) => {
  const from = query.fromBlock ?? 0
  if (!Number.isSafeInteger(from) || from < 0) {
    return Effect.fail(refuse(chainId, op, "fromBlock", "must be a block number (an integer ≥ 0)"))
  }
  const to = query.toBlock ?? "latest"
  if (to !== "latest" && (!Number.isSafeInteger(to) || to < 0)) {
    return Effect.fail(refuse(chainId, op, "toBlock", "must be a block number (an integer ≥ 0) or \"latest\""))
  }
  if (to !== "latest" && to < from) {
    return Effect.fail(refuse(chainId, op, "toBlock", `must not be before fromBlock (${from})`))
  }
  return Effect.succeed({ fromBlock: from, toBlock: to })
}

const isAddress = Schema.is(Schemas.Address)
const isTopic = Schema.is(Schemas.Topic)

/**
 * The address and topic filters of a block-ordered source, checked before anything is sent (its
 * first request asks for the latest block, before the client would see the filters).
 */
const checkFilters = (
  chainId: number,
  op: Plan.Operation,
  filters: ReadonlyArray<readonly [parameter: string, value: string | undefined, kind: "address" | "topic"]>
): Effect.Effect<void, InvalidInputError> => {
  for (const [parameter, value, kind] of filters) {
    if (value === undefined || (kind === "address" ? isAddress(value) : isTopic(value))) continue
    const what = kind === "address" ? "an address: 0x followed by 40 hex digits" : "a topic: 0x followed by 64 hex digits"
    return Effect.fail(refuse(chainId, op, parameter, `must be ${what}, got "${value}"`))
  }
  return Effect.void
}

/** Topic operators only between topics that are given ("0_1" needs topic0 and topic1). */
const checkTopicOperators = (chainId: number, op: Plan.Operation, query: LogsQuery): Effect.Effect<void, InvalidInputError> => {
  const topics = [query.topic0, query.topic1, query.topic2, query.topic3]
  for (const [pair, operator] of Object.entries(query.topicOperators ?? {})) {
    if (operator === undefined) continue
    const [x, y] = pair.split("_").map(Number) as [number, number]
    if (topics[x] === undefined || topics[y] === undefined) {
      return Effect.fail(refuse(chainId, op, "topicOperators", `${pair} needs both topic${x} and topic${y}`))
    }
  }
  return Effect.void
}

/** Builds a block-ordered source over one list operation. */
const blockSource = <K extends ListOperationName, I extends { readonly blockNumber: string }>(
  client: ExplorerClient.Service,
  args: {
    readonly dataset: string
    readonly name: K
    readonly chainId: Chain.ChainId
    readonly query: object
    readonly range: { readonly fromBlock: number; readonly toBlock: number | "latest" }
    readonly schema: Schema.Schema<RecordOf<K>, I>
    /** The parameters of one page request. */
    readonly params: (request: BlockCursor.BlockPageRequest) => ParamsOf<K>
  }
): BlockSource<RecordOf<K>, I> => {
  const { chainId, name } = args
  const operation = Plan.operations[name]
  const method = client[name] as unknown as (params: ParamsOf<K>, options: CallOptions) => Effect.Effect<ReadonlyArray<RecordOf<K>>, StreamError>
  const latestBlock = Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    return yield* client.getblocknobytime({ chainId, timestamp: Math.floor(now / 1000), closest: "before" })
  })
  const cursor = <R, E = never>(
    range: { readonly fromBlock: number; readonly toBlock: number },
    options: StreamOptions | undefined,
    blockOf: (row: R) => number,
    fetch: (request: BlockCursor.BlockPageRequest) => Effect.Effect<ReadonlyArray<R>, StreamError | E>
  ) =>
    BlockCursor.batches({
      chainId,
      module: operation.module,
      action: operation.action,
      fromBlock: range.fromBlock,
      toBlock: range.toBlock,
      rowsPerRequest: Plan.rowsPerRequest(client.plan, operation),
      window: Plan.resultWindow(client.plan, operation),
      blockOf,
      fetch,
      progress: options?.progress
    })
  return {
    _tag: "Blocks",
    dataset: args.dataset,
    chainId,
    module: operation.module,
    action: operation.action,
    query: plain({ chainId, ...args.query }),
    schema: args.schema,
    fromBlock: args.range.fromBlock,
    toBlock: args.range.toBlock,
    latestBlock,
    batches: (range, options) =>
      cursor(range, options, (row: RecordOf<K>) => (row as { readonly blockNumber: number }).blockNumber, (r) =>
        method(args.params(r), timeoutPolicy(r))),
    // The cursor pages over each row's line and block. Block numbers of a file row are decimal text
    // (DecimalInt) in every block-ordered file schema.
    lineBatches: <E>(
      range: { readonly fromBlock: number; readonly toBlock: number },
      lines: (rows: ReadonlyArray<I>) => Either.Either<ReadonlyArray<string>, E>,
      options?: StreamOptions
    ) =>
      cursor(range, options, (row: BlockLine) => row.block, (r) =>
        client.fileRecordsMapped(name, args.params(r), args.schema, (rows) =>
          Either.map(lines(rows), (texts) =>
            texts.map((text, i): BlockLine => ({ block: Number((rows[i] as I).blockNumber), text }))), timeoutPolicy(r))).pipe(
          Stream.map((batch) => ({ rows: batch.rows.map((row) => row.text), completeThrough: batch.completeThrough }))
        )
  }
}

/** A row of `lineBatches` while the cursor pages: its line and its block. */
interface BlockLine {
  readonly block: number
  readonly text: string
}

/** Builds a page-numbered source over one client method. */
const pagedSource = <A, I>(
  client: ExplorerClient.Service,
  args: {
    readonly dataset: string
    readonly operation: Plan.Operation
    readonly chainId: Chain.ChainId
    readonly query: object
    readonly schema: Schema.Schema<A, I>
    readonly fetch: (page: number, offset: number) => Effect.Effect<ReadonlyArray<A>, StreamError>
  }
): RowSource<A, I> => ({
  _tag: "Rows",
  dataset: args.dataset,
  chainId: args.chainId,
  module: args.operation.module,
  action: args.operation.action,
  query: plain({ chainId: args.chainId, ...args.query }),
  schema: args.schema,
  rows: (options) =>
    PageNumbers.rows({
      chainId: args.chainId,
      module: args.operation.module,
      action: args.operation.action,
      offset: Plan.rowsPerRequest(client.plan, args.operation),
      window: Plan.resultWindow(client.plan, args.operation),
      fetch: args.fetch,
      allowPartial: options?.allowPartial,
      progress: options?.progress
    })
})

/** A source answered by one call. */
const singleSource = <A, I>(
  args: {
    readonly dataset: string
    readonly operation: Plan.Operation
    readonly chainId: Chain.ChainId
    readonly query: object
    readonly schema: Schema.Schema<A, I>
    readonly fetch: Effect.Effect<ReadonlyArray<A>, StreamError>
  }
): RowSource<A, I> => ({
  _tag: "Rows",
  dataset: args.dataset,
  chainId: args.chainId,
  module: args.operation.module,
  action: args.operation.action,
  query: plain({ chainId: args.chainId, ...args.query }),
  schema: args.schema,
  rows: (options) =>
    Stream.fromIterableEffect(
      Progress.update(options?.progress, (p) => ({ ...p, calls: p.calls + 1 })).pipe(
        Effect.zipRight(args.fetch),
        Effect.tap((rows) =>
          Progress.update(options?.progress, (p) => ({
            ...p,
            pages: p.pages + 1,
            rows: p.rows + rows.length,
            completeness: "complete"
          }))
        )
      )
    )
})

/**
 * A source answered by one call (tokeninfo, ethsupply, or a value of your own shaped as a row): the
 * file holds the call's rows, is rewritten at every run and gets a manifest like every export. The
 * chain is checked before anything is sent, as for the data-set sources.
 *
 * @example
 * Sources.oneCall({
 *   dataset: "tokenInfo", operation: "tokeninfo", query: { contractAddress: token },
 *   schema: Schemas.TokenInfo, fetch: (client, chainId) => client.tokeninfo({ chainId, contractAddress: token })
 * })
 */
export const oneCall = <A, I>(args: {
  /** The data set's name for the manifest, e.g. "tokenInfo". */
  readonly dataset: string
  /** The operation the call makes (its module and action go to the manifest). */
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
    const operation = Plan.operations[args.operation]
    const { chainId, client } = yield* prepare(operation, args.chainId)
    return singleSource({
      dataset: args.dataset,
      operation,
      chainId,
      query: args.query,
      schema: args.schema,
      fetch: args.fetch(client, chainId)
    })
  })

/**
 * The streams split block ranges on query timeouts themselves; a one-block range cannot be split, so
 * its request asks the client to retry a timeout like any transient failure (BlockCursor decides).
 */
const timeoutPolicy = (r: BlockCursor.BlockPageRequest): CallOptions => ({ retryQueryTimeout: r.retryQueryTimeout })

/** The client, the chain and the operation of a source, checked before anything is sent. */
const prepare = (operation: Plan.Operation, chainId: number | undefined) =>
  Effect.gen(function*() {
    const client = yield* ExplorerClient
    return { client, chainId: yield* resolveChain(client, operation, chainId) }
  })

/** A block page as the account lists take it: ascending, by startblock/endblock. */
const listPage = (r: BlockCursor.BlockPageRequest) => ({
  startBlock: r.fromBlock,
  endBlock: r.toBlock,
  page: r.page,
  offset: r.offset,
  sort: "asc" as const
})

/** Event logs by address and/or topics, every log exactly once, in block order. */
export const logs = (query: LogsQuery) =>
  Effect.gen(function*() {
    const operation = Plan.operations.getLogs
    const { chainId, client } = yield* prepare(operation, query.chainId)
    const { chainId: _c, fromBlock: _f, toBlock: _t, ...filters } = query
    if (Object.values(plain(filters)).length === 0) {
      return yield* refuse(chainId, operation, "address", "logs need an address, a topic, or both")
    }
    yield* checkFilters(chainId, operation, [
      ["address", query.address, "address"],
      ["topic0", query.topic0, "topic"],
      ["topic1", query.topic1, "topic"],
      ["topic2", query.topic2, "topic"],
      ["topic3", query.topic3, "topic"]
    ])
    yield* checkTopicOperators(chainId, operation, query)
    const range = yield* checkRange(chainId, operation, query)
    return blockSource(client, {
      dataset: "logs",
      name: "getLogs",
      chainId,
      query,
      range,
      schema: Schemas.LogFileRow,
      params: (r) => ({ ...filters, chainId, fromBlock: r.fromBlock, toBlock: r.toBlock, page: r.page, offset: r.offset })
    })
  })

/** Normal transactions of an address (txlist). */
export const transactions = (query: AddressQuery) =>
  Effect.gen(function*() {
    const operation = Plan.operations.txlist
    const { chainId, client } = yield* prepare(operation, query.chainId)
    yield* checkFilters(chainId, operation, [["address", query.address, "address"]])
    const range = yield* checkRange(chainId, operation, query)
    return blockSource(client, {
      dataset: "transactions",
      name: "txlist",
      chainId,
      query,
      range,
      schema: Schemas.NormalTransaction,
      params: (r) => ({ chainId, address: query.address, ...listPage(r) })
    })
  })

/** Internal transactions of an address, or of a block range when no address is given (PRO). */
export const internalTransactions = (query: InternalQuery) =>
  Effect.gen(function*() {
    const operation = Plan.operations.txlistinternal
    const { chainId, client } = yield* prepare(operation, query.chainId)
    yield* checkFilters(chainId, operation, [["address", query.address, "address"]])
    const range = yield* checkRange(chainId, operation, query)
    return blockSource(client, {
      dataset: "internalTransactions",
      name: "txlistinternal",
      chainId,
      query,
      range,
      schema: Schemas.InternalTransaction,
      params: (r) => ({ chainId, ...(query.address === undefined ? {} : { address: query.address }), ...listPage(r) })
    })
  })

/** A token-transfer list (tokentx, tokennfttx, token1155tx): the same filters, its own record. */
const transfers = <K extends "tokentx" | "tokennfttx" | "token1155tx", I extends { readonly blockNumber: string }>(
  name: K,
  dataset: string,
  schema: Schema.Schema<RecordOf<K>, I>
) =>
(query: TransfersQuery) =>
  Effect.gen(function*() {
    const operation = Plan.operations[name]
    const { chainId, client } = yield* prepare(operation, query.chainId)
    if (query.address === undefined && query.contractAddress === undefined) {
      return yield* refuse(chainId, operation, "address", "token transfers need an address, a contract address, or both")
    }
    yield* checkFilters(chainId, operation, [
      ["address", query.address, "address"],
      ["contractAddress", query.contractAddress, "address"]
    ])
    const range = yield* checkRange(chainId, operation, query)
    const filters = {
      chainId,
      ...(query.address === undefined ? {} : { address: query.address }),
      ...(query.contractAddress === undefined ? {} : { contractAddress: query.contractAddress })
    }
    return blockSource(client, {
      dataset,
      name,
      chainId,
      query,
      range,
      schema,
      params: (r) => ({ ...filters, ...listPage(r) }) as ParamsOf<K>
    })
  })

/** ERC-20 transfers of an address and/or a token (tokentx). */
export const erc20Transfers = transfers("tokentx", "erc20Transfers", Schemas.Erc20Transfer)

/** ERC-721 transfers of an address and/or a collection (tokennfttx). */
export const erc721Transfers = transfers("tokennfttx", "erc721Transfers", Schemas.Erc721Transfer)

/** ERC-1155 transfers of an address and/or a collection (token1155tx). */
export const erc1155Transfers = transfers("token1155tx", "erc1155Transfers", Schemas.Erc1155Transfer)

/** Every holder of a token with its raw quantity (tokenholderlist, PRO), page by page. */
export const tokenHolders = (query: { readonly chainId?: number | undefined; readonly contractAddress: string }) =>
  Effect.gen(function*() {
    const operation = Plan.operations.tokenholderlist
    const { chainId, client } = yield* prepare(operation, query.chainId)
    return pagedSource(client, {
      dataset: "tokenHolders",
      operation,
      chainId,
      query,
      schema: Schemas.TokenHolder,
      fetch: (page, offset) => client.tokenholderlist({ chainId, contractAddress: query.contractAddress, page, offset })
    })
  })

/** The ERC-20 balances of an address (addresstokenbalance, PRO), page by page. */
export const tokenBalances = (query: { readonly chainId?: number | undefined; readonly address: string }) =>
  Effect.gen(function*() {
    const operation = Plan.operations.addresstokenbalance
    const { chainId, client } = yield* prepare(operation, query.chainId)
    return pagedSource(client, {
      dataset: "tokenBalances",
      operation,
      chainId,
      query,
      schema: Schemas.TokenBalance,
      fetch: (page, offset) => client.addresstokenbalance({ chainId, address: query.address, page, offset })
    })
  })

/** The NFT holdings of an address (addresstokennftbalance, PRO), page by page. */
export const nftHoldings = (query: { readonly chainId?: number | undefined; readonly address: string }) =>
  Effect.gen(function*() {
    const operation = Plan.operations.addresstokennftbalance
    const { chainId, client } = yield* prepare(operation, query.chainId)
    return pagedSource(client, {
      dataset: "nftHoldings",
      operation,
      chainId,
      query,
      schema: Schemas.NftBalance,
      fetch: (page, offset) => client.addresstokennftbalance({ chainId, address: query.address, page, offset })
    })
  })

/** The largest holders of a token (topholders, PRO; `limit` ≤ 1,000, default 1,000). */
export const topHolders = (
  query: { readonly chainId?: number | undefined; readonly contractAddress: string; readonly limit?: number | undefined }
) =>
  Effect.gen(function*() {
    const operation = Plan.operations.topholders
    const { chainId, client } = yield* prepare(operation, query.chainId)
    const limit = query.limit ?? Plan.HARD_ROW_CAP
    return singleSource({
      dataset: "topHolders",
      operation,
      chainId,
      query: { ...query, limit },
      schema: Schemas.TopHolder,
      fetch: client.topholders({ chainId, contractAddress: query.contractAddress, limit })
    })
  })

/** Daily statistics between two dates (yyyy-MM-dd). */
export interface DailyQuery {
  readonly chainId?: number | undefined
  readonly startDate: string
  readonly endDate: string
  readonly sort?: "asc" | "desc" | undefined
}

/** Gas used per day (dailygasused, PRO). */
export const dailyGasUsed = (query: DailyQuery) =>
  Effect.gen(function*() {
    const operation = Plan.operations.dailygasused
    const { chainId, client } = yield* prepare(operation, query.chainId)
    return singleSource({
      dataset: "dailyGasUsed",
      operation,
      chainId,
      query,
      schema: Schemas.DailyGasUsed,
      fetch: client.dailygasused({ chainId, startDate: query.startDate, endDate: query.endDate, ...(query.sort ? { sort: query.sort } : {}) })
    })
  })

/** Transactions per day (dailytx, PRO). */
export const dailyTxCount = (query: DailyQuery) =>
  Effect.gen(function*() {
    const operation = Plan.operations.dailytx
    const { chainId, client } = yield* prepare(operation, query.chainId)
    return singleSource({
      dataset: "dailyTxCount",
      operation,
      chainId,
      query,
      schema: Schemas.DailyTxCount,
      fetch: client.dailytx({ chainId, startDate: query.startDate, endDate: query.endDate, ...(query.sort ? { sort: query.sort } : {}) })
    })
  })

/** Every name tag of a label (exportaddresstags, Pro Plus): the downloaded file's rows. */
export const addressTags = (query: { readonly chainId?: number | undefined; readonly label: string }) =>
  Effect.gen(function*() {
    const operation = Plan.operations.exportaddresstags
    const { chainId, client } = yield* prepare(operation, query.chainId)
    return singleSource({
      dataset: "addressTags",
      operation,
      chainId,
      query,
      schema: Schemas.AddressTag,
      fetch: client.exportaddresstags({ chainId, label: query.label })
    })
  })
