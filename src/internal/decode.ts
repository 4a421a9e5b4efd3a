/**
 * From a classified answer to an operation's result: the result schema of every operation, the fast
 * decoders of the list results (the hot path of every export), the tag files a download link leads
 * to, and the DecodeError of whatever does not fit (scrubbed: a server may echo the key).
 */
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Errors from "../ExplorerError.js"
import type { ResultOf } from "../ExplorerClient.js"
import type * as Plan from "../Plan.js"
import * as Schemas from "../schemas/index.js"
import * as Classify from "./classify.js"

/**
 * The `result` schema of every operation (records decode with `onExcessProperty: "preserve"`).
 *
 * @since 0.1.0
 * @category constants
 */
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
  getlabelmasterlist: Schema.Array(Schemas.LabelMaster),
  balancemulti: Schema.Array(Schemas.AccountBalance),
  tokenbalance: Schemas.TokenAmount,
  tokensupply: Schemas.TokenAmount,
  ethprice: Schemas.EtherPrice,
  gasoracle: Schemas.GasOracle,
  gasestimate: Schemas.ConfirmationSeconds,
  getblockcountdown: Schemas.BlockCountdown,
  getstatus: Schemas.TxExecutionStatus,
  gettxreceiptstatus: Schemas.TxReceiptStatus,
  getminedblocks: Schema.Array(Schemas.MinedBlock),
  txsBeaconWithdrawal: Schema.Array(Schemas.BeaconWithdrawal),
  getblockreward: Schemas.BlockReward,
  getcontractcreation: Schema.Array(Schemas.ContractCreation),
  checkverifystatus: Schemas.VerifyStatus,
  verifysourcecode: Schemas.VerificationGuid,
  verifyproxycontract: Schemas.VerificationGuid,
  checkproxyverification: Schemas.ProxyVerification,
  ethsupply2: Schemas.EtherSupply2,
  getblocktxnscount: Schemas.BlockTxnsCount,
  tokensupplyhistory: Schemas.TokenSupplyAt,
  chainsize: Schema.Array(Schemas.ChainSize),
  dailyavgblocksize: Schema.Array(Schemas.DailyAvgBlockSize),
  dailyavgblocktime: Schema.Array(Schemas.DailyAvgBlockTime),
  dailyavggaslimit: Schema.Array(Schemas.DailyAvgGasLimit),
  dailyavggasprice: Schema.Array(Schemas.DailyAvgGasPrice),
  dailyavghashrate: Schema.Array(Schemas.DailyAvgHashRate),
  dailyavgnetdifficulty: Schema.Array(Schemas.DailyAvgNetDifficulty),
  dailyblkcount: Schema.Array(Schemas.DailyBlockCount),
  dailyblockrewards: Schema.Array(Schemas.DailyBlockRewards),
  dailynetutilization: Schema.Array(Schemas.DailyNetUtilization),
  dailynewaddress: Schema.Array(Schemas.DailyNewAddress),
  dailytxnfee: Schema.Array(Schemas.DailyTxnFee),
  dailyuncleblkcount: Schema.Array(Schemas.DailyUncleBlockCount),
  ethdailymarketcap: Schema.Array(Schemas.EthDailyMarketCap),
  ethdailyprice: Schema.Array(Schemas.EthDailyPrice),
  nodecount: Schemas.NodeCount,
  getapilimit: Schemas.ApiLimit,
  eth_blockNumber: Schemas.BlockNumberHex,
  eth_getBlockByNumber: Schema.NullOr(Schemas.RpcBlock),
  eth_getUncleByBlockNumberAndIndex: Schema.NullOr(Schemas.RpcBlock),
  eth_getBlockTransactionCountByNumber: Schema.NullOr(Schemas.RpcCount),
  eth_getTransactionByHash: Schema.NullOr(Schemas.RpcTransaction),
  eth_getTransactionByBlockNumberAndIndex: Schema.NullOr(Schemas.RpcTransaction),
  eth_getTransactionCount: Schemas.RpcCount,
  eth_sendRawTransaction: Schemas.TxHash,
  eth_getTransactionReceipt: Schema.NullOr(Schemas.RpcReceipt),
  eth_call: Schemas.RpcData,
  eth_getCode: Schemas.RpcData,
  eth_getStorageAt: Schemas.RpcData,
  eth_estimateGas: Schemas.RpcGas
} as const satisfies Record<Plan.OperationName, Schema.Schema.AnyNoContext>

/** An operation's result schema, typed as its result. */
export const resultSchema = <K extends Plan.OperationName>(name: K): Schema.Schema<ResultOf<K>, unknown, never> =>
  Results[name] as unknown as Schema.Schema<ResultOf<K>, unknown, never>

/** The record struct of a list result (`Schema.Array(Struct)`), if that is what the result schema is. */
export const listRecord = (schema: Schema.Schema.Any): Schema.Struct<Schema.Struct.Fields> | undefined => {
  const value: unknown = (schema as { readonly value?: unknown }).value
  return schema.ast._tag === "TupleType" && Schema.isSchema(value) && "fields" in value && value.ast._tag === "TypeLiteral"
    ? (value as Schema.Struct<Schema.Struct.Fields>)
    : undefined
}

/**
 * The fast decoders of the list results: the schemas' own checks and conversions in one loop, unknown
 * fields kept as `onExcessProperty: "preserve"` keeps them; `undefined` (anything unusual) sends the
 * answer through the schema, which gives the usual errors.
 */
const fastResults: Partial<Record<Plan.OperationName, (input: unknown) => ReadonlyArray<unknown> | undefined>> = Object
  .fromEntries(
    Object.entries(Results).flatMap(([name, schema]) => {
      const row = listRecord(schema)
      return row === undefined ? [] : [[name, Schemas.recordsFastPath(row, { onExcessProperty: "preserve" }).decode]]
    })
  )

/** The fast decoder of an operation's list result, if it has one. */
export const fastResult = <K extends Plan.OperationName>(name: K): ((input: unknown) => ResultOf<K> | undefined) | undefined =>
  fastResults[name] as ((input: unknown) => ResultOf<K> | undefined) | undefined

/** The operations that may answer with a download link, and how their file (CSV) is read. */
export const tagFiles: Partial<Record<Plan.OperationName, (text: string) => Effect.Effect<ReadonlyArray<unknown>, ParseResult.ParseError>>> = {
  exportaddresstags: Schemas.parseAddressTagsCsv,
  getlabelmasterlist: Schemas.parseLabelMasterCsv
}

/** What a call's decoding step gets: the classified answer, or the rows of the tag file a download link led to. */
export type Got<R> =
  | { readonly _tag: "Answer"; readonly answer: Classify.Answer }
  | { readonly _tag: "Rows"; readonly rows: R }

/** The decoding steps of one client (its scrubber keeps the key out of their errors). */
export interface Decoder {
  /** A ParseError as a DecodeError: `what` went wrong, then the schema's words (scrubbed, clipped). */
  readonly failure: (ctx: Classify.CallContext, what: string, error: ParseResult.ParseError) => Errors.DecodeError
  /**
   * Decodes an answer: an empty answer is `[]` where the schema takes it, else a NotOkError. `fast`:
   * the fast decoder of a list result, tried first (it gives up on anything it is not sure of).
   */
  readonly answer: <A, I>(
    ctx: Classify.CallContext,
    schema: Schema.Schema<A, I, never>,
    answer: Classify.Answer,
    fast?: ((input: unknown) => A | undefined) | undefined
  ) => Effect.Effect<A, Errors.ExplorerError>
  /** Reads a downloaded tag file with `parse` (one of {@link tagFiles}). */
  readonly tagFile: (
    ctx: Classify.CallContext,
    parse: (text: string) => Effect.Effect<ReadonlyArray<unknown>, ParseResult.ParseError>,
    text: string
  ) => Effect.Effect<ReadonlyArray<unknown>, Errors.DecodeError>
}

/** The decoding steps of a client whose errors pass through `scrub`. */
export const make = (scrub: (text: string) => string): Decoder => {
  const failure = (ctx: Classify.CallContext, what: string, error: ParseResult.ParseError) =>
    new Errors.DecodeError({
      ...ctx,
      transient: false,
      detail: Classify.clip(scrub(`${what}: ${ParseResult.TreeFormatter.formatErrorSync(error)}`))
    })

  const answer = <A, I>(
    ctx: Classify.CallContext,
    schema: Schema.Schema<A, I, never>,
    answer: Classify.Answer,
    fast?: ((input: unknown) => A | undefined) | undefined
  ): Effect.Effect<A, Errors.ExplorerError> => {
    if (answer._tag === "Result") {
      const decoded = fast?.(answer.result)
      return decoded !== undefined
        ? Effect.succeed(decoded)
        : Schema.decodeUnknown(schema, { onExcessProperty: "preserve" })(answer.result).pipe(
          Effect.mapError((error) => failure(ctx, "unexpected result", error))
        )
    }
    return Schema.decodeUnknown(schema)([]).pipe(
      Effect.mapError(() => new Errors.NotOkError({ ...ctx, detail: answer.serverMessage, serverMessage: answer.serverMessage }))
    )
  }

  const tagFile = (
    ctx: Classify.CallContext,
    parse: (text: string) => Effect.Effect<ReadonlyArray<unknown>, ParseResult.ParseError>,
    text: string
  ) => parse(text).pipe(Effect.mapError((error) => failure(ctx, "unexpected download", error)))

  return { failure, answer, tagFile }
}
