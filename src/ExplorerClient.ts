/**
 * The typed explorer client: one method per operation (named as the API's action), each checking
 * its parameters and the plan's rules before sending, throttled per key, retrying transient
 * failures, classifying every answer into a typed error, and decoding records with the schemas.
 *
 * Every call is a `GET {baseUrl}/v2/api?chainid=…&module=…&action=…&…&apikey=…`.
 *
 * The implementation is in `internal/`: the call's checks (callChecks.ts, with the parameter checks of Params.ts), the transport
 * (transport.ts), the answer's classification and decoding (classify.ts, decode.ts), and the file form
 * of list records (fileRecords.ts).
 *
 * @example
 * import { ExplorerClient } from "explorer-etl"
 * import { NodeHttpClient } from "@effect/platform-node"
 * import { Effect, Redacted } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const explorer = yield* ExplorerClient.ExplorerClient
 *   const txs = yield* explorer.txlist({ address: "0x…", startBlock: 0, endBlock: 99_999_999, page: 1, offset: 100 })
 *   const logs = yield* explorer.getLogs({ chainId: 137, address: "0x…", fromBlock: 1, toBlock: "latest" })
 * })
 * // Provide the client ONCE at the edge of the program (see Throttle.ts: one limiter per key).
 * program.pipe(
 *   Effect.provide(ExplorerClient.layer({ apiKey: Redacted.make(process.env.MY_KEY ?? ""), plan: "standard" })),
 *   Effect.provide(NodeHttpClient.layerUndici))
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import type * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as Chain from "./Chain.js"
import * as ExplorerConfig from "./Config.js"
import type * as Errors from "./ExplorerError.js"
import type { Results } from "./internal/decode.js"
import * as Internal from "./internal/explorerClient.js"
import type * as Params from "./Params.js"
import type * as Plan from "./Plan.js"
import type * as Schemas from "./schemas/index.js"
import type * as Throttle from "./Throttle.js"
import * as Transport from "./internal/transport.js"

/** The parameter schema of every operation, the getLogs topic operators, an operation's parameters. */
export { Params, type ParamsOf, TopicOperators } from "./Params.js"

/** The `result` schema of every operation (records decode with `onExcessProperty: "preserve"`). */
export { Results } from "./internal/decode.js"

/**
 * The decoded result of an operation, e.g. `ResultOf<"txlist">` = `ReadonlyArray<NormalTransaction>`.
 *
 * @since 0.1.0
 * @category models
 */
export type ResultOf<K extends Plan.OperationName> = Schema.Schema.Type<(typeof Results)[K]>

/**
 * The operations whose result is a list of records (`Schema.Array` of a struct).
 *
 * @since 0.1.0
 * @category models
 */
export type ListOperationName = {
  [K in Plan.OperationName]: ResultOf<K> extends ReadonlyArray<infer R> ? R extends object ? K : never : never
}[Plan.OperationName]

/**
 * One record of a list operation, e.g. `RecordOf<"getLogs">` = `Log`.
 *
 * @since 0.1.0
 * @category models
 */
export type RecordOf<K extends ListOperationName> = ResultOf<K> extends ReadonlyArray<infer R> ? R : never

/**
 * Per-call options (the second argument of every method).
 *
 * @since 0.1.0
 * @category models
 */
export interface CallOptions {
  /**
   * Retry "Query Timeout occured…" answers (default: the client's `retry.queryTimeout`, true). The
   * streams pass `false` and split the block range instead.
   */
  readonly retryQueryTimeout?: boolean | undefined
  /** Retries of this call (default: the client's `retry.times`); `0` = a single attempt. */
  readonly retries?: number | undefined
  /**
   * Told the latency of each attempt that got an answer: milliseconds from its slot at the key's
   * limiter to the answer's last byte (what a partitioned export sizes its requests in flight by).
   */
  readonly onAnswer?: ((millis: number) => void) | undefined
  /**
   * How urgent the call is at the key's limiter (default level 0): of the calls waiting there, the
   * lowest level is sent first. The paging engine asks pages ahead of need at higher levels, so they
   * take only slots no needed page wants (see `Throttle.Priority`).
   */
  readonly priority?: Throttle.Priority | undefined
  /**
   * A list operation: send the call even when its `page × offset` is past the window the client knows
   * for its key, and learn the window from the answer (see {@link ResultWindow}). The streams ask so
   * once per key, on the free plan, before declaring a block too dense.
   */
  readonly probeWindow?: boolean | undefined
}

/**
 * A page's file lines as a decoding worker made them: the lines' UTF-8 bytes one after another, where
 * each line ends in `bytes`, and the block (the record's `blockNumber`) of each.
 *
 * @since 0.1.0
 * @category models
 */
export interface WorkerLines {
  readonly bytes: Uint8Array
  /** `ends[i]`: the offset in `bytes` just past line `i` (line 0 starts at 0). */
  readonly ends: Uint32Array
  readonly blocks: Float64Array
}

/**
 * {@link ExplorerClient.Service.fileRecordsMapped} with the file's lines made in worker threads: each
 * answer's bytes go to one of `workers` threads (the client's pool of that size, started at the first
 * page, stopped when idle and with the client), which parses and checks the records as the client
 * does and writes them as `Format.encodedEncoder(row, { format, formulaGuard })` writes them; `rows`
 * turns those lines into the call's results, in place of `map`. An answer the worker is unsure of (not
 * a plain list, torn, a record the checks refuse) comes back and is read by the main thread with `map`,
 * as without workers, with the same errors. `workers` below 1, or a `row` that is not one of `Schemas`'
 * record schemas (the worker finds it by its name there): `map` on the main thread, as without workers.
 *
 * @since 0.1.0
 * @category models
 */
export interface LineWorkers<B> {
  /** Threads of the pool (below 1: none, `map` in the main thread). */
  readonly workers: number
  readonly format: "csv" | "jsonl"
  /** CSV: the formula guard (default true), as `Format.EncoderOptions.formulaGuard`. */
  readonly formulaGuard?: boolean | undefined
  /** The call's results of a page's lines (`map`'s results, as the worker wrote them). */
  readonly rows: (lines: WorkerLines) => ReadonlyArray<B>
}

/**
 * The result window (largest `page × offset`) the client knows for an operation of its key.
 *
 * On the free plan the facts leave the list operations' window open: the service cut the free tier's
 * records per request to 1,000, and no recording says whether `page × offset` is capped at 1,000 too
 * or still at 10,000. The client assumes 1,000 until the server says: a call made with
 * `probeWindow` past it settles the window for the key — "Result window is too large … N" gives N; a
 * page served gives 10,000, the only other window the facts know.
 *
 * @since 0.1.0
 * @category models
 */
export interface ResultWindow {
  /** The largest `page × offset` a call may ask for. */
  readonly rows: number
  /**
   * `plan`: the plan's rules settle it; `assumed`: the free plan's 1,000, not yet confirmed by the
   * server; `server`: settled by the server's answer to a probe.
   */
  readonly source: "plan" | "assumed" | "server"
}

/**
 * Arguments of the escape hatch {@link ExplorerClient.Service.request}.
 *
 * @since 0.1.0
 * @category models
 */
export interface RequestArgs<A, I> {
  readonly chainId?: number | undefined
  readonly module: string
  readonly action: string
  /** Query parameters under the API's own names; `undefined` values are not sent. */
  readonly params?: Readonly<Record<string, string | number | bigint | boolean | undefined>> | undefined
  /** Decodes the answer's `result` (records keep unknown fields: `onExcessProperty: "preserve"`). */
  readonly schema: Schema.Schema<A, I, never>
}

/**
 * Counters of one client instance.
 *
 * @since 0.1.0
 * @category models
 */
export interface Stats {
  /** HTTP requests sent to the API (attempts, retries included; downloads not). */
  readonly requests: number
  /** Attempts after the first one of a call. */
  readonly retries: number
  /** Rate-limit answers received. */
  readonly rateLimited: number
}

// ---------------------------------------------------------------------------------------------
// The service
// ---------------------------------------------------------------------------------------------

type Method<K extends Plan.OperationName> = (
  params: Params.ParamsOf<K>,
  options?: CallOptions
) => Effect.Effect<ResultOf<K>, Errors.ExplorerError>
type OptionalMethod<K extends Plan.OperationName> = (
  params?: Params.ParamsOf<K>,
  options?: CallOptions
) => Effect.Effect<ResultOf<K>, Errors.ExplorerError>

/**
 * The explorer client service.
 *
 * @since 0.1.0
 * @category services
 */
export class ExplorerClient extends Context.Tag("explorer-etl/ExplorerClient")<ExplorerClient, ExplorerClient.Service>() {}

/**
 * Types of the {@link ExplorerClient} service.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace ExplorerClient {
  /**
   * One method per operation (named as the action) plus `request`, `plan`, `defaultChainId`, `stats`.
   *
   * @since 0.1.0
   * @category models
   */
  export interface Service {
    /** The plan the client checks calls against. */
    readonly plan: Plan.Plan
    /** The chain of calls that pass no `chainId`. */
    readonly defaultChainId: Chain.ChainId
    /** The result window this client knows for an operation of its key (see {@link ResultWindow}). */
    readonly resultWindow: (name: Plan.OperationName) => Effect.Effect<ResultWindow>
    /** `{baseUrl}/v2/api` (holds no key). */
    readonly apiUrl: string
    /** Counters of this instance (global Metric counters: {@link metrics}). */
    readonly stats: Effect.Effect<Stats>
    /**
     * The escape hatch: any module/action. Named operations keep their plan rules and throttle;
     * parameters are sent as given (not validated), `chainid`, `module`, `action`, `apikey` may not
     * be among them.
     */
    readonly request: <A, I>(args: RequestArgs<A, I>, options?: CallOptions) => Effect.Effect<A, Errors.ExplorerError>
    /**
     * A list operation's records as a file writes them: in the encoding of `row`, a schema of the
     * operation's record type (the operation's own record schema, or e.g. `LogFileRow` for getLogs,
     * which writes numbers in decimal). The same call, checks, errors and retries as the named method;
     * every record is checked as the method checks it, but the decoded values are never built: fields
     * that mean the same on both sides are passed through as the server wrote them, the others rewritten
     * in place, and keys `row` does not declare stay on the record (read it by `row`'s fields). What
     * exports use.
     *
     * @example
     * const rows = yield* client.fileRecords("getLogs", { address, fromBlock, toBlock }, Schemas.LogFileRow)
     * // rows[0].blockNumber === "12878196" (the API wrote "0xc48174")
     */
    readonly fileRecords: <K extends ListOperationName, I>(
      name: K,
      params: Params.ParamsOf<K>,
      row: Schema.Schema<RecordOf<K>, I, never>,
      options?: CallOptions
    ) => Effect.Effect<ReadonlyArray<I>, Errors.ExplorerError>
    /**
     * `fileRecords` handed to `map` a slice at a time (about 48 KB of the answer's text) as the answer
     * is read, and the results joined: the records of a large page are never all held at once, only
     * what `map` makes of them (exports: each row's line of text). `map` gets the records in order and
     * should be pure: an answer found along the way to need reading whole (torn, or records the checks
     * are unsure of) is given to `map` again in one piece, as is one that is not a plain list
     * (`{"status":"1",…,"result":[…]}`). Its failure ends the call with it (never retried).
     *
     * `workers`: the file's lines made in worker threads instead (see {@link LineWorkers}).
     *
     * @example
     * const lines = yield* client.fileRecordsMapped("txlist", { address }, Schemas.NormalTransaction, (rows) =>
     *   Either.right(rows.map((row) => `${row.hash}\n`)))
     */
    readonly fileRecordsMapped: <K extends ListOperationName, I, B, E>(
      name: K,
      params: Params.ParamsOf<K>,
      row: Schema.Schema<RecordOf<K>, I, never>,
      map: (records: ReadonlyArray<I>) => Either.Either<ReadonlyArray<B>, E>,
      options?: CallOptions,
      workers?: LineWorkers<B>
    ) => Effect.Effect<ReadonlyArray<B>, Errors.ExplorerError | E>
    /**
     * `GET /v2/chainlist`: the chains the explorer serves and their status (not a `/v2/api` call: no
     * envelope; throttled and retried like a download). The library's own table is `Chain.chains`.
     */
    readonly chainlist: Effect.Effect<Schemas.ChainList, Errors.ExplorerError>
    /** proxy/eth_gasPrice: wei per gas (JSON-RPC hex → bigint). */
    readonly eth_gasPrice: OptionalMethod<"eth_gasPrice">
    /** token/tokeninfo (PRO, 2/s): the token's rows (one). */
    readonly tokeninfo: Method<"tokeninfo">
    /** account/tokenbalancehistory (PRO, 2/s): raw token balance at `blockNo`. */
    readonly tokenbalancehistory: Method<"tokenbalancehistory">
    /** account/addresstokennftbalance (PRO, 2/s): NFT holdings, paged. */
    readonly addresstokennftbalance: Method<"addresstokennftbalance">
    /** token/topholders (PRO, 2/s; not on chain 999): the `limit` (≤ 1000) largest holders. */
    readonly topholders: Method<"topholders">
    /** contract/getsourcecode (every plan and chain): the source rows (unverified → a row whose ABI says so). */
    readonly getsourcecode: Method<"getsourcecode">
    /** stats/dailygasused (PRO): one row per day. */
    readonly dailygasused: Method<"dailygasused">
    /** account/balance: wei at `tag` (default latest). */
    readonly balance: Method<"balance">
    /** account/balancehistory (PRO, 2/s): wei at `blockNo`. */
    readonly balancehistory: Method<"balancehistory">
    /** account/addresstokenbalance (PRO, 2/s): ERC-20 holdings, paged. */
    readonly addresstokenbalance: Method<"addresstokenbalance">
    /** account/txlist: normal transactions of an address. */
    readonly txlist: Method<"txlist">
    /** account/txlistinternal: by address, by `txHash`, or by block range (PRO since 2026-07-01). */
    readonly txlistinternal: Method<"txlistinternal">
    /** account/tokentx: ERC-20 transfers by address and/or contract. */
    readonly tokentx: Method<"tokentx">
    /** account/tokennfttx: ERC-721 transfers by address and/or contract. */
    readonly tokennfttx: Method<"tokennfttx">
    /** account/token1155tx: ERC-1155 transfers by address and/or contract. */
    readonly token1155tx: Method<"token1155tx">
    /** account/fundedby (PRO, 2/s): the first funding of an address. */
    readonly fundedby: Method<"fundedby">
    /** block/getblocknobytime: the block before/after a timestamp. */
    readonly getblocknobytime: Method<"getblocknobytime">
    /** contract/getabi (every plan and chain): the ABI JSON text; unverified → NotOkError (`Errors.isNotVerified`). */
    readonly getabi: Method<"getabi">
    /** token/tokenholderlist (PRO): holders with raw quantities, paged. */
    readonly tokenholderlist: Method<"tokenholderlist">
    /** logs/getLogs: event logs by address and/or topics (≤ 1000 per page). */
    readonly getLogs: Method<"getLogs">
    /** stats/dailytx (PRO): transactions per day. */
    readonly dailytx: Method<"dailytx">
    /** stats/ethsupply: the native supply in wei. */
    readonly ethsupply: OptionalMethod<"ethsupply">
    /** nametag/getaddresstag (Pro Plus, 2/s): name tags and labels of an address. */
    readonly getaddresstag: Method<"getaddresstag">
    /** nametag/exportaddresstags (Pro Plus, 2/s): every tag of a label (follows the download URL, parses the CSV). */
    readonly exportaddresstags: Method<"exportaddresstags">
    /** nametag/getlabelmasterlist (Pro Plus): every label (a download URL or an inline array). */
    readonly getlabelmasterlist: OptionalMethod<"getlabelmasterlist">
    /** account/balancemulti: wei of up to 20 addresses at `tag` (default latest), one row each. */
    readonly balancemulti: Method<"balancemulti">
    /** account/tokenbalance: raw ERC-20 balance of `address` at `tag` (default latest). */
    readonly tokenbalance: Method<"tokenbalance">
    /** stats/tokensupply: raw total supply of an ERC-20 token. */
    readonly tokensupply: Method<"tokensupply">
    /** stats/ethprice: the native coin's last price in BTC and USD. */
    readonly ethprice: OptionalMethod<"ethprice">
    /** gastracker/gasoracle: safe/proposed/fast gas prices (gwei) and the base fee. */
    readonly gasoracle: OptionalMethod<"gasoracle">
    /** gastracker/gasestimate: estimated seconds to confirmation at `gasPrice` wei. */
    readonly gasestimate: Method<"gasestimate">
    /** block/getblockcountdown: blocks and seconds until `blockNo` (a past block → NotOkError). */
    readonly getblockcountdown: Method<"getblockcountdown">
    /** transaction/getstatus: whether a transaction's execution failed, and why. */
    readonly getstatus: Method<"getstatus">
    /** transaction/gettxreceiptstatus: the receipt status (`null` before Byzantium or for an unknown hash). */
    readonly gettxreceiptstatus: Method<"gettxreceiptstatus">
    /** account/getminedblocks: blocks the address proposed, newest first, with their rewards (`blocktype` blocks or uncles), paged. */
    readonly getminedblocks: Method<"getminedblocks">
    /** account/txsBeaconWithdrawal: consensus-layer withdrawals to an address (amounts in gwei), in block order. */
    readonly txsBeaconWithdrawal: Method<"txsBeaconWithdrawal">
    /** block/getblockreward: the proposer (miner) of a block and its reward. */
    readonly getblockreward: Method<"getblockreward">
    /** contract/getcontractcreation: creator and creating transaction of up to 5 contracts (unknown ones: `[]`). */
    readonly getcontractcreation: Method<"getcontractcreation">
    /**
     * contract/checkverifystatus (every plan and chain): the status of a source-code verification by the
     * GUID its submission answered, as a `VerificationState` to branch on by `_tag` — `Pending`,
     * `Verified`, `Failed` (`reason`), `AlreadyVerified`. The service sends the pending, failed and
     * already-verified answers with status "0": they are results here, never errors nor retried. A GUID
     * the service does not know is an InvalidInputError (`parameter: "guid"`).
     *
     * @example
     * const status = yield* client.checkverifystatus({ guid: "ezq878u486pzijkvvmerl6a9mzwhv6sefgvqi5tkwceejc7tvsq" })
     * switch (status._tag) { case "Pending": … case "Failed": console.error(status.reason) … }
     */
    readonly checkverifystatus: Method<"checkverifystatus">
    /**
     * contract/verifysourcecode (every plan and chain; sent as a POST form): submits a contract's source
     * for verification and answers the GUID to poll with `checkverifystatus`. A contract verified already,
     * or an address without code, is a NotOkError with the service's words. Submitting changes the
     * service's state, so a retried submission may be queued twice.
     *
     * @example
     * const guid = yield* client.verifysourcecode({ contractAddress, sourceCode, contractName: "Vault", compilerVersion: "v0.8.24+commit.e11b9ed9" })
     * const status = yield* client.checkverifystatus({ guid }) // Pending first, then Verified or Failed
     */
    readonly verifysourcecode: Method<"verifysourcecode">
    /** contract/verifyproxycontract (every plan and chain; a POST form): submits a proxy; answers the GUID for `checkproxyverification`. */
    readonly verifyproxycontract: Method<"verifyproxycontract">
    /**
     * contract/checkproxyverification: the outcome of a proxy verification — the service's sentence naming the
     * implementation found; an unverified proxy or one without an implementation is a NotOkError with its words.
     */
    readonly checkproxyverification: Method<"checkproxyverification">
    /** stats/ethsupply2: the native supply with the staked, burnt and withdrawn totals, in wei. */
    readonly ethsupply2: OptionalMethod<"ethsupply2">
    /** block/getblocktxnscount: the transactions, internal transactions and token transfers of a block, counted. */
    readonly getblocktxnscount: Method<"getblocktxnscount">
    /** stats/tokensupplyhistory (PRO, 2/s): a token's raw total supply at `blockNo`. */
    readonly tokensupplyhistory: Method<"tokensupplyhistory">
    /** stats/chainsize: a node's chain data size per day (`clientType` geth/parity, `syncMode` default/archive). */
    readonly chainsize: Method<"chainsize">
    /** stats/dailyavgblocksize (PRO): average block size per day, one row per day. */
    readonly dailyavgblocksize: Method<"dailyavgblocksize">
    /** stats/dailyavgblocktime (PRO): average seconds between blocks per day, one row per day. */
    readonly dailyavgblocktime: Method<"dailyavgblocktime">
    /** stats/dailyavggaslimit (PRO): average block gas limit per day, one row per day. */
    readonly dailyavggaslimit: Method<"dailyavggaslimit">
    /** stats/dailyavggasprice (PRO): highest, lowest and average gas price per day, one row per day. */
    readonly dailyavggasprice: Method<"dailyavggasprice">
    /** stats/dailyavghashrate (PRO): network hash rate per day (GH/s; zero after the merge), one row per day. */
    readonly dailyavghashrate: Method<"dailyavghashrate">
    /** stats/dailyavgnetdifficulty (PRO): network difficulty per day (TH; zero after the merge), one row per day. */
    readonly dailyavgnetdifficulty: Method<"dailyavgnetdifficulty">
    /** stats/dailyblkcount (PRO): blocks and their rewards per day, one row per day. */
    readonly dailyblkcount: Method<"dailyblkcount">
    /** stats/dailyblockrewards (PRO): block rewards per day, one row per day. */
    readonly dailyblockrewards: Method<"dailyblockrewards">
    /** stats/dailynetutilization (PRO): gas used over the gas limit per day, one row per day. */
    readonly dailynetutilization: Method<"dailynetutilization">
    /** stats/dailynewaddress (PRO): new addresses per day, one row per day. */
    readonly dailynewaddress: Method<"dailynewaddress">
    /** stats/dailytxnfee (PRO): transaction fees per day, one row per day. */
    readonly dailytxnfee: Method<"dailytxnfee">
    /** stats/dailyuncleblkcount (PRO): uncle blocks and their rewards per day, one row per day. */
    readonly dailyuncleblkcount: Method<"dailyuncleblkcount">
    /** stats/ethdailymarketcap (PRO): ether supply, market cap and price per day, one row per day. */
    readonly ethdailymarketcap: Method<"ethdailymarketcap">
    /** stats/ethdailyprice (PRO): ether price per day, one row per day. */
    readonly ethdailyprice: Method<"ethdailyprice">
    /** stats/nodecount: the network's node count on the latest day. */
    readonly nodecount: OptionalMethod<"nodecount">
    /** getapilimit/getapilimit: the key's credits (calls) used and left today. */
    readonly getapilimit: OptionalMethod<"getapilimit">
    /** proxy/eth_blockNumber: the latest block number. */
    readonly eth_blockNumber: OptionalMethod<"eth_blockNumber">
    /** proxy/eth_getBlockByNumber: the block at `tag` (hashes, or whole transactions with `boolean: true`); `null` past the latest. */
    readonly eth_getBlockByNumber: Method<"eth_getBlockByNumber">
    /** proxy/eth_getUncleByBlockNumberAndIndex: an uncle of a block, `null` if it has none (every proof-of-stake block). */
    readonly eth_getUncleByBlockNumberAndIndex: Method<"eth_getUncleByBlockNumberAndIndex">
    /** proxy/eth_getBlockTransactionCountByNumber: how many transactions a block holds (`null` past the latest). */
    readonly eth_getBlockTransactionCountByNumber: Method<"eth_getBlockTransactionCountByNumber">
    /** proxy/eth_getTransactionByHash: a transaction, `null` for an unknown hash. */
    readonly eth_getTransactionByHash: Method<"eth_getTransactionByHash">
    /** proxy/eth_getTransactionByBlockNumberAndIndex: the transaction at `index` of a block, or `null`. */
    readonly eth_getTransactionByBlockNumberAndIndex: Method<"eth_getTransactionByBlockNumberAndIndex">
    /** proxy/eth_getTransactionCount: transactions sent by `address` up to `tag` (its next nonce). */
    readonly eth_getTransactionCount: Method<"eth_getTransactionCount">
    /** proxy/eth_sendRawTransaction: broadcasts a signed transaction, gives its hash; a node refusal is a JsonRpcError. */
    readonly eth_sendRawTransaction: Method<"eth_sendRawTransaction">
    /** proxy/eth_getTransactionReceipt: a receipt with its logs, `null` for an unknown hash. */
    readonly eth_getTransactionReceipt: Method<"eth_getTransactionReceipt">
    /** proxy/eth_call: a call's return data; a revert is a JsonRpcError (`code` 3 and `data` when the contract gave a reason). */
    readonly eth_call: Method<"eth_call">
    /** proxy/eth_getCode: the code at `address` (`"0x"` for an account without code). */
    readonly eth_getCode: Method<"eth_getCode">
    /** proxy/eth_getStorageAt: one 32-byte storage slot of a contract. */
    readonly eth_getStorageAt: Method<"eth_getStorageAt">
    /** proxy/eth_estimateGas: the gas a transaction would use; a revert is a JsonRpcError. */
    readonly eth_estimateGas: Method<"eth_estimateGas">
  }
}

// ---------------------------------------------------------------------------------------------
// Metrics
// ---------------------------------------------------------------------------------------------

/**
 * Global counters of every client in the process (per instance: `stats`).
 *
 * @since 0.1.0
 * @category metrics
 */
export const metrics = Transport.metrics

// ---------------------------------------------------------------------------------------------
// Constructors and layers
// ---------------------------------------------------------------------------------------------

/**
 * Builds the client from a resolved configuration. Needs an `HttpClient` (the library never picks
 * the platform) and a `Scope` (the key's limiter lives as long as the client).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeWithConfig: (
  config: ExplorerConfig.ExplorerConfig
) => Effect.Effect<ExplorerClient.Service, never, HttpClient.HttpClient | Scope.Scope> = Internal.make

/**
 * Builds the client from options (defaults filled in). Invalid options (a bad base URL, an unknown
 * default chain, a non-positive rate…) are a defect: they are programming errors, not runtime ones.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: ExplorerConfig.Options = {}
): Effect.Effect<ExplorerClient.Service, never, HttpClient.HttpClient | Scope.Scope> =>
  Either.match(ExplorerConfig.resolve(options), {
    onLeft: (message) => Effect.dieMessage(`explorer-etl: invalid client options: ${message}`),
    onRight: makeWithConfig
  })

/**
 * The client as a layer. Provide it once, at the edge of the program: every fiber, stream and
 * chain then shares the key's limiter (two layers for one key share it too — see Throttle.ts —
 * but one layer is cheaper and clearer).
 *
 * @example
 * import { ExplorerClient } from "explorer-etl"
 * import { NodeHttpClient } from "@effect/platform-node"
 * import { Effect, Redacted } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const explorer = yield* ExplorerClient.ExplorerClient
 *   return yield* explorer.txlist({ address: "0xdac17f958d2ee523a2206206994597c13d831ec7", page: 1, offset: 100 })
 * })
 * program.pipe(
 *   Effect.provide(ExplorerClient.layer({ apiKey: Redacted.make("MY-KEY"), plan: "standard" })),
 *   Effect.provide(NodeHttpClient.layerUndici)
 * )
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: ExplorerConfig.Options = {}): Layer.Layer<ExplorerClient, never, HttpClient.HttpClient> =>
  Layer.scoped(ExplorerClient, make(options))

/**
 * The client as a layer configured from a `Config` — by default {@link ExplorerConfig.options},
 * the environment (EXPLORER_API_KEY, then ETHERSCAN_API_KEY; EXPLORER_BASE_URL, EXPLORER_PLAN,
 * EXPLORER_CHAIN, EXPLORER_TIMEOUT, EXPLORER_RETRIES, EXPLORER_CALLS_PER_SECOND…). A bad value fails
 * the layer with a `ConfigError`; a missing key does not (calls fail with InvalidApiKeyError). Options
 * that are no settings, such as `transformClient`, are added with `Config.map`.
 *
 * @example
 * ExplorerClient.layerConfig(Config.map(Config.options, (options) => ({ ...options, transformClient })))
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  config: Config.Config.Wrap<ExplorerConfig.Options> = ExplorerConfig.options
): Layer.Layer<ExplorerClient, ConfigError.ConfigError, HttpClient.HttpClient> =>
  Layer.scoped(
    ExplorerClient,
    Effect.gen(function*() {
      const options = yield* Config.unwrap(config)
      const resolved = yield* Either.match(ExplorerConfig.resolve(options), {
        onLeft: (message) => Effect.fail(ConfigError.InvalidData([], message)),
        onRight: Effect.succeed
      })
      return yield* makeWithConfig(resolved)
    })
  )
