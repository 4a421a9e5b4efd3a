/**
 * The explorer client service put together: every method is the same pipeline — check the call
 * (callChecks.ts), send it (transport.ts), follow a download link, decode the answer (decode.ts, or
 * fileRecords.ts for the file form) — under a span named for the action.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Metric from "effect/Metric"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as ExplorerConfig from "../Config.js"
import * as Errors from "../ExplorerError.js"
import type {
  CallOptions,
  ExplorerClient,
  LineWorkers,
  ListOperationName,
  RecordOf,
  RequestArgs,
  ResultOf,
  ResultWindow
} from "../ExplorerClient.js"
import * as Plan from "../Plan.js"
import * as Schemas from "../schemas/index.js"
import * as CallChecks from "./callChecks.js"
import type * as Classify from "./classify.js"
import * as Decode from "./decode.js"
import * as FileRecords from "./fileRecords.js"
import type * as Params from "../Params.js"
import * as Transport from "./transport.js"
import * as WorkerPool from "./workerPool.js"

/** The name of each record schema among the exports of `Schemas` (how a decoding worker finds it). */
let schemaNames: Map<unknown, string> | undefined
const schemaName = (row: unknown): string | undefined => {
  schemaNames ??= new Map(
    Object.entries(Schemas).flatMap(([name, value]) => (Schema.isSchema(value) ? [[value, name] as const] : []))
  )
  return schemaNames.get(row)
}

/** The paid plans' window: what a free key's window is when the server serves a page past 1,000. */
const PAID_WINDOW = 10_000

/**
 * Builds the client from a resolved configuration. Needs an `HttpClient` (the library never picks
 * the platform) and a `Scope` (the key's limiter lives as long as the client).
 */
export const make = (
  config: ExplorerConfig.ExplorerConfig
): Effect.Effect<ExplorerClient.Service, never, HttpClient.HttpClient | Scope.Scope> =>
  Effect.gen(function*() {
    const transport = yield* Transport.make(config)
    const decoder = Decode.make(transport.scrub)
    const codecOf = FileRecords.makeCodecs()

    // The free plan's window on the list operations, once the server has settled it for this key
    // (see `ResultWindow`): one probe answers for all of them, as one rule of the service covers them.
    let learnedWindow: number | undefined
    const openWindow = (op: Plan.Operation): boolean => config.plan === "free" && op.paging === "list"
    const windowOf = (op: Plan.Operation): ResultWindow =>
      !openWindow(op)
        ? { rows: Plan.resultWindow(config.plan, op), source: "plan" }
        : learnedWindow === undefined
        ? { rows: Plan.resultWindow(config.plan, op), source: "assumed" }
        : { rows: learnedWindow, source: "server" }
    /**
     * Whether a call probes the window: asked to, on an operation whose window is open, not settled
     * yet, and past the window assumed (a call within it says nothing of it).
     */
    const probing = (op: Plan.Operation, params: object | undefined, options: CallOptions | undefined): boolean => {
      if (options?.probeWindow !== true || !openWindow(op) || learnedWindow !== undefined) return false
      const p = (params ?? {}) as Readonly<Record<string, unknown>>
      const page = typeof p.page === "number" ? p.page : 1
      const offset = typeof p.offset === "number" ? p.offset : Plan.rowsPerRequest(config.plan, op)
      return page * offset > windowOf(op).rows
    }
    /** What a probe's answer says of the window: a refusal naming N is N; a page served, 10,000. */
    const learn = <A, E>(probe: boolean, call: Effect.Effect<A, E>): Effect.Effect<A, E> =>
      !probe ? call : call.pipe(
        Effect.tap(() => Effect.sync(() => void (learnedWindow ??= PAID_WINDOW))),
        Effect.tapError((error) =>
          Effect.sync(() => {
            if (Errors.isExplorerError(error) && error._tag === "ResultWindowError" && error.window !== undefined) learnedWindow ??= error.window
          })
        )
      )

    /**
     * The pipeline of a named operation: check, send, then `decode` the answer (`Rows`: the rows of a
     * followed download link, already decoded; `S`: what `slices` made of a list answer).
     */
    const pipeline = <K extends Plan.OperationName, Out, E = never, S extends FileRecords.Sliced = never>(
      name: K,
      decode: (ctx: Classify.CallContext, got: Decode.Got<ResultOf<K>> | S) => Effect.Effect<Out, Errors.ExplorerError | E>,
      slices?: Transport.SliceReader<S>,
      offload?: Transport.BodyReader<S>
    ) => {
      const op: Plan.Operation = Plan.operations[name]
      const tagFile = Decode.tagFiles[name]
      return (params: Params.ParamsOf<K> | undefined, options: CallOptions | undefined): Effect.Effect<Out, Errors.ExplorerError | E> =>
        Effect.suspend(() => {
          const probe = probing(op, params, options)
          return learn(probe, Effect.gen(function*() {
            const call = yield* CallChecks.operationCall(config, name, params, { window: windowOf(op).rows, probe })
            const ctx = Transport.contextOf(call)
            const answer = yield* transport.send(call, options, slices, offload)
            if (answer._tag === "Sliced" || answer._tag === "SliceFailed") return yield* decode(ctx, answer)
            if (tagFile !== undefined && answer._tag === "Result" && typeof answer.result === "string") {
              const text = yield* transport.download(call, answer.result, options)
              const rows = yield* decoder.tagFile(ctx, tagFile, text)
              return yield* decode(ctx, { _tag: "Rows", rows: rows as ResultOf<K> })
            }
            return yield* decode(ctx, { _tag: "Answer", answer })
          }))
        }).pipe(
          Effect.withSpan(`ExplorerClient.${name}`, {
            attributes: { "explorer.module": op.module, "explorer.action": op.action }
          })
        )
    }

    /**
     * A named operation: its result decoded by its schema (the fast decoder first for lists). A list
     * answer is read a slice at a time as its body comes (`FileRecords.sliceSteps`, as exports read
     * theirs), each slice's records decoded by the fast decoder: no string of the whole body, no parse
     * of it in one piece. Anything the fast decoder is not sure of, or a body of another shape, is read
     * whole, which gives the usual classification and errors.
     */
    const operation = <K extends Plan.OperationName>(name: K) => {
      const schema = Decode.resultSchema(name)
      const fast = Decode.fastResult(name)
      const slices: Transport.SliceReader<FileRecords.Sliced<unknown, never>> | undefined = fast === undefined
        ? undefined
        : (pieces) =>
          FileRecords.sliceSteps(pieces, (records) => {
            const rows = fast(records) as ReadonlyArray<unknown> | undefined
            return rows === undefined ? undefined : Either.right(rows)
          })
      const run = pipeline(
        name,
        (ctx, got: Decode.Got<ResultOf<K>> | FileRecords.Sliced<unknown, never>): Effect.Effect<ResultOf<K>, Errors.ExplorerError> =>
          got._tag === "Sliced"
            ? Effect.succeed(got.rows as unknown as ResultOf<K>)
            : got._tag === "SliceFailed"
            ? Effect.die(got.error)
            : got._tag === "Rows"
            ? Effect.succeed(got.rows)
            : decoder.answer(ctx, schema, got.answer, fast),
        slices
      )
      return (params?: Params.ParamsOf<K>, options?: CallOptions) => run(params, options)
    }

    const fileRecordsMapped = <K extends ListOperationName, I, B, E>(
      name: K,
      params: Params.ParamsOf<K>,
      row: Schema.Schema<RecordOf<K>, I, never>,
      map: (records: ReadonlyArray<I>) => Either.Either<ReadonlyArray<B>, E>,
      options?: CallOptions,
      workers?: LineWorkers<B>
    ): Effect.Effect<ReadonlyArray<B>, Errors.ExplorerError | E> => {
      const { decode, slices } = FileRecords.steps(decoder, codecOf(name, row as Schema.Schema.AnyNoContext), name, map)
      const schema = workers === undefined || workers.workers < 1 ? undefined : schemaName(row)
      const offload: Transport.BodyReader<FileRecords.Sliced<B, E>> | undefined = workers === undefined || schema === undefined
        ? undefined
        : (body, ctx) =>
          Effect.flatMap(
            WorkerPool.shared(workers.workers).decode({ operation: name, schema, format: workers.format, formulaGuard: workers.formulaGuard }, body),
            (outcome): ReturnType<Transport.BodyReader<FileRecords.Sliced<B, E>>> =>
              outcome._tag === "Lines"
                ? Effect.as(Metric.increment(Transport.metrics.workerPages), {
                  _tag: "Read" as const,
                  value: { _tag: "Sliced" as const, rows: workers.rows(outcome.lines) }
                })
                : outcome._tag === "ReadOnMain"
                ? Effect.as(Metric.increment(Transport.metrics.workerReturns), { _tag: "Unread" as const, body: outcome.body })
                // A lost worker loses the page's bytes: the call is sent again (a transient failure).
                : Effect.fail(new Errors.TransportError({ ...ctx, detail: outcome.detail }))
          )
      return pipeline(name, decode, slices, offload)(params, options)
    }

    const fileRecords = <K extends ListOperationName, I>(
      name: K,
      params: Params.ParamsOf<K>,
      row: Schema.Schema<RecordOf<K>, I, never>,
      options?: CallOptions
    ): Effect.Effect<ReadonlyArray<I>, Errors.ExplorerError> => fileRecordsMapped(name, params, row, Either.right, options)

    const request = <A, I>(args: RequestArgs<A, I>, options?: CallOptions): Effect.Effect<A, Errors.ExplorerError> =>
      Effect.gen(function*() {
        const call = yield* CallChecks.requestCall(config, args)
        const answer = yield* transport.send(call, options)
        return yield* decoder.answer(Transport.contextOf(call), args.schema, answer)
      }).pipe(
        Effect.withSpan(`ExplorerClient.${CallChecks.NAME.test(args.action) ? args.action : "request"}`, {
          attributes: { "explorer.module": args.module, "explorer.action": args.action }
        })
      )

    /** `GET {baseUrl}/v2/chainlist`: not a `/v2/api` call, read like a download of the API's origin. */
    const chainlist = Effect.gen(function*() {
      const call: Transport.Call = { chainId: config.defaultChainId, module: "chainlist", action: "chainlist", operation: undefined, wire: {} }
      const ctx = Transport.contextOf(call)
      const text = yield* transport.download(call, `${config.baseUrl}/v2/chainlist`, undefined)
      const json = yield* Effect.try({
        try: (): unknown => JSON.parse(text),
        catch: () => new Errors.DecodeError({ ...ctx, transient: true, detail: "the chain list is not JSON" })
      })
      return yield* Schema.decodeUnknown(Schemas.ChainList, { onExcessProperty: "preserve" })(json).pipe(
        Effect.mapError((error) => decoder.failure(ctx, "unexpected chain list", error))
      )
    }).pipe(Effect.withSpan("ExplorerClient.chainlist"))

    return {
      plan: config.plan,
      chainlist,
      defaultChainId: config.defaultChainId,
      resultWindow: (name) => Effect.sync(() => windowOf(Plan.operations[name])),
      apiUrl: config.apiUrl,
      stats: transport.stats,
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
      getlabelmasterlist: operation("getlabelmasterlist"),
      balancemulti: operation("balancemulti"),
      tokenbalance: operation("tokenbalance"),
      tokensupply: operation("tokensupply"),
      ethprice: operation("ethprice"),
      gasoracle: operation("gasoracle"),
      gasestimate: operation("gasestimate"),
      getblockcountdown: operation("getblockcountdown"),
      getstatus: operation("getstatus"),
      gettxreceiptstatus: operation("gettxreceiptstatus"),
      getminedblocks: operation("getminedblocks"),
      txsBeaconWithdrawal: operation("txsBeaconWithdrawal"),
      getblockreward: operation("getblockreward"),
      getcontractcreation: operation("getcontractcreation"),
      checkverifystatus: operation("checkverifystatus"),
      verifysourcecode: operation("verifysourcecode"),
      verifyproxycontract: operation("verifyproxycontract"),
      checkproxyverification: operation("checkproxyverification"),
      ethsupply2: operation("ethsupply2"),
      getblocktxnscount: operation("getblocktxnscount"),
      tokensupplyhistory: operation("tokensupplyhistory"),
      chainsize: operation("chainsize"),
      dailyavgblocksize: operation("dailyavgblocksize"),
      dailyavgblocktime: operation("dailyavgblocktime"),
      dailyavggaslimit: operation("dailyavggaslimit"),
      dailyavggasprice: operation("dailyavggasprice"),
      dailyavghashrate: operation("dailyavghashrate"),
      dailyavgnetdifficulty: operation("dailyavgnetdifficulty"),
      dailyblkcount: operation("dailyblkcount"),
      dailyblockrewards: operation("dailyblockrewards"),
      dailynetutilization: operation("dailynetutilization"),
      dailynewaddress: operation("dailynewaddress"),
      dailytxnfee: operation("dailytxnfee"),
      dailyuncleblkcount: operation("dailyuncleblkcount"),
      ethdailymarketcap: operation("ethdailymarketcap"),
      ethdailyprice: operation("ethdailyprice"),
      nodecount: operation("nodecount"),
      getapilimit: operation("getapilimit"),
      eth_blockNumber: operation("eth_blockNumber"),
      eth_getBlockByNumber: operation("eth_getBlockByNumber"),
      eth_getUncleByBlockNumberAndIndex: operation("eth_getUncleByBlockNumberAndIndex"),
      eth_getBlockTransactionCountByNumber: operation("eth_getBlockTransactionCountByNumber"),
      eth_getTransactionByHash: operation("eth_getTransactionByHash"),
      eth_getTransactionByBlockNumberAndIndex: operation("eth_getTransactionByBlockNumberAndIndex"),
      eth_getTransactionCount: operation("eth_getTransactionCount"),
      eth_sendRawTransaction: operation("eth_sendRawTransaction"),
      eth_getTransactionReceipt: operation("eth_getTransactionReceipt"),
      eth_call: operation("eth_call"),
      eth_getCode: operation("eth_getCode"),
      eth_getStorageAt: operation("eth_getStorageAt"),
      eth_estimateGas: operation("eth_estimateGas")
    } satisfies ExplorerClient.Service
  })
