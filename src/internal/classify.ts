/**
 * The classifier: what an answer of the server means — a result, an empty list, or the typed error
 * of its text (facts §1.2, Part A.10). Used by the client's transport; exported for tests.
 */
import * as Either from "effect/Either"
import {
  ChainNotOnPlanError,
  DecodeError,
  type ExplorerError,
  InvalidApiKeyError,
  InvalidInputError,
  JsonRpcError,
  NotOkError,
  PlanTierError,
  QueryTimeoutError,
  RateLimitError,
  ResultWindowError,
  TransportError,
  UnsupportedChainError,
} from "../ExplorerError.js"
import type * as Params from "../Params.js"
import { isVerifyStatusText } from "../schemas/contract.js"

// ---------------------------------------------------------------------------------------------

/** The call an answer belongs to: what every error carries (never the key, never the URL). */
export type CallContext = Params.CallContext

/** Options of the classifier. */
export interface ClassifyOptions {
  /**
   * Applied to every text copied from the answer into an error (the client passes a function that
   * replaces its API key by `<redacted>`, in case a server or proxy echoes it).
   */
  readonly scrub?: ((text: string) => string) | undefined
}

/**
 * What a successful answer holds: the `result` to decode, or an empty list ("No transactions
 * found", "No records found", "No data found" with an empty or null result).
 */
export type Answer =
  | { readonly _tag: "Result"; readonly result: unknown }
  | { readonly _tag: "Empty"; readonly serverMessage: string }

const ctxFields = (ctx: CallContext) => ({ chainId: ctx.chainId, module: ctx.module, action: ctx.action })

const MAX_DETAIL = 500
/** Cuts a text copied into an error to 500 characters (a server may answer a whole page). */
export const clip = (text: string): string => (text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}…` : text)

/** Empty-list messages of a status-0 answer (facts §1.1, §5.2; real answers: getcontractcreation "No data found"). */
const EMPTY_MESSAGES = /^(no transactions found|no records found|no data found)\.?$/i

type Rule = readonly [RegExp, (ctx: CallContext, detail: string, match: RegExpMatchArray, serverMessage: string) => ExplorerError]

/**
 * The known texts of facts §1.2 (and of the recorded answers, which may append " https://etherscan.io/apis"
 * or a sentence), most specific first. Matching is case-insensitive and by substring.
 */
const rules: ReadonlyArray<Rule> = [
  // Key problems. "(#err2)|8" is read as a key problem too (one client treats it as throttling; the
  // docs call it an invalid key). "Too many invalid api key attempts" is not retried: retrying
  // prolongs the IP ban.
  [/too many invalid api key attempts/i, (c, d) => new InvalidApiKeyError({ ...ctxFields(c), detail: d })],
  [/invalid api key|missing\/invalid api key|missing api key/i, (c, d) => new InvalidApiKeyError({ ...ctxFields(c), detail: d })],
  // Daily cap before the per-second texts ("Max daily rate limit reached").
  [/daily rate limit|daily limit|per day/i, (c, d) => new RateLimitError({ ...ctxFields(c), detail: d, scope: "day" })],
  [/max calls per sec rate limit reached \((\d+)\/sec\)/i, (c, d, m) =>
    new RateLimitError({ ...ctxFields(c), detail: d, scope: "second", perSecond: Number(m[1]) })],
  [/max(imum)? rate limit reached/i, (c, d) => new RateLimitError({ ...ctxFields(c), detail: d, scope: "second" })],
  // Free tier switched off under load: transient, of unknown duration → a rate limit of unknown scope
  // (retried with backoff, and the key's limiter pauses).
  [/free api access is temporarily unavailable/i, (c, d) => new RateLimitError({ ...ctxFields(c), detail: d, scope: "unknown" })],
  [/free api access is not supported for this chain/i, (c, d) =>
    new ChainNotOnPlanError({ ...ctxFields(c), detail: d, ...(c.plan !== undefined ? { plan: c.plan } : {}) })],
  [/api pro endpoint|upgrade to api pro/i, (c, d) =>
    new PlanTierError({
      ...ctxFields(c),
      detail: d,
      ...(c.plan !== undefined ? { plan: c.plan } : {}),
      ...(c.requiredPlan !== undefined ? { requiredPlan: c.requiredPlan } : {})
    })],
  [/missing or unsupported chainid|chain not supported|unsupported chain/i, (c, d) =>
    new UnsupportedChainError({ ...ctxFields(c), detail: d })],
  [/result window is too large.*?(\d[\d,]*)/i, (c, d, m) =>
    new ResultWindowError({ ...ctxFields(c), detail: d, window: Number((m[1] ?? "").replace(/,/g, "")) })],
  [/result window is too large/i, (c, d) => new ResultWindowError({ ...ctxFields(c), detail: d })],
  [/query timeout/i, (c, d) => new QueryTimeoutError({ ...ctxFields(c), detail: d })],
  [/invalid contract address format/i, (c, d) => new InvalidInputError({ ...ctxFields(c), detail: d, parameter: "contractaddress" })],
  [/invalid address format/i, (c, d) => new InvalidInputError({ ...ctxFields(c), detail: d, parameter: "address" })],
  [/missing or invalid action name/i, (c, d) => new InvalidInputError({ ...ctxFields(c), detail: d, parameter: "action" })],
  [/missing or invalid module name/i, (c, d) => new InvalidInputError({ ...ctxFields(c), detail: d, parameter: "module" })],
  [/missing or invalid parameter/i, (c, d) => new InvalidInputError({ ...ctxFields(c), detail: d })],
  [/block number already pass/i, (c, d) => new InvalidInputError({ ...ctxFields(c), detail: d, parameter: "blockno" })],
  // checkverifystatus of a GUID the service does not know: "Unknown UID" is what Etherscan-compatible
  // explorers (Blockscout) answer; Etherscan's own text is not recorded.
  [/unknown uid|unable to locate guid|invalid guid/i, (c, d) => new InvalidInputError({ ...ctxFields(c), detail: d, parameter: "guid" })]
  // Everything else — "Contract source code not verified", "Error! No closest block found",
  // "Unexpected err, timeout occurred or server too busy…" (retried, see isTransient), the V1
  // deprecation notice, the proxy-verification text, texts we have never seen — is a NotOkError
  // that keeps the server's words.
]

/**
 * Maps the text of a status-0 answer (its `result`, or its `message` when `result` holds no text)
 * to its typed error. Unknown texts become a {@link NotOkError} with the server's words (Part A.10).
 */
export const classifyText = (
  ctx: CallContext,
  text: string,
  serverMessage = "NOTOK",
  options: ClassifyOptions = {}
): ExplorerError => {
  const scrub = options.scrub ?? ((s: string) => s)
  const detail = clip(scrub(text.trim()))
  for (const [pattern, make] of rules) {
    const match = detail.match(pattern)
    if (match !== null) return make(ctx, detail, match, serverMessage)
  }
  return new NotOkError({ ...ctxFields(ctx), detail, serverMessage: clip(scrub(serverMessage)) })
}

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const decodeError = (ctx: CallContext, detail: string, transient: boolean): DecodeError =>
  new DecodeError({ ...ctxFields(ctx), detail: clip(detail), transient })

/**
 * Reads a parsed JSON answer, `message` and `result` together (Part A.10):
 * - `{status:"1", result}` → the result (any `message`: "OK", "Ok", legacy "OK-Missing/Invalid API Key…");
 * - `{status:"0", message:"No transactions found"|"No records found"|"No data found", result:[]|null}` → empty;
 * - contract/checkverifystatus `{status:"0", result:"Pending in queue"|"Fail - …"|"Already Verified"…}` → the result;
 * - other `{status:"0"}` → the typed error of its text ({@link classifyText});
 * - JSON-RPC `{jsonrpc, result}` → the result; `{jsonrpc, error}` → JsonRpcError with the node's code,
 *   message and revert data (a NotOkError if the code is not a number);
 * - an envelope on a proxy call ("has status, no jsonrpc") is read as an envelope, so a NOTOK there
 *   is an error, never a result;
 * - anything else → DecodeError (not transient).
 */
export const classifyBody = (
  ctx: CallContext,
  body: unknown,
  options: ClassifyOptions = {}
): Either.Either<Answer, ExplorerError> => {
  const scrub = options.scrub ?? ((s: string) => s)
  if (!isRecord(body)) return Either.left(decodeError(ctx, "unexpected answer: not a JSON object", false))
  if ("status" in body && !("jsonrpc" in body)) {
    const status = String(body.status)
    const message = typeof body.message === "string" ? body.message : ""
    if (status === "1") {
      return "result" in body
        ? Either.right({ _tag: "Result", result: body.result })
        : Either.left(decodeError(ctx, "unexpected answer: status 1 without result", false))
    }
    if (status === "0") {
      const result = body.result
      const emptyResult = result === null || result === undefined || result === "" ||
        (Array.isArray(result) && result.length === 0)
      if (EMPTY_MESSAGES.test(message.trim()) && emptyResult) {
        return Either.right({ _tag: "Empty", serverMessage: message })
      }
      // checkverifystatus says "Pending in queue", "Fail - Unable to verify…", "Already Verified" with
      // status 0: a verification's state, the call's result, not a failure of the call.
      if (ctx.module === "contract" && ctx.action === "checkverifystatus" && typeof result === "string" && isVerifyStatusText(result)) {
        return Either.right({ _tag: "Result", result })
      }
      const text = typeof result === "string" && result.trim() !== "" ? result : message
      if (text.trim() === "") return Either.left(decodeError(ctx, "unexpected answer: status 0 without a reason", false))
      return Either.left(classifyText(ctx, text, message === "" ? "NOTOK" : message, options))
    }
    return Either.left(decodeError(ctx, `unexpected answer: status ${clip(scrub(status))}`, false))
  }
  if ("jsonrpc" in body) {
    if (isRecord(body.error)) {
      const code = body.error.code
      const message = typeof body.error.message === "string" ? body.error.message : "JSON-RPC error"
      const data = body.error.data
      if (typeof code === "number" && Number.isFinite(code)) {
        return Either.left(
          new JsonRpcError({
            ...ctxFields(ctx),
            detail: clip(scrub(message)),
            code,
            ...(typeof data === "string" ? { data } : {})
          })
        )
      }
      return Either.left(
        new NotOkError({
          ...ctxFields(ctx),
          detail: clip(scrub(message)),
          serverMessage: `JSON-RPC error${typeof code === "number" || typeof code === "string" ? ` ${code}` : ""}`
        })
      )
    }
    if ("result" in body) return Either.right({ _tag: "Result", result: body.result })
    return Either.left(decodeError(ctx, "unexpected answer: JSON-RPC body without result or error", false))
  }
  return Either.left(decodeError(ctx, "unexpected answer: neither an envelope (status) nor JSON-RPC (jsonrpc)", false))
}

/** One HTTP answer as the classifier needs it. */
export interface RawResponse {
  readonly status: number
  readonly contentType?: string | undefined
  readonly body: string
}

const htmlTitle = (body: string): string => {
  const title = body.match(/<title[^>]*>([\s\S]*?)<\/title>/i)?.[1]?.replace(/\s+/g, " ").trim()
  return title !== undefined && title !== "" ? `: ${title}` : ""
}

/**
 * Classifies a whole HTTP answer: an HTTP error status → TransportError; an empty, truncated,
 * non-JSON or HTML body → DecodeError with `transient: true` (a Cloudflare page or a cut
 * connection may pass on retry); valid JSON → {@link classifyBody}.
 */
export const classifyResponse = (
  ctx: CallContext,
  response: RawResponse,
  options: ClassifyOptions = {}
): Either.Either<Answer, ExplorerError> => {
  const scrub = options.scrub ?? ((s: string) => s)
  const body = response.body
  if (response.status < 200 || response.status >= 300) {
    const excerpt = body.trim() === "" ? "" : `: ${clip(scrub(htmlTitle(body).slice(2) || body.trim().slice(0, 200)))}`
    return Either.left(
      new TransportError({ ...ctxFields(ctx), status: response.status, detail: `HTTP status ${response.status}${excerpt}` })
    )
  }
  if (body.trim() === "") return Either.left(decodeError(ctx, "empty body", true))
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    const looksHtml = /^\s*</.test(body) || (response.contentType ?? "").toLowerCase().includes("html")
    if (looksHtml) return Either.left(decodeError(ctx, scrub(`an HTML page instead of JSON${htmlTitle(body)}`), true))
    const start = body.trimStart()
    const truncated = start.startsWith("{") || start.startsWith("[")
    return Either.left(
      decodeError(
        ctx,
        truncated
          ? `truncated or malformed JSON (${body.length} bytes)`
          : `not JSON: ${scrub(body.trim().slice(0, 200))}`,
        true
      )
    )
  }
  return classifyBody(ctx, parsed, options)
}

