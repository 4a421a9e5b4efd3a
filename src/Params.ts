/**
 * The parameters of every operation: their schemas (camelCase names, as the client's methods take
 * them), the checks between parameters that a Struct cannot express, the plan's result window and
 * rules, and the API's own names on the wire. The one place where a call's input is checked: the
 * client checks every call with it, and the data sets check a whole query with it (and the plan's
 * rules) before their first request. A module of its own, not the client's `internal/`, because
 * sources and the command line check with it too.
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Chain from "./Chain.js"
import * as Errors from "./ExplorerError.js"
import * as Plan from "./Plan.js"
import * as Schemas from "./schemas/index.js"


const withMessage = <S extends Schema.Schema.Any>(schema: S, message: string): S =>
  schema.annotations({ message: () => message }) as S

const AddressParam = withMessage(Schemas.Address, "must be an address: 0x followed by 40 hex digits")
const HashParam = withMessage(Schemas.TxHash, "must be a transaction hash: 0x followed by 64 hex digits")
const TopicParam = withMessage(Schemas.Topic, "must be a topic: 0x followed by 64 hex digits")
const BlockParam = withMessage(Schema.Number.pipe(Schema.int(), Schema.nonNegative()), "must be a block number (an integer ≥ 0)")
const BlockOrLatestParam = Schema.Union(BlockParam, Schema.Literal("latest"))
const PageParam = withMessage(Schema.Number.pipe(Schema.int(), Schema.greaterThanOrEqualTo(1)), "must be an integer ≥ 1")
const TimestampParam = withMessage(Schema.Number.pipe(Schema.int(), Schema.nonNegative()), "must be unix seconds (an integer ≥ 0)")
const DateParam = withMessage(Schemas.IsoDate, "must be a calendar date written yyyy-MM-dd")
const SortParam = withMessage(Schemas.Sort, "must be \"asc\" or \"desc\"")
const ClosestParam = withMessage(Schemas.Closest, "must be \"before\" or \"after\"")
const OperatorParam = withMessage(Schemas.TopicOperator, "must be \"and\" or \"or\"")
const LimitParam = withMessage(
  Schema.Number.pipe(Schema.int(), Schema.between(1, Plan.HARD_ROW_CAP)),
  `must be an integer from 1 to ${Plan.HARD_ROW_CAP}`
)
const TagParam = withMessage(
  Schema.Union(Schema.Literal("latest", "pending", "earliest"), Schema.String.pipe(Schema.pattern(/^0x[0-9a-fA-F]+$/))),
  "must be \"latest\", \"pending\", \"earliest\" or a hex block number"
)
const AddressListParam = withMessage(
  Schema.Array(AddressParam).pipe(Schema.minItems(1), Schema.maxItems(20)),
  "must be 1 to 20 addresses"
)
const WeiParam = withMessage(
  Schema.Union(Schema.Number.pipe(Schema.int(), Schema.nonNegative()), Schema.NonNegativeBigIntFromSelf),
  "must be an amount of wei (an integer ≥ 0)"
)
const LabelParam = withMessage(
  Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9._-]*$/)),
  "must be a label slug (e.g. \"phish-hack\") or \"all\""
)
const HexQuantityParam = withMessage(
  Schema.String.pipe(Schema.pattern(/^0x[0-9a-fA-F]{1,64}$/)),
  "must be a hex quantity (0x followed by hex digits)"
)
const HexDataParam = withMessage(Schema.String.pipe(Schema.pattern(/^0x(?:[0-9a-fA-F]{2})*$/)), "must be hex bytes (0x followed by pairs of hex digits)")
const ContractListParam = withMessage(
  Schema.Array(AddressParam).pipe(Schema.minItems(1), Schema.maxItems(5)),
  "must be 1 to 5 contract addresses"
)
const GuidParam = withMessage(
  Schema.String.pipe(Schema.pattern(/^\S{1,100}$/)),
  "must be the GUID a verification request answered (50 letters and digits on Etherscan), without spaces"
)
const FormatParam = withMessage(Schema.Literal("csv"), "must be \"csv\" (the only format the client can read)")

/** Every call may name its chain; without it the client's `defaultChainId` is used. */
const chainField = { chainId: Schema.optional(Schema.Number) }
const pagingFields = { page: Schema.optional(PageParam), offset: Schema.optional(PageParam) }
const blockRangeFields = {
  startBlock: Schema.optional(BlockParam),
  endBlock: Schema.optional(BlockParam),
  ...pagingFields,
  sort: Schema.optional(SortParam)
}
const transferFields = {
  ...chainField,
  address: Schema.optional(AddressParam),
  contractAddress: Schema.optional(AddressParam),
  ...blockRangeFields
}
const dailyFields = { ...chainField, startDate: DateParam, endDate: DateParam, sort: Schema.optional(SortParam) }

/**
 * getLogs topic operators: `"0_1"` is sent as `topic0_1_opr`; only between topics that are given.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TopicOperators = Schema.Struct({
  "0_1": Schema.optional(OperatorParam),
  "0_2": Schema.optional(OperatorParam),
  "0_3": Schema.optional(OperatorParam),
  "1_2": Schema.optional(OperatorParam),
  "1_3": Schema.optional(OperatorParam),
  "2_3": Schema.optional(OperatorParam)
})
/**
 * The type of the values of the `TopicOperators` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type TopicOperators = typeof TopicOperators.Type

/**
 * The parameter schema of every operation (camelCase names; the client sends the API's names:
 * `contractaddress`, `startblock`, `blockno`, `txhash`, `startdate`, `topic0_1_opr`, and topholders'
 * `limit` as `offset`). Checked before sending; an unknown name is refused too.
 *
 * @since 0.1.0
 * @category constants
 */
export const Params = {
  eth_gasPrice: Schema.Struct({ ...chainField }),
  tokeninfo: Schema.Struct({ ...chainField, contractAddress: AddressParam }),
  tokenbalancehistory: Schema.Struct({ ...chainField, contractAddress: AddressParam, address: AddressParam, blockNo: BlockParam }),
  addresstokennftbalance: Schema.Struct({ ...chainField, address: AddressParam, ...pagingFields }),
  topholders: Schema.Struct({ ...chainField, contractAddress: AddressParam, limit: Schema.optional(LimitParam) }),
  getsourcecode: Schema.Struct({ ...chainField, address: AddressParam }),
  dailygasused: Schema.Struct(dailyFields),
  balance: Schema.Struct({ ...chainField, address: AddressParam, tag: Schema.optional(TagParam) }),
  balancehistory: Schema.Struct({ ...chainField, address: AddressParam, blockNo: BlockParam }),
  addresstokenbalance: Schema.Struct({ ...chainField, address: AddressParam, ...pagingFields }),
  txlist: Schema.Struct({ ...chainField, address: AddressParam, ...blockRangeFields }),
  txlistinternal: Schema.Struct({
    ...chainField,
    address: Schema.optional(AddressParam),
    txHash: Schema.optional(HashParam),
    ...blockRangeFields
  }),
  tokentx: Schema.Struct(transferFields),
  tokennfttx: Schema.Struct(transferFields),
  token1155tx: Schema.Struct(transferFields),
  fundedby: Schema.Struct({ ...chainField, address: AddressParam }),
  getblocknobytime: Schema.Struct({ ...chainField, timestamp: TimestampParam, closest: Schema.optional(ClosestParam) }),
  getabi: Schema.Struct({ ...chainField, address: AddressParam }),
  tokenholderlist: Schema.Struct({ ...chainField, contractAddress: AddressParam, ...pagingFields }),
  getLogs: Schema.Struct({
    ...chainField,
    address: Schema.optional(AddressParam),
    fromBlock: Schema.optional(BlockOrLatestParam),
    toBlock: Schema.optional(BlockOrLatestParam),
    topic0: Schema.optional(TopicParam),
    topic1: Schema.optional(TopicParam),
    topic2: Schema.optional(TopicParam),
    topic3: Schema.optional(TopicParam),
    topicOperators: Schema.optional(TopicOperators),
    ...pagingFields
  }),
  dailytx: Schema.Struct(dailyFields),
  ethsupply: Schema.Struct({ ...chainField }),
  getaddresstag: Schema.Struct({ ...chainField, address: AddressParam }),
  exportaddresstags: Schema.Struct({ ...chainField, label: LabelParam, format: Schema.optional(FormatParam) }),
  getlabelmasterlist: Schema.Struct({ ...chainField, format: Schema.optional(FormatParam) }),
  balancemulti: Schema.Struct({ ...chainField, address: AddressListParam, tag: Schema.optional(TagParam) }),
  tokenbalance: Schema.Struct({ ...chainField, contractAddress: AddressParam, address: AddressParam, tag: Schema.optional(TagParam) }),
  tokensupply: Schema.Struct({ ...chainField, contractAddress: AddressParam }),
  ethprice: Schema.Struct({ ...chainField }),
  gasoracle: Schema.Struct({ ...chainField }),
  gasestimate: Schema.Struct({ ...chainField, gasPrice: WeiParam }),
  getblockcountdown: Schema.Struct({ ...chainField, blockNo: BlockParam }),
  getstatus: Schema.Struct({ ...chainField, txHash: HashParam }),
  gettxreceiptstatus: Schema.Struct({ ...chainField, txHash: HashParam }),
  getminedblocks: Schema.Struct({
    ...chainField,
    address: AddressParam,
    blocktype: Schema.optional(withMessage(Schema.Literal("blocks", "uncles"), "must be \"blocks\" or \"uncles\"")),
    ...pagingFields
  }),
  txsBeaconWithdrawal: Schema.Struct({ ...chainField, address: AddressParam, ...blockRangeFields }),
  getblockreward: Schema.Struct({ ...chainField, blockNo: BlockParam }),
  getcontractcreation: Schema.Struct({ ...chainField, contractAddresses: ContractListParam }),
  checkverifystatus: Schema.Struct({ ...chainField, guid: GuidParam }),
  verifysourcecode: Schema.Struct({
    ...chainField,
    contractAddress: AddressParam,
    sourceCode: withMessage(Schema.String.pipe(Schema.minLength(1)), "must be the contract's source (not empty)"),
    codeFormat: Schema.optional(withMessage(
      Schema.Literal("solidity-single-file", "solidity-standard-json-input", "vyper-json"),
      "must be \"solidity-single-file\", \"solidity-standard-json-input\" or \"vyper-json\""
    )),
    contractName: withMessage(Schema.String.pipe(Schema.pattern(/^\S+$/)), "must be the contract's name (path:Name for standard JSON input)"),
    compilerVersion: withMessage(Schema.String.pipe(Schema.pattern(/^\S+$/)), "must be a compiler version such as v0.8.24+commit.e11b9ed9"),
    optimizationUsed: Schema.optional(withMessage(Schema.Number.pipe(Schema.int(), Schema.between(0, 1)), "must be 0 or 1")),
    runs: Schema.optional(withMessage(Schema.Number.pipe(Schema.int(), Schema.nonNegative()), "must be an integer ≥ 0")),
    constructorArguments: Schema.optional(withMessage(Schema.String.pipe(Schema.pattern(/^(?:[0-9a-fA-F]{2})*$/)), "must be hex without 0x")),
    evmVersion: Schema.optional(Schema.String),
    licenseType: Schema.optional(Schema.String)
  }),
  verifyproxycontract: Schema.Struct({ ...chainField, address: AddressParam, expectedImplementation: Schema.optional(AddressParam) }),
  checkproxyverification: Schema.Struct({ ...chainField, guid: GuidParam }),
  ethsupply2: Schema.Struct({ ...chainField }),
  getblocktxnscount: Schema.Struct({ ...chainField, blockNo: BlockParam }),
  tokensupplyhistory: Schema.Struct({ ...chainField, contractAddress: AddressParam, blockNo: BlockParam }),
  chainsize: Schema.Struct({
    ...dailyFields,
    clientType: Schema.optional(withMessage(Schema.Literal("geth", "parity"), "must be \"geth\" or \"parity\"")),
    syncMode: Schema.optional(withMessage(Schema.Literal("default", "archive"), "must be \"default\" or \"archive\""))
  }),
  dailyavgblocksize: Schema.Struct(dailyFields),
  dailyavgblocktime: Schema.Struct(dailyFields),
  dailyavggaslimit: Schema.Struct(dailyFields),
  dailyavggasprice: Schema.Struct(dailyFields),
  dailyavghashrate: Schema.Struct(dailyFields),
  dailyavgnetdifficulty: Schema.Struct(dailyFields),
  dailyblkcount: Schema.Struct(dailyFields),
  dailyblockrewards: Schema.Struct(dailyFields),
  dailynetutilization: Schema.Struct(dailyFields),
  dailynewaddress: Schema.Struct(dailyFields),
  dailytxnfee: Schema.Struct(dailyFields),
  dailyuncleblkcount: Schema.Struct(dailyFields),
  ethdailymarketcap: Schema.Struct(dailyFields),
  ethdailyprice: Schema.Struct(dailyFields),
  nodecount: Schema.Struct({ ...chainField }),
  getapilimit: Schema.Struct({ ...chainField }),
  eth_blockNumber: Schema.Struct({ ...chainField }),
  eth_getBlockByNumber: Schema.Struct({ ...chainField, tag: TagParam, boolean: Schema.optional(Schema.Boolean) }),
  eth_getUncleByBlockNumberAndIndex: Schema.Struct({ ...chainField, tag: TagParam, index: HexQuantityParam }),
  eth_getBlockTransactionCountByNumber: Schema.Struct({ ...chainField, tag: TagParam }),
  eth_getTransactionByHash: Schema.Struct({ ...chainField, txHash: HashParam }),
  eth_getTransactionByBlockNumberAndIndex: Schema.Struct({ ...chainField, tag: TagParam, index: HexQuantityParam }),
  eth_getTransactionCount: Schema.Struct({ ...chainField, address: AddressParam, tag: Schema.optional(TagParam) }),
  eth_sendRawTransaction: Schema.Struct({ ...chainField, hex: HexDataParam }),
  eth_getTransactionReceipt: Schema.Struct({ ...chainField, txHash: HashParam }),
  eth_call: Schema.Struct({ ...chainField, to: AddressParam, data: HexDataParam, tag: Schema.optional(TagParam) }),
  eth_getCode: Schema.Struct({ ...chainField, address: AddressParam, tag: Schema.optional(TagParam) }),
  eth_getStorageAt: Schema.Struct({ ...chainField, address: AddressParam, position: HexQuantityParam, tag: Schema.optional(TagParam) }),
  eth_estimateGas: Schema.Struct({
    ...chainField,
    to: AddressParam,
    data: Schema.optional(HexDataParam),
    value: Schema.optional(HexQuantityParam),
    gas: Schema.optional(HexQuantityParam),
    gasPrice: Schema.optional(HexQuantityParam)
  })
} as const satisfies Record<Plan.OperationName, Schema.Schema.AnyNoContext>

/**
 * The parameters of an operation, e.g. `ParamsOf<"txlist">`.
 *
 * @since 0.1.0
 * @category models
 */
export type ParamsOf<K extends Plan.OperationName> = Schema.Schema.Type<(typeof Params)[K]>

/**
 * Query parameters under the API's own names.
 *
 * @since 0.1.0
 * @category models
 */
export type Wire = Record<string, string>

/** camelCase parameter → the API's name. */
const WIRE_NAMES: Readonly<Record<string, string>> = {
  contractAddress: "contractaddress",
  startBlock: "startblock",
  endBlock: "endblock",
  blockNo: "blockno",
  txHash: "txhash",
  startDate: "startdate",
  endDate: "enddate",
  limit: "offset",
  gasPrice: "gasprice",
  contractAddresses: "contractaddresses",
  clientType: "clienttype",
  syncMode: "syncmode",
  sourceCode: "sourceCode",
  codeFormat: "codeformat",
  contractName: "contractname",
  compilerVersion: "compilerversion",
  // the service's own spelling
  constructorArguments: "constructorArguements",
  evmVersion: "evmversion",
  licenseType: "licenseType",
  expectedImplementation: "expectedimplementation"
}

/**
 * The API's names and texts of checked parameters (`chainId` is sent as `chainid` by the transport).
 *
 * @since 0.1.0
 * @category utils
 */
export const toWire = (params: Readonly<Record<string, unknown>>): Wire => {
  const wire: Wire = {}
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || name === "chainId") continue
    if (name === "topicOperators") {
      for (const [pair, operator] of Object.entries(value as Readonly<Record<string, unknown>>)) {
        if (operator !== undefined) wire[`topic${pair}_opr`] = String(operator)
      }
      continue
    }
    // a list (balancemulti's addresses) is sent comma-separated
    wire[WIRE_NAMES[name] ?? name] = Array.isArray(value) ? value.join(",") : String(value)
  }
  return wire
}

/**
 * What is wrong with a call's input: the parameter and why.
 *
 * @since 0.1.0
 * @category models
 */
export interface Problem {
  readonly parameter: string
  readonly detail: string
}

/**
 * A problem with `parameter`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const problem = (parameter: string, detail: string): Option.Option<Problem> => Option.some({ parameter, detail })

/**
 * Checks between parameters that a Struct cannot express.
 *
 * @since 0.1.0
 * @category checks
 */
export const crossCheck = (action: Plan.OperationName, p: Readonly<Record<string, unknown>>): Option.Option<Problem> => {
  const num = (k: string): number | undefined => (typeof p[k] === "number" ? (p[k] as number) : undefined)
  const start = num("startBlock")
  const end = num("endBlock")
  if (start !== undefined && end !== undefined && start > end) {
    return problem("startBlock", `startBlock ${start} is after endBlock ${end}`)
  }
  const from = num("fromBlock")
  const to = num("toBlock")
  if (from !== undefined && to !== undefined && from > to) {
    return problem("fromBlock", `fromBlock ${from} is after toBlock ${to}`)
  }
  if (typeof p.startDate === "string" && typeof p.endDate === "string" && p.startDate > p.endDate) {
    return problem("startDate", `startDate ${p.startDate} is after endDate ${p.endDate}`)
  }
  switch (action) {
    case "txlistinternal":
      if (p.txHash !== undefined) {
        for (const other of ["address", "startBlock", "endBlock"]) {
          if (p[other] !== undefined) return problem("txHash", `txHash cannot be combined with ${other}`)
        }
      }
      return Option.none()
    case "tokentx":
    case "tokennfttx":
    case "token1155tx":
      return p.address === undefined && p.contractAddress === undefined
        ? problem("address", "give address, contractAddress, or both")
        : Option.none()
    case "getLogs": {
      const topics = [0, 1, 2, 3].filter((i) => p[`topic${i}`] !== undefined)
      if (p.address === undefined && topics.length === 0) {
        return problem("address", "give address, at least one topic, or both")
      }
      const operators = (p.topicOperators ?? {}) as Readonly<Record<string, unknown>>
      for (const [pair, operator] of Object.entries(operators)) {
        if (operator === undefined) continue
        const [a, b] = pair.split("_").map(Number)
        if (!topics.includes(a ?? -1) || !topics.includes(b ?? -1)) {
          return problem(`topicOperators.${pair}`, `${pair} needs both topic${a} and topic${b}`)
        }
      }
      return Option.none()
    }
    default:
      return Option.none()
  }
}

/**
 * page × offset and offset against the window: the plan's, or `known`, the one the client has learned
 * from the server for its key; `probe`: page × offset is not checked (the server settles it).
 *
 * @since 0.1.0
 * @category checks
 */
export const windowCheck = (
  plan: Plan.Plan,
  operation: Plan.Operation,
  p: Readonly<Record<string, unknown>>,
  known: { readonly window?: number | undefined; readonly probe?: boolean | undefined } = {}
): Option.Option<Problem> => {
  if (operation.paging !== "list" && operation.paging !== "paged") return Option.none()
  const rows = Plan.rowsPerRequest(plan, operation)
  const window = known.probe === true ? Number.POSITIVE_INFINITY : known.window ?? Plan.resultWindow(plan, operation)
  const offset = typeof p.offset === "number" ? p.offset : undefined
  const page = typeof p.page === "number" ? p.page : 1
  if (offset !== undefined && offset > rows) {
    return problem("offset", `offset ${offset} is over the ${rows} rows a request may return on plan ${plan}`)
  }
  const effective = offset ?? rows
  if (page * effective > window) {
    return problem(
      "page",
      `page × offset = ${page} × ${effective} is over the result window of ${window} on plan ${plan}` +
        (offset === undefined ? " (offset defaults to the largest allowed)" : "")
    )
  }
  return Option.none()
}

/**
 * The first issue of a failed decoding as a problem with one parameter.
 *
 * @since 0.1.0
 * @category utils
 */
export const firstIssue = (error: ParseResult.ParseError): Problem => {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  const path = issue?.path.map(String) ?? []
  return { parameter: path.length > 0 ? path.join(".") : "params", detail: issue?.message ?? "invalid parameters" }
}


const decoders = new Map<Plan.OperationName, (input: unknown) => Either.Either<Readonly<Record<string, unknown>>, ParseResult.ParseError>>()

/**
 * Checks the input of an operation: its schema (unknown names refused), then the checks between
 * parameters. The first problem, or the decoded parameters.
 *
 * @since 0.1.0
 * @category checks
 */
export const check = (name: Plan.OperationName, input: Readonly<Record<string, unknown>>): Either.Either<Readonly<Record<string, unknown>>, Problem> => {
  let decode = decoders.get(name)
  if (decode === undefined) {
    decode = Schema.decodeUnknownEither(Params[name] as unknown as Schema.Schema<Readonly<Record<string, unknown>>, unknown, never>, {
      errors: "first",
      onExcessProperty: "error"
    })
    decoders.set(name, decode)
  }
  const decoded = decode(input)
  if (Either.isLeft(decoded)) return Either.left(firstIssue(decoded.left))
  return Option.match(crossCheck(name, decoded.right), { onNone: () => Either.right(decoded.right), onSome: Either.left })
}

/**
 * The call a problem is about: what every error carries.
 *
 * @since 0.1.0
 * @category models
 */
export interface CallContext {
  readonly chainId: number
  readonly module: string
  readonly action: string
  /** The plan the client runs with. */
  readonly plan?: string | undefined
  /** The lowest plan the call needs. */
  readonly requiredPlan?: string | undefined
}

/**
 * A parameter problem as the error a caller gets.
 *
 * @since 0.1.0
 * @category errors
 */
export const invalid = (ctx: CallContext, p: Problem): Errors.InvalidInputError =>
  new Errors.InvalidInputError({ ...ctx, parameter: p.parameter, detail: p.detail })

/**
 * The plan's rules for `operation` on `ctx.chainId` with these wire parameters: the plan it needs, the
 * chains open to free keys, topholders' chains. Checked before a call is sent, and by the data-set
 * sources as they are made (before a pipeline's first export sends anything).
 *
 * @since 0.1.0
 * @category checks
 */
export const planRules = (
  plan: Plan.Plan,
  operation: Plan.Operation,
  wire: Readonly<Record<string, unknown>>,
  ctx: CallContext
): Effect.Effect<void, Errors.PlanTierError | Errors.ChainNotOnPlanError | Errors.UnsupportedChainError> =>
  Effect.gen(function*() {
    const required = Plan.requiredPlan(operation, wire)
    if (!Plan.atLeast(plan, required)) {
      return yield* new Errors.PlanTierError({
        ...ctx,
        plan,
        requiredPlan: required,
        detail: `${ctx.action} is not available on plan ${plan}`
      })
    }
    if (plan === "free" && !operation.allChains && !Chain.isFreeTier(ctx.chainId)) {
      return yield* new Errors.ChainNotOnPlanError({
        ...ctx,
        plan,
        detail: `${Chain.label(ctx.chainId)} is not open to free keys (only getsourcecode, getabi and checkverifystatus are)`
      })
    }
    if (operation.action === "topholders" && ctx.chainId === Chain.HYPEREVM) {
      return yield* new Errors.UnsupportedChainError({
        ...ctx,
        detail: `topholders does not support ${Chain.label(ctx.chainId)}`
      })
    }
  })
