/**
 * The service's rules as the simulator holds them, written from the facts file (`explorer-api.md`:
 * Part A where the facts leave a choice, Part B otherwise): the plans and their rates, the operations
 * served and the plan each needs, the 2/s throttle, result windows and per-request caps, the free-tier
 * chains, an operation a chain does not offer, the daily export cap.
 *
 * A second copy on purpose: the client holds its own in `Plan.ts`. A simulator that asked the client
 * would confirm a wrong rule in every test; `test/simulator/rules.test.ts` compares the two copies
 * instead, so a drift becomes a question to settle from the facts file.
 */

/** The plans, lowest first (Part A.1). */
export const plans = ["free", "lite", "standard", "advanced", "professional", "proplus"] as const

/** A plan name, as the simulator's key table takes it. */
export type PlanName = (typeof plans)[number]

/** Calls per second and per day of each plan (Part A.1, facts §3.1). */
export const planRates: Readonly<Record<PlanName, { readonly perSecond: number; readonly perDay: number }>> = {
  free: { perSecond: 3, perDay: 100_000 },
  lite: { perSecond: 5, perDay: 100_000 },
  standard: { perSecond: 10, perDay: 200_000 },
  advanced: { perSecond: 20, perDay: 500_000 },
  professional: { perSecond: 30, perDay: 1_000_000 },
  proplus: { perSecond: 30, perDay: 1_500_000 }
}

/** Whether `plan` is `minimum` or a higher plan. */
export const planReaches = (plan: PlanName, minimum: PlanName): boolean => plans.indexOf(plan) >= plans.indexOf(minimum)

/** The modules the service knows; any other answers "Error! Missing Or invalid Module name". */
export const modules: ReadonlySet<string> = new Set([
  "account", "contract", "transaction", "block", "logs", "token", "gastracker", "stats", "proxy", "nametag", "getapilimit"
])

/** The daily statistics beside dailytx and dailygasused (PRO, one answer per date range). */
export const dailySeries = [
  "dailyavgblocksize", "dailyavgblocktime", "dailyavggaslimit", "dailyavggasprice", "dailyavghashrate",
  "dailyavgnetdifficulty", "dailyblkcount", "dailyblockrewards", "dailynetutilization", "dailynewaddress",
  "dailytxnfee", "dailyuncleblkcount", "ethdailymarketcap", "ethdailyprice"
] as const

/** The actions the simulator serves, by module; any other action answers "Error! Missing Or invalid Action name". */
const actionsByModule = {
  account: [
    "balance", "balancehistory", "txlist", "txlistinternal", "tokentx", "tokennfttx", "token1155tx",
    "tokenbalancehistory", "addresstokenbalance", "addresstokennftbalance", "fundedby",
    "balancemulti", "tokenbalance", "getminedblocks", "txsBeaconWithdrawal"
  ],
  contract: [
    "getsourcecode", "getabi", "getcontractcreation", "checkverifystatus", "verifysourcecode", "verifyproxycontract",
    "checkproxyverification"
  ],
  block: ["getblocknobytime", "getblockcountdown", "getblockreward", "getblocktxnscount"],
  logs: ["getLogs"],
  token: ["tokeninfo", "topholders", "tokenholderlist"],
  stats: [
    "ethsupply", "ethsupply2", "dailytx", "dailygasused", "tokensupply", "ethprice", "tokensupplyhistory", "chainsize", "nodecount",
    ...dailySeries
  ],
  gastracker: ["gasoracle", "gasestimate"],
  transaction: ["getstatus", "gettxreceiptstatus"],
  proxy: [
    "eth_gasPrice", "eth_blockNumber", "eth_getBlockByNumber", "eth_getUncleByBlockNumberAndIndex",
    "eth_getBlockTransactionCountByNumber", "eth_getTransactionByHash", "eth_getTransactionByBlockNumberAndIndex",
    "eth_getTransactionCount", "eth_sendRawTransaction", "eth_getTransactionReceipt", "eth_call", "eth_getCode",
    "eth_getStorageAt", "eth_estimateGas"
  ],
  nametag: ["getaddresstag", "exportaddresstags", "getlabelmasterlist"],
  getapilimit: ["getapilimit"]
} as const

/** An action the simulator serves (action names are unique across modules). */
export type Action = (typeof actionsByModule)[keyof typeof actionsByModule][number]

/** One served operation. */
export interface Endpoint {
  readonly module: string
  readonly action: Action
}

/** Every served operation. */
export const endpoints: ReadonlyArray<Endpoint> = Object.entries(actionsByModule).flatMap(([module, actions]) =>
  actions.map((action: Action) => ({ module, action }))
)

const endpointByAction = new Map<string, Endpoint>(endpoints.map((e) => [e.action, e]))

/** The served operation of a module/action pair, or `undefined` (an unknown action, or the wrong module). */
export const endpointOf = (module: string, action: string): Endpoint | undefined => {
  const e = endpointByAction.get(action)
  return e !== undefined && e.module === module ? e : undefined
}

/** The PRO operations: standard and above (Part A.1). */
const PRO: ReadonlySet<Action> = new Set<Action>([
  "tokeninfo", "tokenbalancehistory", "addresstokennftbalance", "topholders", "dailygasused", "balancehistory",
  "addresstokenbalance", "fundedby", "tokenholderlist", "dailytx", "tokensupplyhistory", ...dailySeries
])

/** The name-tag operations: Pro Plus, the highest plan modelled (Part A.1, facts §2.23–2.25). */
const PRO_PLUS: ReadonlySet<Action> = new Set<Action>(["getaddresstag", "exportaddresstags", "getlabelmasterlist"])

/**
 * The lowest plan for a call (`params` normalised: lower-case names, no empty values). txlistinternal by
 * block range — neither `address` nor `txhash` — is PRO since 2026-07-01 (facts §2.12, §3.3).
 */
export const requiredPlan = (action: Action, params: Readonly<Record<string, string>>): PlanName => {
  if (PRO_PLUS.has(action)) return "proplus"
  if (PRO.has(action)) return "standard"
  const byBlockRange = action === "txlistinternal" && params.address === undefined && params.txhash === undefined
  return byBlockRange ? "standard" : "free"
}

/** The shared window of the throttled operations, in calls per second, whatever the plan (Part A.2). */
export const THROTTLED_PER_SECOND = 2

/** The operations throttled to 2 calls/s on top of the plan's rate (Part A.2, facts §3.2). */
const THROTTLED: ReadonlySet<Action> = new Set<Action>([
  "balancehistory", "tokenbalancehistory", "addresstokenbalance", "addresstokennftbalance", "tokeninfo", "topholders",
  "fundedby", "getaddresstag", "exportaddresstags", "tokensupplyhistory"
])

/** Whether an operation also counts against the shared 2/s window. */
export const isThrottled = (action: Action): boolean => THROTTLED.has(action)

/** exportaddresstags: at most 100 calls a day on top of the plan's daily cap (facts §2.24, §3.2). */
export const EXPORT_ADDRESS_TAGS_PER_DAY = 100

/**
 * The list operations whose result window is 1,000 on the free plan and 10,000 on paid plans; every
 * other paged operation has 10,000 on every plan (Part A.3, facts §3.3).
 */
const FREE_WINDOW_SHRINKS: ReadonlySet<Action> = new Set<Action>([
  "txlist", "txlistinternal", "tokentx", "tokennfttx", "token1155tx", "getLogs", "tokenholderlist",
  "getminedblocks", "txsBeaconWithdrawal"
])

/**
 * The free plan's result window on the list operations: the facts cut the free tier's records per
 * request to 1,000 and leave open whether `page × offset` is capped at 1,000 too or still at 10,000
 * (the `freeWindow` option chooses; default 1,000).
 */
export type FreeWindow = 1_000 | 10_000

/** The largest `page × offset` a request may ask for; above it: "Result window is too large…". */
export const resultWindow = (plan: PlanName, action: Action, freeWindow: FreeWindow = 1_000): number =>
  plan === "free" && FREE_WINDOW_SHRINKS.has(action) ? freeWindow : 10_000

/** Operations that return at most 1,000 rows a request on every plan: getLogs, topholders (Part A.3). */
const PER_REQUEST_CAP: Readonly<Partial<Record<Action, number>>> = { getLogs: 1_000, topholders: 1_000 }

/**
 * The most rows one answer holds, and the `offset` when none is given (Part A.4): 1,000 on the free
 * plan's list operations whatever its window (facts §3.3, "max records per request"), else 10,000.
 */
export const rowsPerRequest = (plan: PlanName, action: Action): number =>
  PER_REQUEST_CAP[action] ?? resultWindow(plan, action, 1_000)

/** The paid-only chains: BSC, Base, OP, Avalanche and their testnets (Part A.5, facts §3.4). */
const PAID_ONLY_CHAINS: ReadonlySet<number> = new Set([56, 97, 8453, 84532, 10, 11155420, 43114, 43113])

/**
 * The operations a free key may call on a paid-only chain too (facts §3.4, the exception: "source code
 * and ABI endpoints"; the verification submissions and status polls are taken as ones of them).
 */
const ON_EVERY_CHAIN_FOR_FREE: ReadonlySet<Action> = new Set<Action>([
  "getsourcecode", "getabi", "checkverifystatus", "verifysourcecode", "verifyproxycontract", "checkproxyverification"
])

/** Whether a free key is refused this operation on this chain ("Free API access is not supported…"). */
export const refusedToFreeKeys = (chainId: number, action: Action): boolean =>
  PAID_ONLY_CHAINS.has(chainId) && !ON_EVERY_CHAIN_FOR_FREE.has(action)

/** Served chains an operation is not offered on: topholders on HyperEVM, 999 (facts §4, Part A.6). */
const NOT_OFFERED_ON: Readonly<Partial<Record<Action, ReadonlySet<number>>>> = { topholders: new Set([999]) }

/** Whether a served chain offers this operation. */
export const offeredOn = (chainId: number, action: Action): boolean => NOT_OFFERED_ON[action]?.has(chainId) !== true
