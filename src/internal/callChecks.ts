/**
 * From what a caller passes to the {@link Call} that is sent, every check made before anything is sent:
 * the chain (a chain the API serves, else the client's default), the operation's parameters (Params.ts),
 * the plan's rules (Part A.1, A.5, A.6) and window, a configured key, and the module/action/parameter
 * names of the escape hatch `request`. The first problem is the caller's error, with zero requests.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Chain from "../Chain.js"
import type * as ExplorerConfig from "../Config.js"
import * as Errors from "../ExplorerError.js"
import type { RequestArgs } from "../ExplorerClient.js"
import * as Plan from "../Plan.js"
import type * as Classify from "./classify.js"
import * as Params from "../Params.js"
import { type Call, contextOf } from "./transport.js"

/** A parameter problem as the error a caller gets (the checks are public: Params.ts). */
export const invalid = Params.invalid

/** Resolves and checks the chain id: a number the API serves, else refuse before sending. */
export const resolveChain = (
  config: ExplorerConfig.ExplorerConfig,
  chainId: unknown,
  module: string,
  action: string
): Effect.Effect<Chain.ChainId, Errors.InvalidInputError | Errors.UnsupportedChainError> =>
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

/** The plan's rules for an operation (Params.ts: the data sets check them as well). */
export const planRules = Params.planRules

/** The plan's rules and the key, checked before sending (Part A.1, A.5, A.6). */
export const planCheck = (config: ExplorerConfig.ExplorerConfig, call: Call): Effect.Effect<void, Errors.ExplorerError> =>
  Effect.gen(function*() {
    if (call.operation !== undefined) yield* planRules(config.plan, call.operation, call.wire, contextOf(call))
    if (Option.isNone(config.apiKey)) {
      return yield* new Errors.InvalidApiKeyError({
        ...contextOf(call),
        detail: "no API key configured (set EXPLORER_API_KEY or ETHERSCAN_API_KEY, or pass apiKey)"
      })
    }
  })

/**
 * A named operation's call: its chain, its parameters (Params.ts), the plan's rules and the key, then
 * the plan's result window — the first problem as the caller's error, before anything is sent.
 */
export const operationCall = (
  config: ExplorerConfig.ExplorerConfig,
  name: Plan.OperationName,
  params: Readonly<Record<string, unknown>> | undefined,
  known: { readonly window?: number | undefined; readonly probe?: boolean | undefined } = {}
): Effect.Effect<Call, Errors.ExplorerError> =>
  Effect.gen(function*() {
    const operation: Plan.Operation = Plan.operations[name]
    const input = params ?? {}
    const chainId = yield* resolveChain(config, input.chainId, operation.module, operation.action)
    const ctx: Classify.CallContext = { chainId, module: operation.module, action: operation.action }
    yield* Effect.annotateCurrentSpan("explorer.chain_id", chainId)
    const decoded = yield* Either.mapLeft(Params.check(name, input), (problem) => invalid(ctx, problem))
    const call: Call = { chainId, module: operation.module, action: operation.action, operation, wire: Params.toWire(decoded) }
    yield* planCheck(config, call)
    const window = Params.windowCheck(config.plan, operation, decoded, known)
    if (Option.isSome(window)) return yield* invalid(ctx, window.value)
    return call
  })

/** Parameters the client sets itself: `request` may not pass them. */
const RESERVED = new Set(["chainid", "module", "action", "apikey"])

/** A module or action name of the API. */
export const NAME = /^[A-Za-z0-9_]+$/

/**
 * The escape hatch's module, action and parameters checked and put on the wire as given (the values
 * are not validated: `request` is for what the client does not name).
 */
export const requestCall = (
  config: ExplorerConfig.ExplorerConfig,
  args: Omit<RequestArgs<unknown, unknown>, "schema">
): Effect.Effect<Call, Errors.ExplorerError> =>
  Effect.gen(function*() {
    const chainId = yield* resolveChain(config, args.chainId, args.module, args.action)
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
    yield* planCheck(config, call)
    return call
  })
