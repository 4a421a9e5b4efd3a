/**
 * Plans and operations: what each API plan may call, how fast, and how many records a request can
 * reach. The client refuses a call these rules do not allow before sending it.
 *
 * @example
 * import { Plan } from "explorer-etl"
 * Plan.limits.standard.callsPerSecond // 10
 * Plan.allows("free", "topholders")   // false: a PRO operation
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import * as Schema from "effect/Schema"

/**
 * The plans of the explorer API, lowest first.
 *
 * @since 0.1.0
 * @category constants
 */
export const plans = ["free", "lite", "standard", "advanced", "professional", "proplus"] as const

/**
 * A plan name as the config, the CLI and the simulator's key table take it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Plan = Schema.Literal(...plans)
/**
 * The type of the values of the `Plan` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type Plan = typeof Plan.Type

/**
 * Calls per second and per day of each plan.
 *
 * @since 0.1.0
 * @category constants
 */
export const limits: Readonly<Record<Plan, { readonly callsPerSecond: number; readonly callsPerDay: number }>> = {
  free: { callsPerSecond: 3, callsPerDay: 100_000 },
  lite: { callsPerSecond: 5, callsPerDay: 100_000 },
  standard: { callsPerSecond: 10, callsPerDay: 200_000 },
  advanced: { callsPerSecond: 20, callsPerDay: 500_000 },
  professional: { callsPerSecond: 30, callsPerDay: 1_000_000 },
  proplus: { callsPerSecond: 30, callsPerDay: 1_500_000 }
}

/**
 * The calls per second a key of `plan` gets, or `undefined` for a name that is not a plan (a source of
 * your own may name any).
 *
 * @since 0.1.0
 * @category utils
 */
export const callsPerSecondOf = (plan: string): number | undefined =>
  (plans as ReadonlyArray<string>).includes(plan) ? limits[plan as Plan].callsPerSecond : undefined

/**
 * The rate of the operations throttled to 2 calls/s whatever the plan.
 *
 * @since 0.1.0
 * @category constants
 */
export const THROTTLED_CALLS_PER_SECOND = 2

/**
 * exportaddresstags is also capped at 100 calls a day.
 *
 * @since 0.1.0
 * @category constants
 */
export const EXPORT_ADDRESS_TAGS_PER_DAY = 100

/**
 * 1-based rank of a plan, for "at least" comparisons.
 *
 * @since 0.1.0
 * @category utils
 */
export const rank = (plan: Plan): number => plans.indexOf(plan)

/**
 * Whether `plan` is `minimum` or higher.
 *
 * @since 0.1.0
 * @category guards
 */
export const atLeast = (plan: Plan, minimum: Plan): boolean => rank(plan) >= rank(minimum)

/**
 * How an operation pages:
 * - `none`: one answer, no page/offset;
 * - `list`: lists with the plan-dependent window (1,000 on free): the block-ordered ones (txlist, getLogs,
 *   txsBeaconWithdrawal, …) and getminedblocks (page-numbered, newest first);
 * - `paged`: page-numbered lists without block order, window 10,000 on every plan;
 * - `limit`: topholders, whose `offset` is the number of holders (≤ 1,000), no page.
 *
 * @since 0.1.0
 * @category models
 */
export type Paging = "none" | "list" | "paged" | "limit"

/**
 * What the library knows of one named operation.
 *
 * @since 0.1.0
 * @category models
 */
export interface Operation {
  readonly module: string
  readonly action: string
  /** The lowest plan that may call it. */
  readonly minimumPlan: Plan
  /** Throttled to 2 calls/s on top of the plan rate. */
  readonly throttled: boolean
  readonly paging: Paging
  /** Served to free keys on paid-only chains too (getsourcecode, getabi). */
  readonly allChains: boolean
  /** Sent as a POST form (the verification submissions); every other operation is a GET. */
  readonly post?: boolean
}

const op = (
  module: string,
  action: string,
  minimumPlan: Plan,
  throttled: boolean,
  paging: Paging,
  allChains = false
): Operation => ({ module, action, minimumPlan, throttled, paging, allChains })

/**
 * The named operations, keyed by action (actions are unique across modules).
 *
 * @since 0.1.0
 * @category constants
 */
export const operations = {
  eth_gasPrice: op("proxy", "eth_gasPrice", "free", false, "none"),
  tokeninfo: op("token", "tokeninfo", "standard", true, "none"),
  tokenbalancehistory: op("account", "tokenbalancehistory", "standard", true, "none"),
  addresstokennftbalance: op("account", "addresstokennftbalance", "standard", true, "paged"),
  topholders: op("token", "topholders", "standard", true, "limit"),
  getsourcecode: op("contract", "getsourcecode", "free", false, "none", true),
  dailygasused: op("stats", "dailygasused", "standard", false, "none"),
  balance: op("account", "balance", "free", false, "none"),
  balancehistory: op("account", "balancehistory", "standard", true, "none"),
  addresstokenbalance: op("account", "addresstokenbalance", "standard", true, "paged"),
  txlist: op("account", "txlist", "free", false, "list"),
  txlistinternal: op("account", "txlistinternal", "free", false, "list"),
  tokentx: op("account", "tokentx", "free", false, "list"),
  tokennfttx: op("account", "tokennfttx", "free", false, "list"),
  token1155tx: op("account", "token1155tx", "free", false, "list"),
  fundedby: op("account", "fundedby", "standard", true, "none"),
  getblocknobytime: op("block", "getblocknobytime", "free", false, "none"),
  getabi: op("contract", "getabi", "free", false, "none", true),
  tokenholderlist: op("token", "tokenholderlist", "standard", false, "list"),
  getLogs: op("logs", "getLogs", "free", false, "list"),
  dailytx: op("stats", "dailytx", "standard", false, "none"),
  ethsupply: op("stats", "ethsupply", "free", false, "none"),
  getaddresstag: op("nametag", "getaddresstag", "proplus", true, "none"),
  exportaddresstags: op("nametag", "exportaddresstags", "proplus", true, "none"),
  getlabelmasterlist: op("nametag", "getlabelmasterlist", "proplus", false, "none"),
  balancemulti: op("account", "balancemulti", "free", false, "none"),
  tokenbalance: op("account", "tokenbalance", "free", false, "none"),
  tokensupply: op("stats", "tokensupply", "free", false, "none"),
  ethprice: op("stats", "ethprice", "free", false, "none"),
  gasoracle: op("gastracker", "gasoracle", "free", false, "none"),
  gasestimate: op("gastracker", "gasestimate", "free", false, "none"),
  getblockcountdown: op("block", "getblockcountdown", "free", false, "none"),
  getstatus: op("transaction", "getstatus", "free", false, "none"),
  gettxreceiptstatus: op("transaction", "gettxreceiptstatus", "free", false, "none"),
  getminedblocks: op("account", "getminedblocks", "free", false, "list"),
  txsBeaconWithdrawal: op("account", "txsBeaconWithdrawal", "free", false, "list"),
  getblockreward: op("block", "getblockreward", "free", false, "none"),
  getcontractcreation: op("contract", "getcontractcreation", "free", false, "none"),
  checkverifystatus: op("contract", "checkverifystatus", "free", false, "none", true),
  verifysourcecode: { ...op("contract", "verifysourcecode", "free", false, "none", true), post: true },
  verifyproxycontract: { ...op("contract", "verifyproxycontract", "free", false, "none", true), post: true },
  checkproxyverification: op("contract", "checkproxyverification", "free", false, "none", true),
  ethsupply2: op("stats", "ethsupply2", "free", false, "none"),
  getblocktxnscount: op("block", "getblocktxnscount", "free", false, "none"),
  tokensupplyhistory: op("stats", "tokensupplyhistory", "standard", true, "none"),
  chainsize: op("stats", "chainsize", "free", false, "none"),
  dailyavgblocksize: op("stats", "dailyavgblocksize", "standard", false, "none"),
  dailyavgblocktime: op("stats", "dailyavgblocktime", "standard", false, "none"),
  dailyavggaslimit: op("stats", "dailyavggaslimit", "standard", false, "none"),
  dailyavggasprice: op("stats", "dailyavggasprice", "standard", false, "none"),
  dailyavghashrate: op("stats", "dailyavghashrate", "standard", false, "none"),
  dailyavgnetdifficulty: op("stats", "dailyavgnetdifficulty", "standard", false, "none"),
  dailyblkcount: op("stats", "dailyblkcount", "standard", false, "none"),
  dailyblockrewards: op("stats", "dailyblockrewards", "standard", false, "none"),
  dailynetutilization: op("stats", "dailynetutilization", "standard", false, "none"),
  dailynewaddress: op("stats", "dailynewaddress", "standard", false, "none"),
  dailytxnfee: op("stats", "dailytxnfee", "standard", false, "none"),
  dailyuncleblkcount: op("stats", "dailyuncleblkcount", "standard", false, "none"),
  ethdailymarketcap: op("stats", "ethdailymarketcap", "standard", false, "none"),
  ethdailyprice: op("stats", "ethdailyprice", "standard", false, "none"),
  nodecount: op("stats", "nodecount", "free", false, "none"),
  getapilimit: op("getapilimit", "getapilimit", "free", false, "none"),
  eth_blockNumber: op("proxy", "eth_blockNumber", "free", false, "none"),
  eth_getBlockByNumber: op("proxy", "eth_getBlockByNumber", "free", false, "none"),
  eth_getUncleByBlockNumberAndIndex: op("proxy", "eth_getUncleByBlockNumberAndIndex", "free", false, "none"),
  eth_getBlockTransactionCountByNumber: op("proxy", "eth_getBlockTransactionCountByNumber", "free", false, "none"),
  eth_getTransactionByHash: op("proxy", "eth_getTransactionByHash", "free", false, "none"),
  eth_getTransactionByBlockNumberAndIndex: op("proxy", "eth_getTransactionByBlockNumberAndIndex", "free", false, "none"),
  eth_getTransactionCount: op("proxy", "eth_getTransactionCount", "free", false, "none"),
  eth_sendRawTransaction: op("proxy", "eth_sendRawTransaction", "free", false, "none"),
  eth_getTransactionReceipt: op("proxy", "eth_getTransactionReceipt", "free", false, "none"),
  eth_call: op("proxy", "eth_call", "free", false, "none"),
  eth_getCode: op("proxy", "eth_getCode", "free", false, "none"),
  eth_getStorageAt: op("proxy", "eth_getStorageAt", "free", false, "none"),
  eth_estimateGas: op("proxy", "eth_estimateGas", "free", false, "none")
} as const satisfies Record<string, Operation>

/**
 * The action name of a named operation.
 *
 * @since 0.1.0
 * @category models
 */
export type OperationName = keyof typeof operations

/**
 * The operation of a module/action pair, or `undefined` for one the library does not name.
 *
 * @since 0.1.0
 * @category utils
 */
export const operationOf = (module: string, action: string): Operation | undefined => {
  const found = (operations as Record<string, Operation>)[action]
  return found !== undefined && found.module === module ? found : undefined
}

/**
 * The lowest plan for a call. Same as `minimumPlan`, except txlistinternal by block range (no
 * `address`, no `txhash`), which became a PRO operation on 2026-07-01.
 *
 * @since 0.1.0
 * @category utils
 */
export const requiredPlan = (operation: Operation, params: Readonly<Record<string, unknown>>): Plan =>
  operation.action === "txlistinternal" && params.address === undefined && params.txhash === undefined
    ? "standard"
    : operation.minimumPlan

/**
 * Whether `plan` may call `action` (with these params).
 *
 * @since 0.1.0
 * @category guards
 */
export const allows = (plan: Plan, action: OperationName, params: Readonly<Record<string, unknown>> = {}): boolean =>
  atLeast(plan, requiredPlan(operations[action], params))

/**
 * Per-request record cap of getLogs and topholders, on every plan.
 *
 * @since 0.1.0
 * @category constants
 */
export const HARD_ROW_CAP = 1_000

/**
 * The result window: the largest `page × offset` a request may ask for.
 * `list` operations: 1,000 on free, 10,000 on paid plans; `paged` ones: 10,000 on every plan.
 *
 * @since 0.1.0
 * @category utils
 */
export const resultWindow = (plan: Plan, operation: Operation): number =>
  operation.paging === "list" && plan === "free" ? 1_000 : 10_000

/**
 * The most rows one request returns (the "effective cap" a full page reaches): 1,000 for getLogs and
 * topholders, otherwise the result window.
 *
 * @since 0.1.0
 * @category utils
 */
export const rowsPerRequest = (plan: Plan, operation: Operation): number =>
  operation.action === "getLogs" || operation.paging === "limit"
    ? HARD_ROW_CAP
    : Math.min(resultWindow(plan, operation), 10_000)
