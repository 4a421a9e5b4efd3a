/**
 * `explorer-etl call <module> <action> [name=value ...]`: one request, the decoded result as JSON on
 * stdout. Parameters use the API's own names (`contractaddress=0x…`, `startblock=1`, `topic0_1_opr=or`);
 * a named operation is checked and decoded by the client's schemas, any other module/action goes
 * through the client's generic `request` and prints the raw `result`.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { ExplorerClient } from "../ExplorerClient.js"
import * as Plan from "../Plan.js"
import * as Environment from "./Environment.js"
import { badFlag } from "./Errors.js"

const moduleArg = Args.text({ name: "module" }).pipe(Args.withDescription("API module, e.g. account"))
const actionArg = Args.text({ name: "action" }).pipe(Args.withDescription("API action, e.g. txlist"))
const paramsArg = Args.text({ name: "name=value" }).pipe(
  Args.repeated,
  Args.withDescription("query parameters under the API's names, e.g. address=0x… startblock=0")
)

/** The API's parameter names → the client's camelCase names. */
const renames: Readonly<Record<string, string>> = {
  contractaddress: "contractAddress",
  startblock: "startBlock",
  endblock: "endBlock",
  fromblock: "fromBlock",
  toblock: "toBlock",
  blockno: "blockNo",
  txhash: "txHash",
  startdate: "startDate",
  enddate: "endDate",
  gasprice: "gasPrice",
  contractaddresses: "contractAddresses",
  clienttype: "clientType",
  syncmode: "syncMode",
  sourcecode: "sourceCode",
  codeformat: "codeFormat",
  contractname: "contractName",
  compilerversion: "compilerVersion",
  optimizationused: "optimizationUsed",
  constructorarguements: "constructorArguments",
  constructorarguments: "constructorArguments",
  evmversion: "evmVersion",
  licensetype: "licenseType",
  expectedimplementation: "expectedImplementation"
}

const numeric = new Set([
  "startBlock", "endBlock", "fromBlock", "toBlock", "blockNo", "page", "offset", "timestamp", "limit", "optimizationUsed", "runs"
])
/** Parameters the API takes comma-separated and the client as a list (balancemulti's `address`). */
const listValued: Readonly<Record<string, string>> = { balancemulti: "address", getcontractcreation: "contractAddresses" }

/** Reserved: set by the client itself. */
const reserved = new Set(["chainid", "module", "action", "apikey"])

/** `name=value` pairs → the client's params for a named operation (API names and camelCase both accepted). */
export const toMethodParams = (
  action: string,
  chainId: number,
  pairs: ReadonlyArray<readonly [string, string]>
) =>
  Effect.gen(function*() {
    const params: Record<string, unknown> = { chainId }
    const operators: Record<string, string> = {}
    for (const [rawName, value] of pairs) {
      const op = /^topic([0-3])_([0-3])_opr$/.exec(rawName)
      if (op !== null) {
        operators[`${op[1]}_${op[2]}`] = value
        continue
      }
      let name = renames[rawName.toLowerCase()] ?? rawName
      if (action === "topholders" && name === "offset") name = "limit"
      if (listValued[action] === name) {
        params[name] = value.split(",").map((v) => v.trim())
      } else if (name === "boolean") {
        // eth_getBlockByNumber's `boolean=true|false`; any other text is left for the check to refuse
        params[name] = value === "true" ? true : value === "false" ? false : value
      } else if (name === "gasPrice" && /^\d+$/.test(value)) {
        params[name] = BigInt(value)
      } else if (numeric.has(name) && value !== "latest") {
        if (!/^\d+$/.test(value)) return yield* badFlag("call", rawName, `must be a non-negative integer, got "${value}"`, chainId)
        params[name] = Number(value)
      } else {
        params[name] = value
      }
    }
    if (Object.keys(operators).length > 0) params.topicOperators = operators
    return params
  })

const parsePairs = (chainId: number, raw: ReadonlyArray<string>) =>
  Effect.forEach(raw, (pair) => {
    const at = pair.indexOf("=")
    if (at <= 0) return Effect.fail(badFlag("call", pair, "parameters are name=value pairs", chainId))
    const name = pair.slice(0, at)
    if (reserved.has(name.toLowerCase())) {
      return Effect.fail(badFlag("call", name, "is set by explorer-etl (use --chain, --api-key)", chainId))
    }
    return Effect.succeed([name, pair.slice(at + 1)] as const)
  })

/** JSON with bigints as exact decimal strings. */
export const toJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v), 2)

/** `explorer-etl call …` */
export const callCommand = Command.make(
  "call",
  { module: moduleArg, action: actionArg, params: paramsArg, ...Environment.apiOptions },
  (a) =>
    Effect.gen(function*() {
      const pairs = yield* parsePairs(a.chain, a.params)
      const client = yield* ExplorerClient
      const operation = Plan.operationOf(a.module, a.action)
      let result: unknown
      if (operation !== undefined) {
        const params = yield* toMethodParams(a.action, a.chain, pairs)
        const method = client[operation.action as Plan.OperationName] as (p: unknown) => Effect.Effect<unknown, unknown>
        result = yield* method(params)
      } else {
        result = yield* client.request({
          chainId: a.chain,
          module: a.module,
          action: a.action,
          params: Object.fromEntries(pairs),
          schema: Schema.Unknown
        })
      }
      yield* Console.log(toJson(result))
    }).pipe(Effect.provide(Environment.clientLayer(a)))
).pipe(Command.withDescription("one request; the decoded result as JSON on stdout"))
