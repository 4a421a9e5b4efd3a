/**
 * Configuration of the explorer client: API key, base URL, plan, default chain, timeout, retry
 * policy and rate overrides — as plain options (`ExplorerClient.layer(options)`) or read from the
 * environment (`ExplorerClient.layerConfig()`, see {@link options}).
 *
 * @example
 * import { ExplorerClient } from "explorer-etl"
 * import { Redacted } from "effect"
 *
 * const layer = ExplorerClient.layer({ apiKey: Redacted.make("MY-KEY"), plan: "standard" })
 * // or, from EXPLORER_API_KEY / ETHERSCAN_API_KEY, EXPLORER_PLAN, …:
 * const fromEnv = ExplorerClient.layerConfig()
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Chain from "./Chain.js"
import * as Plan from "./Plan.js"

/**
 * The public explorer API (Etherscan V2). The client appends {@link API_PATH}.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_BASE_URL = "https://api.etherscan.io"

/**
 * The path of every API call.
 *
 * @since 0.1.0
 * @category constants
 */
export const API_PATH = "/v2/api"

/**
 * Default per-attempt request timeout (connect + whole body).
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_REQUEST_TIMEOUT: Duration.Duration = Duration.seconds(30)

/**
 * Default retry policy: 6 retries, exponential from 250 ms (jittered), each delay at most 10 s.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_RETRY: RetryPolicy = {
  times: 6,
  baseDelay: Duration.millis(250),
  maxDelay: Duration.seconds(10),
  queryTimeout: true
}

/**
 * Default fraction of the allowed rate the limiter keeps in reserve (4 %): the limiter spaces calls
 * `1000 / (rate × 0.96)` ms apart, so a server counting a sliding one-second window never sees more
 * than `rate` calls even when arrivals shift by ~40 ms (network, pauses), and the client still uses
 * 96 % of the rate.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_SAFETY_MARGIN = 0.04

/**
 * How long every call of a key waits after a per-second rate-limit answer (default 1 s).
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_RATE_LIMIT_PAUSE: Duration.Duration = Duration.seconds(1)

/**
 * How failed attempts are retried (transient failures only; see `Errors.isTransient`).
 *
 * @since 0.1.0
 * @category models
 */
export interface RetryPolicy {
  /** Retries after the first attempt (0 disables retrying). */
  readonly times: number
  /** First backoff delay; doubles on each retry, with jitter. */
  readonly baseDelay: Duration.Duration
  /** Upper bound of one backoff delay. */
  readonly maxDelay: Duration.Duration
  /**
   * Whether "Query Timeout occured…" answers are retried (default true). The streams turn this off
   * per call (`{ retryQueryTimeout: false }`) and split the block range instead.
   */
  readonly queryTimeout: boolean
  /** Told of every retry before its wait (a progress display prints it); not called when quiet. */
  readonly onRetry?: ((notice: RetryNotice) => void) | undefined
}

/**
 * One retry about to happen: which call, which retry of how many, after what wait, and why.
 *
 * @since 0.1.0
 * @category models
 */
export interface RetryNotice {
  readonly chainId: number
  readonly module: string
  readonly action: string
  /** 1 for the first retry. */
  readonly retry: number
  /** Retries allowed for the call. */
  readonly of: number
  readonly delay: Duration.Duration
  /** The failure retried: its tag and its words (never the key or the URL). */
  readonly error: { readonly _tag: string; readonly detail: string }
}

/**
 * Rate settings; by default the plan's calls/s and the 2 calls/s of the throttled operations.
 *
 * @since 0.1.0
 * @category models
 */
export interface RateSettings {
  /** Calls per second for the key; default `Plan.limits[plan].callsPerSecond`. */
  readonly callsPerSecond: number
  /** Calls per second of the throttled operations; default `Plan.THROTTLED_CALLS_PER_SECOND` (2). */
  readonly throttledPerSecond: number
  /**
   * Fraction of the rate kept in reserve (0 ≤ margin < 0.5), on the key's lane and the throttled
   * operations' alike; default {@link DEFAULT_SAFETY_MARGIN}.
   */
  readonly safetyMargin: number
  /** How long every call of the key waits after a rate-limit answer; default 1 s. */
  readonly rateLimitPause: Duration.Duration
  /**
   * Calls per UTC day for the key; default `Plan.limits[plan].callsPerDay`. Counted only where the
   * key's budget is kept in storage (a cluster's runners, `durable/KeyBudget`, or this machine's
   * processes, `machineBudget`): there a call past it
   * is refused before it is sent, with the `RateLimitError` (scope "day") the server would answer.
   */
  readonly callsPerDay: number
}

/**
 * Options of `Client.layer`. Everything is optional: without `apiKey` the client still builds, but
 * every call fails with `InvalidApiKeyError` before sending anything (the V2 API has no keyless tier).
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The API key. Kept `Redacted`; unwrapped only when a request is built. */
  readonly apiKey?: Redacted.Redacted<string> | undefined
  /**
   * Base URL of the explorer, default {@link DEFAULT_BASE_URL}. `/v2/api` is appended unless the URL
   * already ends with it; a trailing slash is ignored. `http(s)` only, no query string.
   */
  readonly baseUrl?: string | undefined
  /** The key's plan (decides the rate, PRO operations, paid-only chains, result windows); default "free". */
  readonly plan?: Plan.Plan | undefined
  /** Chain used by calls that pass no `chainId`; default 1 (Ethereum Mainnet). */
  readonly defaultChainId?: number | undefined
  /** Per-attempt timeout; default 30 s. */
  readonly requestTimeout?: Duration.DurationInput | undefined
  /** Retry policy overrides. */
  readonly retry?: {
    readonly times?: number | undefined
    readonly baseDelay?: Duration.DurationInput | undefined
    readonly maxDelay?: Duration.DurationInput | undefined
    readonly queryTimeout?: boolean | undefined
    /** Called before each retry's wait, e.g. to print `retry 2/6 in 1.0 s: connection refused`. */
    readonly onRetry?: ((notice: RetryNotice) => void) | undefined
  } | undefined
  /** Rate overrides (e.g. a dedicated plan, or a slower share of the key). */
  readonly rate?: {
    readonly callsPerSecond?: number | undefined
    readonly throttledPerSecond?: number | undefined
    readonly safetyMargin?: number | undefined
    readonly rateLimitPause?: Duration.DurationInput | undefined
    /** Calls per UTC day (a share of the plan's daily cap); see {@link RateSettings.callsPerDay}. */
    readonly callsPerDay?: number | undefined
  } | undefined
  /**
   * Shares the key's budget with every other process of this machine that uses the key with this
   * option on (the CLI and the pipelines turn it on): their calls together keep to the plan's rate and
   * count against one daily cap. The budget is a small SQLite file per key in `directory`, default
   * `$XDG_STATE_HOME/explorer-etl`, else `~/.local/state/explorer-etl`, named by a hash of the key
   * (never the key). Off by default; the SQLite driver (`@effect/sql-libsql`) is loaded only when on.
   *
   * @example
   * ExplorerClient.layer({ apiKey, plan: "standard", machineBudget: true })
   */
  readonly machineBudget?: boolean | { readonly directory?: string | undefined } | undefined
  /**
   * Transforms the HTTP client every request of the client goes through (API calls and download
   * links), as `@effect/ai-openai`'s option of the same name: e.g. a header for a proxy, or a count of
   * requests. It sees each attempt once, after the key's limiter and inside the request timeout (the
   * client retries itself: a retry added here would not wait for the key's rate). The requests it
   * sees carry the API key: do not log them.
   *
   * @example
   * ExplorerClient.layer({
   *   apiKey,
   *   transformClient: HttpClient.mapRequest(HttpClientRequest.setHeader("x-team", "etl"))
   * })
   */
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
}

/**
 * The resolved configuration a client runs with (every default filled in, every value checked).
 *
 * @since 0.1.0
 * @category models
 */
export interface ExplorerConfig {
  readonly apiKey: Option.Option<Redacted.Redacted<string>>
  /** Normalised base URL, without trailing slash and without `/v2/api`. */
  readonly baseUrl: string
  /** `baseUrl` + `/v2/api`: the URL of every API call. */
  readonly apiUrl: string
  readonly plan: Plan.Plan
  readonly defaultChainId: Chain.ChainId
  readonly requestTimeout: Duration.Duration
  readonly retry: RetryPolicy
  readonly rate: RateSettings
  /** The `machineBudget` option: where the ledger is kept (`directory` undefined: the default), or off. */
  readonly machineBudget: { readonly directory: string | undefined } | undefined
  /** The `transformClient` option, if any. */
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
}

/**
 * Normalises a base URL: accepts it with or without trailing slash and with or without `/v2/api`,
 * and returns `{ baseUrl, apiUrl }` (`apiUrl` = `baseUrl` + `/v2/api`, never doubled).
 *
 * @since 0.1.0
 * @category utils
 */
export const normalizeBaseUrl = (input: string): Either.Either<{ readonly baseUrl: string; readonly apiUrl: string }, string> => {
  const trimmed = input.trim()
  let url: URL
  try {
    url = new URL(trimmed)
  } catch {
    return Either.left("baseUrl: not a URL")
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return Either.left("baseUrl: must be http or https")
  if (url.search !== "" || url.hash !== "") return Either.left("baseUrl: must not carry a query string or a fragment")
  if (url.username !== "" || url.password !== "") return Either.left("baseUrl: must not carry credentials")
  let path = url.pathname.replace(/\/+$/, "")
  if (path.endsWith(API_PATH)) path = path.slice(0, -API_PATH.length)
  const baseUrl = `${url.origin}${path}`
  return Either.right({ baseUrl, apiUrl: `${baseUrl}${API_PATH}` })
}

const positiveFinite = (n: number): boolean => Number.isFinite(n) && n > 0

/**
 * Checks options and fills in the defaults. Fails with a readable message (never containing the
 * key) on a bad base URL, an unknown chain, a non-positive rate, a negative retry count…
 *
 * @since 0.1.0
 * @category utils
 */
export const resolve = (options: Options = {}): Either.Either<ExplorerConfig, string> => {
  const urls = normalizeBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL)
  if (Either.isLeft(urls)) return Either.left(urls.left)
  const plan = options.plan ?? "free"
  if (!Plan.plans.includes(plan)) return Either.left(`plan: must be one of ${Plan.plans.join(", ")}`)
  const chain = options.defaultChainId ?? 1
  if (!Number.isSafeInteger(chain) || chain <= 0 || !Chain.isSupported(chain)) {
    return Either.left(`defaultChainId: ${chain} is not a chain the explorer API serves`)
  }
  const requestTimeout = Duration.decode(options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT)
  if (!Duration.greaterThan(requestTimeout, Duration.zero)) return Either.left("requestTimeout: must be positive")
  const times = options.retry?.times ?? DEFAULT_RETRY.times
  if (!Number.isSafeInteger(times) || times < 0) return Either.left("retry.times: must be an integer ≥ 0")
  const retry: RetryPolicy = {
    times,
    baseDelay: Duration.decode(options.retry?.baseDelay ?? DEFAULT_RETRY.baseDelay),
    maxDelay: Duration.decode(options.retry?.maxDelay ?? DEFAULT_RETRY.maxDelay),
    queryTimeout: options.retry?.queryTimeout ?? DEFAULT_RETRY.queryTimeout,
    onRetry: options.retry?.onRetry
  }
  const callsPerSecond = options.rate?.callsPerSecond ?? Plan.limits[plan].callsPerSecond
  const throttledPerSecond = options.rate?.throttledPerSecond ?? Plan.THROTTLED_CALLS_PER_SECOND
  const safetyMargin = options.rate?.safetyMargin ?? DEFAULT_SAFETY_MARGIN
  if (!positiveFinite(callsPerSecond)) return Either.left("rate.callsPerSecond: must be a positive number")
  if (!positiveFinite(throttledPerSecond)) return Either.left("rate.throttledPerSecond: must be a positive number")
  if (!(safetyMargin >= 0 && safetyMargin < 0.5)) return Either.left("rate.safetyMargin: must be in [0, 0.5)")
  const callsPerDay = options.rate?.callsPerDay ?? Plan.limits[plan].callsPerDay
  if (!(Number.isSafeInteger(callsPerDay) && callsPerDay > 0)) return Either.left("rate.callsPerDay: must be an integer > 0")
  const apiKey = options.apiKey !== undefined && Redacted.value(options.apiKey).trim() !== ""
    ? Option.some(options.apiKey)
    : Option.none()
  return Either.right({
    apiKey,
    baseUrl: urls.right.baseUrl,
    apiUrl: urls.right.apiUrl,
    plan,
    defaultChainId: Chain.ChainId.make(chain),
    requestTimeout,
    retry,
    rate: {
      callsPerSecond,
      throttledPerSecond,
      safetyMargin,
      rateLimitPause: Duration.decode(options.rate?.rateLimitPause ?? DEFAULT_RATE_LIMIT_PAUSE),
      callsPerDay
    },
    machineBudget: options.machineBudget === undefined || options.machineBudget === false
      ? undefined
      : { directory: options.machineBudget === true ? undefined : options.machineBudget.directory },
    transformClient: options.transformClient
  })
}

const optional = <A>(config: Config.Config<A>): Config.Config<A | undefined> =>
  config.pipe(Config.option, Config.map(Option.getOrUndefined))

/**
 * The API key from the environment: `EXPLORER_API_KEY`, else `ETHERSCAN_API_KEY` (the one place this
 * fallback is written: the client's {@link options}, the CLI's `--api-key` and the pipelines read it).
 * Missing when neither is set; wrap it in `Config.option` to make it optional.
 *
 * @since 0.1.0
 * @category config
 */
export const apiKey: Config.Config<Redacted.Redacted<string>> = Config.redacted("EXPLORER_API_KEY").pipe(
  Config.orElse(() => Config.redacted("ETHERSCAN_API_KEY"))
)

/**
 * The client options read from the environment:
 * - `EXPLORER_API_KEY`, else `ETHERSCAN_API_KEY` (Redacted; absent → calls fail with InvalidApiKeyError);
 * - `EXPLORER_BASE_URL` (default https://api.etherscan.io), `EXPLORER_PLAN` (default free),
 *   `EXPLORER_CHAIN` (default chain id, default 1), `EXPLORER_TIMEOUT` (a duration, e.g. "30 seconds");
 * - `EXPLORER_RETRIES`, `EXPLORER_RETRY_BASE_DELAY`, `EXPLORER_RETRY_MAX_DELAY`;
 * - `EXPLORER_CALLS_PER_SECOND`, `EXPLORER_THROTTLED_PER_SECOND`, `EXPLORER_CALLS_PER_DAY` (rate overrides).
 * Values are checked when the layer is built (a bad value fails it with a `ConfigError`).
 *
 * @since 0.1.0
 * @category config
 */
export const options: Config.Config<Options> = Config.all({
  apiKey: optional(apiKey),
  baseUrl: optional(Config.string("EXPLORER_BASE_URL")),
  plan: optional(Config.literal(...Plan.plans)("EXPLORER_PLAN")),
  defaultChainId: optional(Config.integer("EXPLORER_CHAIN")),
  requestTimeout: optional(Config.duration("EXPLORER_TIMEOUT")),
  retries: optional(Config.integer("EXPLORER_RETRIES")),
  retryBaseDelay: optional(Config.duration("EXPLORER_RETRY_BASE_DELAY")),
  retryMaxDelay: optional(Config.duration("EXPLORER_RETRY_MAX_DELAY")),
  callsPerSecond: optional(Config.number("EXPLORER_CALLS_PER_SECOND")),
  throttledPerSecond: optional(Config.number("EXPLORER_THROTTLED_PER_SECOND")),
  callsPerDay: optional(Config.integer("EXPLORER_CALLS_PER_DAY"))
}).pipe(
  Config.map((c): Options => ({
    apiKey: c.apiKey,
    baseUrl: c.baseUrl,
    plan: c.plan,
    defaultChainId: c.defaultChainId,
    requestTimeout: c.requestTimeout,
    retry: { times: c.retries, baseDelay: c.retryBaseDelay, maxDelay: c.retryMaxDelay },
    rate: { callsPerSecond: c.callsPerSecond, throttledPerSecond: c.throttledPerSecond, callsPerDay: c.callsPerDay }
  }))
)

/**
 * {@link options} resolved and checked: a bad value becomes a `ConfigError.InvalidData`.
 *
 * @since 0.1.0
 * @category constants
 */
export const explorerConfig: Config.Config<ExplorerConfig> = options.pipe(
  Config.mapOrFail((o) => Either.mapLeft(resolve(o), (message) => ConfigError.InvalidData([], message)))
)
