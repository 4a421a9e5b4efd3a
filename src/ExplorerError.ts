/**
 * Every typed error of explorer-etl. Each carries the chain, module and action of the call and, for
 * answers of the server, the server's own words (`detail`) — never the API key nor the request URL.
 *
 * @example
 * import { Effect } from "effect"
 * explorer.topholders({ chainId: 999, contractAddress }).pipe(
 *   Effect.catchTag("UnsupportedChainError", (e) => Effect.logWarning(e.message)))
 */
import * as Schema from "effect/Schema"

/** Where a failure happened: the call, never its key. */
const context = {
  chainId: Schema.Number,
  module: Schema.String,
  action: Schema.String,
  /** The server's own words (its `result` text), or our explanation for errors raised before sending. */
  detail: Schema.String
}

const where = (e: { chainId: number; module: string; action: string }): string =>
  `${e.module}/${e.action} on chain ${e.chainId}`

/** A status-0 answer whose text is not one of the known errors (Part A.10). */
export class NotOkError extends Schema.TaggedError<NotOkError>()("NotOkError", {
  ...context,
  /** The envelope's `message` (usually "NOTOK"). */
  serverMessage: Schema.String
}) {
  override get message(): string {
    return `${where(this)}: ${this.detail}`
  }
}

/** A PRO (standard+) or Pro Plus operation called with a lower plan. */
export class PlanTierError extends Schema.TaggedError<PlanTierError>()("PlanTierError", {
  ...context,
  /** The plan the client was configured with, when known. */
  plan: Schema.optional(Schema.String),
  /** The lowest plan that may call the operation, when known. */
  requiredPlan: Schema.optional(Schema.String)
}) {
  override get message(): string {
    const need = this.requiredPlan ? ` (needs plan ${this.requiredPlan}${this.plan ? `, have ${this.plan}` : ""})` : ""
    return `${where(this)}: ${this.detail}${need}`
  }
}

/** A free key on a paid-only chain (BSC, Base, OP, Avalanche). */
export class ChainNotOnPlanError extends Schema.TaggedError<ChainNotOnPlanError>()("ChainNotOnPlanError", {
  ...context,
  plan: Schema.optional(Schema.String)
}) {
  override get message(): string {
    return `${where(this)}: ${this.detail}`
  }
}

/** A chain id the API does not serve, or an operation not offered on that chain (topholders on 999). */
export class UnsupportedChainError extends Schema.TaggedError<UnsupportedChainError>()("UnsupportedChainError", {
  ...context
}) {
  override get message(): string {
    return `${where(this)}: ${this.detail}`
  }
}

/** The server refused the call for its rate: per second (transient) or per day (not before midnight UTC). */
export class RateLimitError extends Schema.TaggedError<RateLimitError>()("RateLimitError", {
  ...context,
  scope: Schema.Literal("second", "day", "unknown"),
  /** The calls/s the server named, when it named one ("(3/sec)"). */
  perSecond: Schema.optional(Schema.Number)
}) {
  override get message(): string {
    return `${where(this)}: rate limit (${this.scope}): ${this.detail}`
  }
}

/** The key is missing, unknown, or its IP is throttled for too many invalid attempts. */
export class InvalidApiKeyError extends Schema.TaggedError<InvalidApiKeyError>()("InvalidApiKeyError", {
  ...context
}) {
  override get message(): string {
    return `${where(this)}: ${this.detail}`
  }
}

/** `page × offset` went past the result window of the plan. */
export class ResultWindowError extends Schema.TaggedError<ResultWindowError>()("ResultWindowError", {
  ...context,
  /** The window the server named (1,000 or 10,000), when it named one. */
  window: Schema.optional(Schema.Number),
  /** Rows delivered before the window stopped paging, when a stream raised it. */
  rowsDelivered: Schema.optional(Schema.Number)
}) {
  override get message(): string {
    const rows = this.rowsDelivered !== undefined ? ` after ${this.rowsDelivered} rows` : ""
    return `${where(this)}: ${this.detail}${rows}`
  }
}

/** "Query Timeout occured…": the query is too heavy; a smaller block range may pass. */
export class QueryTimeoutError extends Schema.TaggedError<QueryTimeoutError>()("QueryTimeoutError", {
  ...context
}) {
  override get message(): string {
    return `${where(this)}: ${this.detail}`
  }
}

/** A parameter the library refused before sending, or the server called invalid. */
export class InvalidInputError extends Schema.TaggedError<InvalidInputError>()("InvalidInputError", {
  ...context,
  /** The parameter at fault, when one is. */
  parameter: Schema.optional(Schema.String)
}) {
  override get message(): string {
    return `${where(this)}: ${this.parameter ? `${this.parameter}: ` : ""}${this.detail}`
  }
}

/** The answer had an unexpected shape: not JSON, an HTML page, a record that does not fit its schema. */
export class DecodeError extends Schema.TaggedError<DecodeError>()("DecodeError", {
  ...context,
  /** Whether retrying may help (a truncated body or an HTML page served with HTTP 200). */
  transient: Schema.Boolean
}) {
  override get message(): string {
    return `${where(this)}: ${this.detail}`
  }
}

/** The request did not get an answer: network failure, reset, timeout, or an HTTP error status. */
export class TransportError extends Schema.TaggedError<TransportError>()("TransportError", {
  ...context,
  /** The HTTP status, when there was a response. */
  status: Schema.optional(Schema.Number)
}) {
  override get message(): string {
    return `${where(this)}: ${this.status !== undefined ? `HTTP ${this.status}: ` : ""}${this.detail}`
  }
}

/** A block holds more rows than the result window lets a request page through: the export cannot be exact. */
export class DenseBlockError extends Schema.TaggedError<DenseBlockError>()("DenseBlockError", {
  ...context,
  blockNumber: Schema.Number,
  /** Rows of that block that could be read before the window stopped paging. */
  rowsSeen: Schema.Number
}) {
  override get message(): string {
    return `${where(this)}: block ${this.blockNumber} holds more rows than the result window allows (${this.rowsSeen} read): ${this.detail}`
  }
}

/** Every error an explorer-etl call can fail with. */
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

/** The schema of every client error (for encoding errors into manifests or logs). */
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
  TransportError
)

/** Whether a value is one of the client's errors (`ExplorerError`): the union's guard. */
export const isExplorerError: (u: unknown) => u is ExplorerError = Schema.is(ExplorerError)

/** Every error a stream of explorer-etl can fail with: the client's, plus a block too dense to export exactly. */
export type StreamError = ExplorerError | DenseBlockError

/** Whether an HTTP status is worth retrying: 408, 425, 429 and every 5xx. */
export const isTransientStatus = (status: number): boolean =>
  status === 408 || status === 425 || status === 429 || status >= 500

const SERVER_BUSY = /server too busy|please try again later/i

/**
 * Whether retrying may help: transport failures without a status or with 408/425/429/5xx, transient
 * decode failures (HTML, truncated bodies), per-second and unknown-scope rate limits, query
 * timeouts, and "Unexpected err, timeout occurred or server too busy". Never: key, plan, chain,
 * input, window, daily-limit errors, nor other NOTOK texts.
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

/** Whether an error says the contract's source is not verified (getabi on an unverified address). */
export const isNotVerified = (error: ExplorerError): boolean =>
  error._tag === "NotOkError" && /contract source code not verified/i.test(error.detail)
