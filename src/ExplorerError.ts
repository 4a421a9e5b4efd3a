/**
 * Every typed error of explorer-etl. Each carries the chain, module and action of the call and, for
 * answers of the server, the server's own words (`detail`) — never the API key nor the request URL.
 *
 * Each error is declared once, through one class helper: its tag, the fields it adds to the
 * call's context, and what its message adds around the server's words. Every message reads
 * `module/action on chain N: <before>detail<after>`.
 *
 * @example
 * import { Effect } from "effect"
 * explorer.topholders({ chainId: 999, contractAddress }).pipe(
 *   Effect.catchTag("UnsupportedChainError", (e) => Effect.logWarning(e.message)))
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import * as Schema from "effect/Schema"

/** Where a failure happened: the call, never its key. */
const context = {
  /** The chain of the call; 0 when the failure is not a call's (a pipeline's config, a CLI option). */
  chainId: Schema.Number,
  module: Schema.String,
  action: Schema.String,
  /** The server's own words (its `result` text), or our explanation for errors raised before sending. */
  detail: Schema.String
}

/** The call's context, as every error holds it. */
type Context = Schema.Struct.Type<typeof context>

/**
 * The message of every error: the call (and its chain, when it has one), then the server's words with
 * what the error adds around them.
 */
const messageOf = (error: Context, before: string, after: string): string =>
  `${error.module}/${error.action}${error.chainId === 0 ? "" : ` on chain ${error.chainId}`}: ${before}${error.detail}${after}`

/** What an error's message adds before and after the server's words. */
interface MessageParts<A> {
  readonly before?: (error: A) => string
  readonly after?: (error: A) => string
}

/** The class an error extends: its tag, the context's fields and its own. */
type ErrorClass<Self, Tag extends string, Fields extends Schema.Struct.Fields> = Schema.TaggedErrorClass<
  Self,
  Tag,
  { readonly _tag: Schema.tag<Tag> } & typeof context & Fields
>

/**
 * The class of one error: a `Schema.TaggedError` with the call's context and the given fields, whose
 * message is {@link messageOf} with the error's own parts.
 */
const ExplorerErrorClass = <Self>() =>
<Tag extends string, Fields extends Schema.Struct.Fields>(
  tag: Tag,
  fields: Fields,
  parts: MessageParts<Schema.Struct.Type<typeof context & Fields>> = {}
): ErrorClass<Self, Tag, Fields> => {
  // `TaggedError<Self>()` checks that `Self` is given: here it is the caller's, so the check is theirs.
  const Base = Schema.TaggedError<Self>()(tag, { ...context, ...fields }) as unknown as new(
    ...args: ReadonlyArray<never>
  ) => object
  const { after, before } = parts
  class WithMessage extends Base {}
  // TaggedError defines `message` on its own prototype, not configurable: the subclass's shadows it.
  Object.defineProperty(WithMessage.prototype, "message", {
    // (The context's fields are named apart: TypeScript cannot read them off the generic struct type.)
    get(this: Schema.Struct.Type<typeof context & Fields> & Context): string {
      return messageOf(this, before?.(this) ?? "", after?.(this) ?? "")
    },
    enumerable: false,
    configurable: true
  })
  return WithMessage as unknown as ErrorClass<Self, Tag, Fields>
}

/**
 * A status-0 answer whose text is not one of the known errors.
 *
 * @since 0.1.0
 * @category errors
 */
export class NotOkError extends ExplorerErrorClass<NotOkError>()("NotOkError", {
  /** The envelope's `message` (usually "NOTOK"). */
  serverMessage: Schema.String
}) {}

/**
 * A PRO (standard+) or Pro Plus operation called with a lower plan.
 *
 * @since 0.1.0
 * @category errors
 */
export class PlanTierError extends ExplorerErrorClass<PlanTierError>()("PlanTierError", {
  /** The plan the client was configured with, when known. */
  plan: Schema.optional(Schema.String),
  /** The lowest plan that may call the operation, when known. */
  requiredPlan: Schema.optional(Schema.String)
}, {
  after: (e) => (e.requiredPlan ? ` (needs plan ${e.requiredPlan}${e.plan ? `, have ${e.plan}` : ""})` : "")
}) {}

/**
 * A free key on a paid-only chain (BSC, Base, OP, Avalanche).
 *
 * @since 0.1.0
 * @category errors
 */
export class ChainNotOnPlanError extends ExplorerErrorClass<ChainNotOnPlanError>()("ChainNotOnPlanError", {
  plan: Schema.optional(Schema.String)
}) {}

/**
 * A chain id the API does not serve, or an operation not offered on that chain (topholders on 999).
 *
 * @since 0.1.0
 * @category errors
 */
export class UnsupportedChainError extends ExplorerErrorClass<UnsupportedChainError>()("UnsupportedChainError", {}) {}

/**
 * The server refused the call for its rate: per second (transient) or per day (not before midnight UTC).
 *
 * @since 0.1.0
 * @category errors
 */
export class RateLimitError extends ExplorerErrorClass<RateLimitError>()("RateLimitError", {
  scope: Schema.Literal("second", "day", "unknown"),
  /** The calls/s the server named, when it named one ("(3/sec)"). */
  perSecond: Schema.optional(Schema.Number)
}, { before: (e) => `rate limit (${e.scope}): ` }) {}

/**
 * The key is missing, unknown, or its IP is throttled for too many invalid attempts.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidApiKeyError extends ExplorerErrorClass<InvalidApiKeyError>()("InvalidApiKeyError", {}) {}

/**
 * `page × offset` went past the result window of the plan.
 *
 * @since 0.1.0
 * @category errors
 */
export class ResultWindowError extends ExplorerErrorClass<ResultWindowError>()("ResultWindowError", {
  /** The window the server named (1,000 or 10,000), when it named one. */
  window: Schema.optional(Schema.Number),
  /** Rows delivered before the window stopped paging, when a stream raised it. */
  rowsDelivered: Schema.optional(Schema.Number)
}, { after: (e) => (e.rowsDelivered !== undefined ? ` after ${e.rowsDelivered} rows` : "") }) {}

/**
 * "Query Timeout occured…": the query is too heavy; a smaller block range may pass.
 *
 * @since 0.1.0
 * @category errors
 */
export class QueryTimeoutError extends ExplorerErrorClass<QueryTimeoutError>()("QueryTimeoutError", {}) {}

/**
 * A parameter the library refused before sending, or the server called invalid.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidInputError extends ExplorerErrorClass<InvalidInputError>()("InvalidInputError", {
  /** The parameter at fault, when one is. */
  parameter: Schema.optional(Schema.String)
}, { before: (e) => (e.parameter ? `${e.parameter}: ` : "") }) {}

/**
 * The answer had an unexpected shape: not JSON, an HTML page, a record that does not fit its schema.
 *
 * @since 0.1.0
 * @category errors
 */
export class DecodeError extends ExplorerErrorClass<DecodeError>()("DecodeError", {
  /** Whether retrying may help (a truncated body or an HTML page served with HTTP 200). */
  transient: Schema.Boolean
}) {}

/**
 * The request did not get an answer: network failure, reset, timeout, or an HTTP error status.
 *
 * @since 0.1.0
 * @category errors
 */
export class TransportError extends ExplorerErrorClass<TransportError>()("TransportError", {
  /** The HTTP status, when there was a response. */
  status: Schema.optional(Schema.Number)
}, { before: (e) => (e.status !== undefined ? `HTTP ${e.status}: ` : "") }) {}

/**
 * A block holds more rows than the result window lets a request page through: the export cannot be exact.
 *
 * @since 0.1.0
 * @category errors
 */
export class DenseBlockError extends ExplorerErrorClass<DenseBlockError>()("DenseBlockError", {
  blockNumber: Schema.Number,
  /** Rows of that block that could be read before the window stopped paging. */
  rowsSeen: Schema.Number
}, {
  before: (e) => `block ${e.blockNumber} holds more rows than the result window allows (${e.rowsSeen} read): `
}) {}

/**
 * A `module=proxy` call answered with a JSON-RPC `error` object: the node's `code` (3 for a revert with
 * data, -32000 for other execution failures), its message in `detail`, and the revert bytes in `data`
 * when the node sent them (decode them with the contract's ABI). Never retried.
 *
 * @since 0.1.0
 * @category errors
 */
export class JsonRpcError extends ExplorerErrorClass<JsonRpcError>()("JsonRpcError", {
  code: Schema.Number,
  /** The revert data ("0x…"), when the node sent any. */
  data: Schema.optional(Schema.String)
}, { before: (e) => `JSON-RPC error ${e.code}: ` }) {}

/**
 * Whether an error is a revert of the called contract (a JSON-RPC error saying "execution reverted").
 *
 * @since 0.1.0
 * @category guards
 */
export const isRevert = (error: ExplorerError): error is JsonRpcError =>
  error._tag === "JsonRpcError" && /execution reverted/i.test(error.detail)

/**
 * Every error an explorer-etl call or stream can fail with.
 *
 * @since 0.1.0
 * @category errors
 */
export type ExplorerError =
  | NotOkError
  | PlanTierError
  | ChainNotOnPlanError
  | UnsupportedChainError
  | RateLimitError
  | InvalidApiKeyError
  | ResultWindowError
  | QueryTimeoutError
  | InvalidInputError
  | DecodeError
  | TransportError
  | DenseBlockError
  | JsonRpcError

/**
 * The schema of every error (for encoding errors into manifests or logs, and decoding them back).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ExplorerError = Schema.Union(
  NotOkError,
  PlanTierError,
  ChainNotOnPlanError,
  UnsupportedChainError,
  RateLimitError,
  InvalidApiKeyError,
  ResultWindowError,
  QueryTimeoutError,
  InvalidInputError,
  DecodeError,
  TransportError,
  DenseBlockError,
  JsonRpcError
)

/**
 * Every error a stream of explorer-etl can fail with: the same union as {@link ExplorerError} (which
 * now holds `DenseBlockError` too), kept under this name for existing code.
 *
 * @since 0.1.0
 * @category errors
 */
export type StreamError = ExplorerError

const isMember = Schema.is(ExplorerError)

/**
 * Whether a value is one of explorer-etl's errors (an instance of one of the classes above, or of the
 * same class from another copy of the library), e.g. to tell them from a platform's or a sink's errors
 * in a `catchAll`.
 *
 * @since 0.1.0
 * @category guards
 */
export const isExplorerError = (u: unknown): u is ExplorerError => isMember(u)

/**
 * Whether an HTTP status is worth retrying: 408, 425, 429 and every 5xx.
 *
 * @since 0.1.0
 * @category guards
 */
export const isTransientStatus = (status: number): boolean =>
  status === 408 || status === 425 || status === 429 || status >= 500

const SERVER_BUSY = /server too busy|please try again later/i

/**
 * Whether retrying may help: transport failures without a status or with 408/425/429/5xx, transient
 * decode failures (HTML, truncated bodies), per-second and unknown-scope rate limits, query
 * timeouts, and "Unexpected err, timeout occurred or server too busy". Never: key, plan, chain,
 * input, window, daily-limit errors, nor other NOTOK texts.
 *
 * @since 0.1.0
 * @category guards
 */
export const isTransient = (error: ExplorerError): boolean => {
  switch (error._tag) {
    case "TransportError":
      return error.status === undefined || isTransientStatus(error.status)
    case "DecodeError":
      return error.transient
    case "RateLimitError":
      return error.scope !== "day"
    case "QueryTimeoutError":
      return true
    case "NotOkError":
      return SERVER_BUSY.test(error.detail)
    default:
      return false
  }
}

/**
 * Whether an error says the contract's source is not verified (getabi on an unverified address).
 *
 * @since 0.1.0
 * @category guards
 */
export const isNotVerified = (error: ExplorerError): boolean =>
  error._tag === "NotOkError" && /contract source code not verified/i.test(error.detail)
