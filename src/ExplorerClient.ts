/**
 * The typed explorer client: one method per operation (named as the API's action), each checking
 * its parameters and the plan's rules before sending, throttled per key, retrying transient
 * failures, classifying every answer into a typed error, and decoding records with the schemas.
 *
 * Every call is a `GET {baseUrl}/v2/api?chainid=…&module=…&action=…&…&apikey=…`.
 *
 * @example
 * import { Client, ExplorerClient } from "explorer-etl"
 * import { NodeHttpClient } from "@effect/platform-node"
 * import { Effect, Layer, Redacted } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const explorer = yield* ExplorerClient
 *   const txs = yield* explorer.txlist({ address: "0x…", startBlock: 0, endBlock: 99_999_999, page: 1, offset: 100 })
 *   const logs = yield* explorer.getLogs({ chainId: 137, address: "0x…", fromBlock: 1, toBlock: "latest" })
 * })
 * // Provide the client ONCE at the edge of the program (see Throttle.ts: one limiter per key).
 * program.pipe(
 *   Effect.provide(Client.layer({ apiKey: Redacted.make(process.env.MY_KEY ?? ""), plan: "standard" })),
 *   Effect.provide(NodeHttpClient.layerUndici))
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Chain from "./Chain.js"
import * as ExplorerConfig from "./Config.js"
import * as Errors from "./ExplorerError.js"
import * as Classify from "./internal/classify.js"
import * as Params from "./internal/params.js"
import * as Plan from "./Plan.js"
import * as Schemas from "./schemas/index.js"
import * as Throttle from "./Throttle.js"

/** The parameter schema of every operation, the getLogs topic operators, an operation's parameters. */
export { Params, type ParamsOf, TopicOperators } from "./internal/params.js"

/** The `result` schema of every operation (records decode with `onExcessProperty: "preserve"`). */
export const Results = {
  eth_gasPrice: Schemas.GasPrice,
  tokeninfo: Schema.Array(Schemas.TokenInfo),
  tokenbalancehistory: Schemas.WeiAmount,
  addresstokennftbalance: Schema.Array(Schemas.NftBalance),
  topholders: Schema.Array(Schemas.TopHolder),
  getsourcecode: Schema.Array(Schemas.ContractSource),
  dailygasused: Schema.Array(Schemas.DailyGasUsed),
  balance: Schemas.WeiAmount,
  balancehistory: Schemas.WeiAmount,
  addresstokenbalance: Schema.Array(Schemas.TokenBalance),
  txlist: Schema.Array(Schemas.NormalTransaction),
  txlistinternal: Schema.Array(Schemas.InternalTransaction),
  tokentx: Schema.Array(Schemas.Erc20Transfer),
  tokennfttx: Schema.Array(Schemas.Erc721Transfer),
  token1155tx: Schema.Array(Schemas.Erc1155Transfer),
  fundedby: Schemas.FundedBy,
  getblocknobytime: Schemas.BlockNumberResult,
  getabi: Schemas.AbiJson,
  tokenholderlist: Schema.Array(Schemas.TokenHolder),
  getLogs: Schema.Array(Schemas.Log),
  dailytx: Schema.Array(Schemas.DailyTxCount),
  ethsupply: Schemas.EtherSupply,
  getaddresstag: Schema.Array(Schemas.AddressTag),
  exportaddresstags: Schema.Array(Schemas.AddressTag),
  getlabelmasterlist: Schema.Array(Schemas.LabelMaster)
} as const satisfies Record<Plan.OperationName, Schema.Schema.AnyNoContext>

/** The decoded result of an operation, e.g. `ResultOf<"txlist">` = `ReadonlyArray<NormalTransaction>`. */
export type ResultOf<K extends Plan.OperationName> = Schema.Schema.Type<(typeof Results)[K]>

/** The operations whose result is a list of records (`Schema.Array` of a struct). */
export type ListOperationName = {
  [K in Plan.OperationName]: ResultOf<K> extends ReadonlyArray<infer R> ? R extends object ? K : never : never
}[Plan.OperationName]

/** One record of a list operation, e.g. `RecordOf<"getLogs">` = `Log`. */
export type RecordOf<K extends ListOperationName> = ResultOf<K> extends ReadonlyArray<infer R> ? R : never

/** The record struct of a list result (`Schema.Array(Struct)`), if that is what the result schema is. */
const listRecord = (schema: Schema.Schema.Any): Schema.Struct<Schema.Struct.Fields> | undefined => {
  const value: unknown = (schema as { readonly value?: unknown }).value
  return schema.ast._tag === "TupleType" && Schema.isSchema(value) && "fields" in value && value.ast._tag === "TypeLiteral"
    ? (value as Schema.Struct<Schema.Struct.Fields>)
    : undefined
}

/**
 * The fast decoders of the list results (the hot path of every export): the schemas' own checks and
 * conversions in one loop, unknown fields kept as `onExcessProperty: "preserve"` keeps them; `undefined`
 * (anything unusual) sends the answer through the schema, which gives the usual errors.
 */
const fastResults: Partial<Record<Plan.OperationName, (input: unknown) => ReadonlyArray<unknown> | undefined>> = Object
  .fromEntries(
    Object.entries(Results).flatMap(([name, schema]) => {
      const row = listRecord(schema)
      return row === undefined ? [] : [[name, Schemas.recordsFastPath(row, { onExcessProperty: "preserve" }).decode]]
    })
  )

/** Per-call options (the second argument of every method). */
export interface CallOptions {
  /**
   * Retry "Query Timeout occured…" answers (default: the client's `retry.queryTimeout`, true). The
   * streams pass `false` and split the block range instead.
   */
  readonly retryQueryTimeout?: boolean | undefined
  /** Retries of this call (default: the client's `retry.times`); `0` = a single attempt. */
  readonly retries?: number | undefined
}

/** Arguments of the escape hatch {@link ExplorerClient.Service.request}. */
export interface RequestArgs<A, I> {
  readonly chainId?: number | undefined
  readonly module: string
  readonly action: string
  /** Query parameters under the API's own names; `undefined` values are not sent. */
  readonly params?: Readonly<Record<string, string | number | bigint | boolean | undefined>> | undefined
  /** Decodes the answer's `result` (records keep unknown fields: `onExcessProperty: "preserve"`). */
  readonly schema: Schema.Schema<A, I, never>
}

/** Counters of one client instance. */
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

/** The explorer client service. */
export class ExplorerClient extends Context.Tag("explorer-etl/ExplorerClient")<ExplorerClient, ExplorerClient.Service>() {}

/** Types of the {@link ExplorerClient} service. */
export declare namespace ExplorerClient {
  /** One method per operation (named as the action) plus `request`, `plan`, `defaultChainId`, `stats`. */
  export interface Service {
    /** The plan the client checks calls against. */
    readonly plan: Plan.Plan
    /** The chain of calls that pass no `chainId`. */
    readonly defaultChainId: Chain.ChainId
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
     * @example
     * const lines = yield* client.fileRecordsMapped("txlist", { address }, Schemas.NormalTransaction, (rows) =>
     *   Either.right(rows.map((row) => `${row.hash}\n`)))
     */
    readonly fileRecordsMapped: <K extends ListOperationName, I, B, E>(
      name: K,
      params: Params.ParamsOf<K>,
      row: Schema.Schema<RecordOf<K>, I, never>,
      map: (records: ReadonlyArray<I>) => Either.Either<ReadonlyArray<B>, E>,
      options?: CallOptions
    ) => Effect.Effect<ReadonlyArray<B>, Errors.ExplorerError | E>
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
  }
}

// ---------------------------------------------------------------------------------------------
// Metrics
// ---------------------------------------------------------------------------------------------

/** Global counters of every client in the process (per instance: `stats`). */
export const metrics = {
  requests: Metric.counter("explorer_client_requests_total", {
    description: "HTTP requests sent to the explorer API (retries included)",
    incremental: true
  }),
  retries: Metric.counter("explorer_client_retries_total", {
    description: "Attempts after the first one of a call",
    incremental: true
  }),
  rateLimited: Metric.counter("explorer_client_rate_limited_total", {
    description: "Rate-limit answers received from the explorer API",
    incremental: true
  })
}

// ---------------------------------------------------------------------------------------------
// Implementation
// ---------------------------------------------------------------------------------------------

/** What a slice reader made of a list answer: the mapped records, or the mapping's own failure. */
type Sliced<B = unknown, E = unknown> =
  | { readonly _tag: "Sliced"; readonly rows: ReadonlyArray<B> }
  | { readonly _tag: "SliceFailed"; readonly error: E }

/** Reads a body's records slice by slice, or gives undefined to have the answer read whole. */
type SliceReader<S> = (body: string) => S | undefined

/** The opening of a list answer as the API writes it (a message without escapes). */
const LIST_ANSWER = /^\{"status":"1","message":"[^"\\]*","result":\[/

/**
 * The text of records parsed at a time: their objects die young, before the next slice is parsed. Kept
 * under V8's large-object size (128 KB), so the slice's text (copied once when `[` and `]` are added)
 * is a young-generation string: with 256 KB slices a 1,000-row getLogs page took ~45 % longer to parse
 * than in one piece, with 48 KB about as long.
 */
const SLICE_CHARS = 48 * 1024

const isSpace = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9

/**
 * The records of a list answer `{"status":"1","message":"…","result":[…]}`, parsed about 48 KB of text
 * at a time and handed to `each` in order, which gives their mapped form, its own failure, or undefined
 * (give up). A slice ends where one record's `}` meets the next one's `{` (`},{`). Such a cut inside a
 * string or a nested value leaves the slice unparseable (an open string or bracket), so when every slice
 * parses, the slices are exactly the records of the whole answer. Undefined (read the answer whole,
 * which gives the usual classification and errors) when the body is not that shape, a slice does not
 * parse (a torn or malformed body), or `each` gives up.
 */
const readSlices = <B, E>(
  body: string,
  each: (records: Array<unknown>) => Either.Either<ReadonlyArray<B>, E> | undefined
): Sliced<B, E> | undefined => {
  const head = LIST_ANSWER.exec(body)
  if (head === null) return undefined
  let end = body.length
  while (end > 0 && isSpace(body.charCodeAt(end - 1))) end--
  // `]}` closes the list and the answer.
  if (end < 2 || body.charCodeAt(end - 1) !== 125 || body.charCodeAt(end - 2) !== 93) return undefined
  end -= 2
  const out: Array<B> = []
  let at = head[0].length
  while (at < end) {
    const cut = body.indexOf("},{", at + SLICE_CHARS)
    const stop = cut < 0 || cut >= end ? end : cut + 1
    let records: unknown
    try {
      records = JSON.parse(`[${body.slice(at, stop)}]`)
    } catch {
      return undefined
    }
    const mapped = each(records as Array<unknown>)
    if (mapped === undefined) return undefined
    if (Either.isLeft(mapped)) return { _tag: "SliceFailed", error: mapped.left }
    for (const b of mapped.right) out.push(b)
    at = stop + 1
  }
  return { _tag: "Sliced", rows: out }
}

const MAX_DETAIL = 500
const clip = (text: string): string => (text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}…` : text)

/** A redactor: removes the key (raw and URL-encoded) and the query of any URL from a text. */
const makeScrub = (apiKey: Option.Option<Redacted.Redacted<string>>) => (text: string): string => {
  let out = text.replace(/(https?:\/\/[^\s"'<>?#]*)[?#][^\s"'<>]*/gi, "$1")
  if (Option.isSome(apiKey)) {
    const key = Redacted.value(apiKey.value)
    if (key !== "") {
      out = out.split(key).join("<redacted>")
      const encoded = encodeURIComponent(key)
      if (encoded !== key) out = out.split(encoded).join("<redacted>")
    }
  }
  return out
}

/** A `code` ("ECONNRESET", "UND_ERR_SOCKET"…) and the innermost message of an error chain. */
const describeCause = (cause: unknown): { code?: string; message?: string } => {
  let current: unknown = cause
  let code: string | undefined
  let message: string | undefined
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const record = current as { code?: unknown; message?: unknown; cause?: unknown }
    if (typeof record.code === "string" && /^[A-Z0-9_]+$/.test(record.code)) code = record.code
    if (typeof record.message === "string" && record.message !== "") message = record.message
    current = record.cause
  }
  return { ...(code !== undefined ? { code } : {}), ...(message !== undefined ? { message } : {}) }
}

interface Call {
  readonly chainId: Chain.ChainId
  readonly module: string
  readonly action: string
  readonly operation: Plan.Operation | undefined
  readonly wire: Params.Wire
}

/**
 * Builds the client from a resolved configuration. Needs an `HttpClient` (the library never picks
 * the platform) and a `Scope` (the key's limiter lives as long as the client).
 */
export const makeWithConfig = (
  config: ExplorerConfig.ExplorerConfig
): Effect.Effect<ExplorerClient.Service, never, HttpClient.HttpClient | Scope.Scope> =>
  Effect.gen(function*() {
    // No trace headers to a third-party API, and no platform span: it would record url.full and
    // url.query — with the API key in them. Our own spans carry chain/module/action only.
    const http = (yield* HttpClient.HttpClient).pipe(
      HttpClient.withTracerPropagation(false),
      HttpClient.withTracerDisabledWhen(() => true)
    )
    const throttle = yield* Throttle.make({
      apiUrl: config.apiUrl,
      apiKey: config.apiKey,
      callsPerSecond: config.rate.callsPerSecond,
      throttledPerSecond: config.rate.throttledPerSecond,
      safetyMargin: config.rate.safetyMargin
    })
    const counters = yield* Ref.make<Stats>({ requests: 0, retries: 0, rateLimited: 0 })
    const scrub = makeScrub(config.apiKey)
    const apiOrigin = new URL(config.apiUrl).origin
    const apiPath = new URL(config.apiUrl).pathname
    const plan = config.plan

    const contextOf = (call: Pick<Call, "chainId" | "module" | "action">): Classify.CallContext => ({
      chainId: call.chainId,
      module: call.module,
      action: call.action
    })

    const transportError = (call: Call, error: HttpClientError.HttpClientError): Errors.TransportError => {
      // Copy nothing of the request (its URL holds the key): only a reason, a code, a scrubbed message.
      const { code, message } = describeCause(error.cause)
      const what = error._tag === "RequestError"
        ? error.reason === "Transport" ? "network error" : `could not send the request (${error.reason})`
        : `could not read the answer (${error.reason})`
      const extra = [code, message !== undefined ? clip(scrub(message)) : undefined].filter((s) => s !== undefined)
      return new Errors.TransportError({
        ...contextOf(call),
        detail: extra.length > 0 ? `${what}: ${extra.join(" ")}` : what
      })
    }

    /** One attempt: wait for the key's slot, send, read, classify. */
    const sendOnce = <S = never>(call: Call, throttled: boolean, attempt: number, slices?: SliceReader<S>) =>
      Effect.gen(function*() {
        yield* throttle.acquire(throttled)
        yield* Ref.update(counters, (s) => ({ ...s, requests: s.requests + 1 }))
        yield* Metric.increment(metrics.requests)
        const key = Option.getOrThrow(config.apiKey)
        const request = HttpClientRequest.get(config.apiUrl).pipe(
          HttpClientRequest.setUrlParams({
            chainid: String(call.chainId),
            module: call.module,
            action: call.action,
            ...call.wire,
            apikey: Redacted.value(key)
          }),
          HttpClientRequest.acceptJson
        )
        const raw = yield* http.execute(request).pipe(
          Effect.flatMap((response) =>
            Effect.map(response.text, (body) => ({
              status: response.status,
              contentType: response.headers["content-type"],
              body
            }))
          ),
          Effect.mapError((error) => transportError(call, error)),
          Effect.timeoutFail({
            duration: config.requestTimeout,
            onTimeout: () =>
              new Errors.TransportError({
                ...contextOf(call),
                detail: `no answer within ${Duration.format(config.requestTimeout)}`
              })
          })
        )
        yield* Effect.annotateCurrentSpan("http.response.status_code", raw.status)
        if (slices !== undefined && raw.status >= 200 && raw.status < 300) {
          const sliced = slices(raw.body)
          if (sliced !== undefined) return sliced
        }
        const classified = Classify.classifyResponse(
          {
            ...contextOf(call),
            plan,
            requiredPlan: call.operation !== undefined ? Plan.requiredPlan(call.operation, call.wire) : undefined
          },
          raw,
          { scrub }
        )
        if (Either.isLeft(classified) && classified.left._tag === "RateLimitError") {
          yield* Ref.update(counters, (s) => ({ ...s, rateLimited: s.rateLimited + 1 }))
          yield* Metric.increment(metrics.rateLimited)
          // Slow every call of the key down for a while; a daily limit is not waited out.
          if (classified.left.scope !== "day") yield* throttle.pause(config.rate.rateLimitPause)
        }
        return yield* classified
      }).pipe(
        Effect.withSpan("ExplorerClient.http", {
          kind: "client",
          attributes: {
            "http.request.method": "GET",
            "server.address": apiOrigin,
            "url.path": apiPath,
            "explorer.chain_id": call.chainId,
            "explorer.module": call.module,
            "explorer.action": call.action,
            "explorer.attempt": attempt
          }
        })
      )

    const retrySchedule = (times: number) =>
      Schedule.exponential(config.retry.baseDelay, 2).pipe(
        Schedule.either(Schedule.spaced(config.retry.maxDelay)),
        Schedule.jittered,
        Schedule.intersect(Schedule.recurs(times))
      )

    /** Sends one call with the retry policy; every attempt is throttled and counted. */
    const send = (call: Call, options: CallOptions | undefined): Effect.Effect<Classify.Answer, Errors.ExplorerError> =>
      sendWith(call, options)

    /** `send`, reading a list answer's records with `slices` when it can (see fileRecordsMapped). */
    const sendWith = <S = never>(
      call: Call,
      options: CallOptions | undefined,
      slices?: SliceReader<S>
    ): Effect.Effect<Classify.Answer | S, Errors.ExplorerError> =>
      Effect.gen(function*() {
        const throttled = call.operation?.throttled ?? false
        const retryQueryTimeout = options?.retryQueryTimeout ?? config.retry.queryTimeout
        const times = options?.retries ?? config.retry.times
        const attempts = yield* Ref.make(0)
        const attempt = Effect.gen(function*() {
          const n = yield* Ref.getAndUpdate(attempts, (i) => i + 1)
          if (n > 0) {
            yield* Ref.update(counters, (s) => ({ ...s, retries: s.retries + 1 }))
            yield* Metric.increment(metrics.retries)
          }
          return yield* sendOnce(call, throttled, n + 1, slices)
        })
        return yield* attempt.pipe(
          Effect.tapError((error) =>
            Errors.isTransient(error)
              ? Effect.logDebug(`explorer-etl: ${error._tag} on ${call.module}/${call.action} (chain ${call.chainId})`).pipe(
                Effect.annotateLogs({ detail: error.detail })
              )
              : Effect.void
          ),
          Effect.retry({
            schedule: retrySchedule(Math.max(0, times)),
            while: (error) =>
              Errors.isTransient(error) && (error._tag !== "QueryTimeoutError" || retryQueryTimeout)
          })
        )
      })

    const invalid = (ctx: Classify.CallContext, p: Params.Problem) =>
      new Errors.InvalidInputError({ ...ctx, parameter: p.parameter, detail: p.detail })

    /** Resolves and checks the chain id: a number the API serves, else refuse before sending. */
    const resolveChain = (chainId: unknown, module: string, action: string) =>
      Effect.gen(function*() {
        if (chainId === undefined) return config.defaultChainId
        if (typeof chainId !== "number" || !Number.isSafeInteger(chainId) || chainId <= 0) {
          return yield* new Errors.InvalidInputError({
            chainId: config.defaultChainId,
            module,
            action,
            parameter: "chainId",
            detail: "must be a positive integer chain id"
          })
        }
        if (!Chain.isSupported(chainId)) {
          return yield* new Errors.UnsupportedChainError({
            chainId,
            module,
            action,
            detail: `chain ${chainId} is not served by the explorer API (unknown or deprecated chain id)`
          })
        }
        return Chain.ChainId.make(chainId)
      })

    /** The plan's rules, checked before sending (Part A.1, A.5, A.6). */
    const planCheck = (call: Call): Effect.Effect<void, Errors.ExplorerError> =>
      Effect.gen(function*() {
        const ctx = contextOf(call)
        const operation = call.operation
        if (operation !== undefined) {
          const required = Plan.requiredPlan(operation, call.wire)
          if (!Plan.atLeast(plan, required)) {
            return yield* new Errors.PlanTierError({
              ...ctx,
              plan,
              requiredPlan: required,
              detail: `${call.action} is not available on plan ${plan}`
            })
          }
          if (plan === "free" && !operation.allChains && !Chain.isFreeTier(call.chainId)) {
            return yield* new Errors.ChainNotOnPlanError({
              ...ctx,
              plan,
              detail: `${Chain.label(call.chainId)} is not open to free keys (only getsourcecode and getabi are)`
            })
          }
          if (operation.action === "topholders" && call.chainId === Chain.HYPEREVM) {
            return yield* new Errors.UnsupportedChainError({
              ...ctx,
              detail: `topholders does not support ${Chain.label(call.chainId)}`
            })
          }
        }
        if (Option.isNone(config.apiKey)) {
          return yield* new Errors.InvalidApiKeyError({
            ...ctx,
            detail: "no API key configured (set EXPLORER_API_KEY or ETHERSCAN_API_KEY, or pass apiKey)"
          })
        }
      })

    const decodeWith = <A, I>(ctx: Classify.CallContext, schema: Schema.Schema<A, I, never>, value: unknown) =>
      Schema.decodeUnknown(schema, { onExcessProperty: "preserve" })(value).pipe(
        Effect.mapError((error) =>
          new Errors.DecodeError({
            ...ctx,
            transient: false,
            detail: clip(scrub(`unexpected result: ${ParseResult.TreeFormatter.formatErrorSync(error)}`))
          })
        )
      )

    /**
     * Decodes an answer: an empty answer is `[]` where the schema takes it, else a NotOkError. `fast`:
     * the fast decoder of a list result, tried first (it gives up on anything it is not sure of).
     */
    const decodeAnswer = <A, I>(
      ctx: Classify.CallContext,
      schema: Schema.Schema<A, I, never>,
      answer: Classify.Answer,
      fast?: ((input: unknown) => A | undefined) | undefined
    ): Effect.Effect<A, Errors.ExplorerError> => {
      if (answer._tag === "Result") {
        const decoded = fast?.(answer.result)
        return decoded !== undefined ? Effect.succeed(decoded) : decodeWith(ctx, schema, answer.result)
      }
      return Schema.decodeUnknown(schema)([]).pipe(
        Effect.mapError(() =>
          new Errors.NotOkError({ ...ctx, detail: answer.serverMessage, serverMessage: answer.serverMessage })
        )
      )
    }

    /** Follows a download link (exportaddresstags, getlabelmasterlist) and returns the file's text. */
    const download = (call: Call, link: string, options: CallOptions | undefined) =>
      Effect.gen(function*() {
        const ctx = contextOf(call)
        let url: URL
        try {
          url = new URL(link.trim())
        } catch {
          return yield* new Errors.DecodeError({ ...ctx, transient: false, detail: "the answer is neither records nor a download link" })
        }
        if (url.protocol !== "https:" && url.protocol !== "http:") {
          return yield* new Errors.DecodeError({ ...ctx, transient: false, detail: "the download link is not an http(s) URL" })
        }
        // The key goes only to the API's own origin; a pre-signed link elsewhere needs none.
        const sameOrigin = url.origin === apiOrigin
        let request = HttpClientRequest.get(link.trim())
        if (sameOrigin && !url.searchParams.has("apikey")) {
          request = HttpClientRequest.setUrlParam(request, "apikey", Redacted.value(Option.getOrThrow(config.apiKey)))
        }
        const once = Effect.gen(function*() {
          if (sameOrigin) yield* throttle.acquire(false)
          const raw = yield* http.execute(request).pipe(
            Effect.flatMap((response) => Effect.map(response.text, (body) => ({ status: response.status, body }))),
            Effect.mapError((error) => transportError(call, error)),
            Effect.timeoutFail({
              duration: config.requestTimeout,
              onTimeout: () =>
                new Errors.TransportError({ ...ctx, detail: `download: no answer within ${Duration.format(config.requestTimeout)}` })
            })
          )
          if (raw.status < 200 || raw.status >= 300) {
            return yield* new Errors.TransportError({ ...ctx, status: raw.status, detail: `download failed: HTTP status ${raw.status}` })
          }
          return raw.body
        }).pipe(Effect.withSpan("ExplorerClient.download", { kind: "client", attributes: { "explorer.action": call.action } }))
        return yield* once.pipe(
          Effect.retry({
            schedule: retrySchedule(Math.max(0, options?.retries ?? config.retry.times)),
            while: Errors.isTransient
          })
        )
      })

    const parseCsv = <A>(ctx: Classify.CallContext, parse: (text: string) => Effect.Effect<A, ParseResult.ParseError>, text: string) =>
      parse(text).pipe(
        Effect.mapError((error) =>
          new Errors.DecodeError({
            ...ctx,
            transient: false,
            detail: clip(scrub(`unexpected download: ${ParseResult.TreeFormatter.formatErrorSync(error)}`))
          })
        )
      )

    /**
     * The pipeline of a named operation: check, send, then `decode` the answer (`Rows`: the rows of a
     * followed download link, already decoded).
     */
    const pipeline = <K extends Plan.OperationName, Out, E = never, S extends Sliced = never>(
      name: K,
      decode: (
        ctx: Classify.CallContext,
        got:
          | { readonly _tag: "Answer"; readonly answer: Classify.Answer }
          | { readonly _tag: "Rows"; readonly rows: ResultOf<K> }
          | S
      ) => Effect.Effect<Out, Errors.ExplorerError | E>,
      slices?: SliceReader<S>
    ) => {
      const op: Plan.Operation = Plan.operations[name]
      return (params: Params.ParamsOf<K> | undefined, options: CallOptions | undefined): Effect.Effect<Out, Errors.ExplorerError | E> =>
        Effect.gen(function*() {
          const input: Readonly<Record<string, unknown>> = params ?? {}
          const chainId = yield* resolveChain(input.chainId, op.module, op.action)
          const ctx: Classify.CallContext = { chainId, module: op.module, action: op.action }
          yield* Effect.annotateCurrentSpan("explorer.chain_id", chainId)
          const decoded = yield* Either.mapLeft(Params.check(name, input), (problem) => invalid(ctx, problem))
          const call: Call = { chainId, module: op.module, action: op.action, operation: op, wire: Params.toWire(decoded) }
          yield* planCheck(call)
          const window = Params.windowCheck(plan, op, decoded)
          if (Option.isSome(window)) return yield* invalid(ctx, window.value)
          const answer = yield* sendWith(call, options, slices)
          if (answer._tag === "Sliced" || answer._tag === "SliceFailed") return yield* decode(ctx, answer)
          if ((name === "exportaddresstags" || name === "getlabelmasterlist") && answer._tag === "Result" &&
            typeof answer.result === "string") {
            const text = yield* download(call, answer.result, options)
            const rows = name === "exportaddresstags"
              ? yield* parseCsv(ctx, Schemas.parseAddressTagsCsv, text)
              : yield* parseCsv(ctx, Schemas.parseLabelMasterCsv, text)
            return yield* decode(ctx, { _tag: "Rows", rows: rows as ResultOf<K> })
          }
          return yield* decode(ctx, { _tag: "Answer", answer })
        }).pipe(
          Effect.withSpan(`ExplorerClient.${name}`, {
            attributes: { "explorer.module": op.module, "explorer.action": op.action }
          })
        )
    }

    /** A named operation: its result decoded by its schema (the fast decoder first for lists). */
    const operation = <K extends Plan.OperationName>(name: K) => {
      const resultSchema = Results[name] as unknown as Schema.Schema<ResultOf<K>, unknown, never>
      const fastResult = fastResults[name] as ((input: unknown) => ResultOf<K> | undefined) | undefined
      const run = pipeline(name, (ctx, got) =>
        got._tag === "Rows" ? Effect.succeed(got.rows) : decodeAnswer(ctx, resultSchema, got.answer, fastResult))
      return (params?: Params.ParamsOf<K>, options?: CallOptions) => run(params, options)
    }

    /** Per operation and file schema, built once: the transcoder, and the schemas' way for what it leaves. */
    const fileCodecs = new Map<string, Map<unknown, {
      readonly transcode: ((input: unknown) => ReadonlyArray<unknown> | undefined) | undefined
      readonly encodeRows: (rows: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<unknown>, ParseResult.ParseError>
    }>>()
    const fileCodecOf = (name: ListOperationName, row: Schema.Schema.AnyNoContext) => {
      let byRow = fileCodecs.get(name)
      if (byRow === undefined) fileCodecs.set(name, byRow = new Map())
      let codec = byRow.get(row)
      if (codec === undefined) {
        const wire = listRecord(Results[name])
        const file = "fields" in row && row.ast._tag === "TypeLiteral" ? (row as unknown as Schema.Struct<Schema.Struct.Fields>) : undefined
        codec = {
          transcode: wire === undefined || file === undefined ? undefined : Schemas.transcodeRecords(wire, file),
          encodeRows: Schema.encode(Schema.Array(row as Schema.Schema<unknown, unknown, never>))
        }
        byRow.set(row, codec)
      }
      return codec
    }

    const fileRecordsMapped = <K extends ListOperationName, I, B, E>(
      name: K,
      params: Params.ParamsOf<K>,
      row: Schema.Schema<RecordOf<K>, I, never>,
      map: (records: ReadonlyArray<I>) => Either.Either<ReadonlyArray<B>, E>,
      options?: CallOptions
    ): Effect.Effect<ReadonlyArray<B>, Errors.ExplorerError | E> => {
      const resultSchema = Results[name] as unknown as Schema.Schema<ResultOf<K>, unknown, never>
      const fastResult = fastResults[name] as ((input: unknown) => ResultOf<K> | undefined) | undefined
      const { encodeRows, transcode } = fileCodecOf(name, row as Schema.Schema.AnyNoContext)
      const viaSchemas = (ctx: Classify.CallContext, rows: ResultOf<K>) =>
        encodeRows(rows as unknown as ReadonlyArray<unknown>).pipe(
          Effect.map((encoded) => encoded as ReadonlyArray<I>),
          Effect.mapError((error) =>
            new Errors.DecodeError({
              ...ctx,
              transient: false,
              detail: clip(scrub(`a record does not fit the file's schema: ${ParseResult.TreeFormatter.formatErrorSync(error)}`))
            })
          )
        )
      // A slice the transcoder is unsure of sends the whole answer the long way (below).
      const slices: SliceReader<Sliced<B, E>> | undefined = transcode === undefined ? undefined : (body) =>
        readSlices(body, (records) => {
          const rows = transcode(records) as ReadonlyArray<I> | undefined
          return rows === undefined ? undefined : map(rows)
        })
      const whole = (ctx: Classify.CallContext, answer: Classify.Answer): Effect.Effect<ReadonlyArray<I>, Errors.ExplorerError> => {
        if (answer._tag === "Result" && transcode !== undefined) {
          const rows = transcode(answer.result) as ReadonlyArray<I> | undefined
          if (rows !== undefined) return Effect.succeed(rows)
        }
        // Anything the transcoder is not sure of goes the long way, which gives the usual errors.
        return Effect.flatMap(decodeAnswer(ctx, resultSchema, answer, fastResult), (rows) => viaSchemas(ctx, rows))
      }
      return pipeline(name, (ctx, got): Effect.Effect<ReadonlyArray<B>, Errors.ExplorerError | E> => {
        if (got._tag === "Sliced") return Effect.succeed(got.rows)
        if (got._tag === "SliceFailed") return Effect.fail(got.error)
        const rows = got._tag === "Rows" ? viaSchemas(ctx, got.rows) : whole(ctx, got.answer)
        return Effect.flatMap(rows, (records) => map(records))
      }, slices)(params, options)
    }

    const fileRecords = <K extends ListOperationName, I>(
      name: K,
      params: Params.ParamsOf<K>,
      row: Schema.Schema<RecordOf<K>, I, never>,
      options?: CallOptions
    ): Effect.Effect<ReadonlyArray<I>, Errors.ExplorerError> => fileRecordsMapped(name, params, row, Either.right, options)

    const RESERVED = new Set(["chainid", "module", "action", "apikey"])
    const NAME = /^[A-Za-z0-9_]+$/

    const request = <A, I>(args: RequestArgs<A, I>, options?: CallOptions): Effect.Effect<A, Errors.ExplorerError> =>
      Effect.gen(function*() {
        const chainId = yield* resolveChain(args.chainId, args.module, args.action)
        const ctx: Classify.CallContext = { chainId, module: args.module, action: args.action }
        yield* Effect.annotateCurrentSpan("explorer.chain_id", chainId)
        if (!NAME.test(args.module)) return yield* invalid(ctx, { parameter: "module", detail: "must be a module name" })
        if (!NAME.test(args.action)) return yield* invalid(ctx, { parameter: "action", detail: "must be an action name" })
        const wire: Params.Wire = {}
        for (const [name, value] of Object.entries(args.params ?? {})) {
          if (value === undefined) continue
          if (RESERVED.has(name.toLowerCase())) {
            return yield* invalid(ctx, { parameter: name, detail: "is set by the client and may not be passed" })
          }
          wire[name] = String(value)
        }
        const call: Call = { chainId, module: args.module, action: args.action, operation: Plan.operationOf(args.module, args.action), wire }
        yield* planCheck(call)
        const answer = yield* send(call, options)
        return yield* decodeAnswer(ctx, args.schema, answer)
      }).pipe(
        Effect.withSpan(`ExplorerClient.${NAME.test(args.action) ? args.action : "request"}`, {
          attributes: { "explorer.module": args.module, "explorer.action": args.action }
        })
      )

    return {
      plan,
      defaultChainId: config.defaultChainId,
      apiUrl: config.apiUrl,
      stats: Ref.get(counters),
      request,
      fileRecords,
      fileRecordsMapped,
      eth_gasPrice: operation("eth_gasPrice"),
      tokeninfo: operation("tokeninfo"),
      tokenbalancehistory: operation("tokenbalancehistory"),
      addresstokennftbalance: operation("addresstokennftbalance"),
      topholders: operation("topholders"),
      getsourcecode: operation("getsourcecode"),
      dailygasused: operation("dailygasused"),
      balance: operation("balance"),
      balancehistory: operation("balancehistory"),
      addresstokenbalance: operation("addresstokenbalance"),
      txlist: operation("txlist"),
      txlistinternal: operation("txlistinternal"),
      tokentx: operation("tokentx"),
      tokennfttx: operation("tokennfttx"),
      token1155tx: operation("token1155tx"),
      fundedby: operation("fundedby"),
      getblocknobytime: operation("getblocknobytime"),
      getabi: operation("getabi"),
      tokenholderlist: operation("tokenholderlist"),
      getLogs: operation("getLogs"),
      dailytx: operation("dailytx"),
      ethsupply: operation("ethsupply"),
      getaddresstag: operation("getaddresstag"),
      exportaddresstags: operation("exportaddresstags"),
      getlabelmasterlist: operation("getlabelmasterlist")
    } satisfies ExplorerClient.Service
  })

/**
 * Builds the client from options (defaults filled in). Invalid options (a bad base URL, an unknown
 * default chain, a non-positive rate…) are a defect: they are programming errors, not runtime ones.
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
 */
export const layer = (options: ExplorerConfig.Options = {}): Layer.Layer<ExplorerClient, never, HttpClient.HttpClient> =>
  Layer.scoped(ExplorerClient, make(options))

/**
 * The client as a layer configured from a `Config` — by default {@link ExplorerConfig.options},
 * the environment (EXPLORER_API_KEY, then ETHERSCAN_API_KEY; EXPLORER_BASE_URL, EXPLORER_PLAN,
 * EXPLORER_CHAIN, EXPLORER_TIMEOUT, EXPLORER_RETRIES, EXPLORER_CALLS_PER_SECOND…). A bad value fails
 * the layer with a `ConfigError`; a missing key does not (calls fail with InvalidApiKeyError).
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
