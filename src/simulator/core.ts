/**
 * The simulated service behind the HTTP layer: API keys and plans, the per-key sliding windows, daily
 * caps, invalid-key throttling, chain and module checks, plan gating, fault injection, statistics,
 * download files and the oracle. Everything here is synchronous and runs in one event-loop turn per
 * request, so plain mutable state is safe.
 *
 * Order of the rules for one request (the rules themselves are in rules.ts; the order is our decision
 * where the facts are silent):
 * 1. fault (decided first; an injected fault consumes no rate-limit or daily budget);
 * 2. key: missing → "Missing/Invalid API Key"; unknown → "Invalid API Key" (more than 5 unknown-key
 *    attempts from one IP within 30 s → "Too many invalid api key attempts…" for unknown keys only);
 * 3. per-second windows (plan rate, then the shared 2/s window of the throttled operations), then
 *    the daily caps; a refused call is not recorded, every call let through is (even if it then
 *    fails a later check);
 * 4. chainid → module → action → plan gating (PRO / Pro Plus) → free key on a paid-only chain →
 *    topholders on 999 → parameters.
 */
import { evaluate, type Mode, type Outcome, type Params } from "./api.js"
import { Dataset } from "./dataset.js"
import {
  BAD_GATEWAY_PAGE,
  BLOCKED_PAGE,
  CHALLENGE_PAGE,
  canonicalQuery,
  decideFault,
  EDGE_RATE_LIMITED,
  sizedLatency,
  UNAVAILABLE_PAGE
} from "./faults.js"
import { hash2, hashString, hex8 } from "./hash.js"
import { DailyCounter, InvalidKeyTracker, SlidingWindow } from "./limits.js"
import { type FaultKind, faultKinds, type FaultOptions, type SimulatorOptions } from "./options.js"
import { isServed } from "./profiles.js"
import { mineDue } from "./proxy.js"
import * as Rules from "./rules.js"
import * as Texts from "./texts.js"

/**
 * A JSON value as the server writes it.
 *
 * @since 0.1.0
 * @category models
 */
export type Json = string | number | boolean | null | ReadonlyArray<Json> | { readonly [key: string]: Json }

/**
 * One record of an answer's `result`, as a plain object exactly as the server sends it.
 *
 * @since 0.1.0
 * @category models
 */
export type WireRecord = { readonly [key: string]: Json }

/**
 * The documented demo keys, one per plan (made up; 34 characters of [A-Z0-9] like real keys).
 *
 * @since 0.1.0
 * @category constants
 */
export const demoKeys: Readonly<Record<Rules.PlanName, string>> = {
  free: "SIMFREE000000000000000000000000000",
  lite: "SIMLITE000000000000000000000000000",
  standard: "SIMSTANDARD00000000000000000000000",
  advanced: "SIMADVANCED00000000000000000000000",
  professional: "SIMPROFESSIONAL0000000000000000000",
  proplus: "SIMPROPLUS000000000000000000000000"
}

/**
 * The statistics key of an API key: a short hash, never the key itself ("(none)" when missing).
 *
 * @since 0.1.0
 * @category utils
 */
export const keyFingerprint = (key: string | undefined): string =>
  key === undefined || key === "" ? "(none)" : "key#" + hex8(hash2(hashString(key), key.length))

/**
 * What the simulator counted since it started (or since `resetStats`).
 *
 * @since 0.1.0
 * @category models
 */
export interface SimulatorStats {
  /** Every request to /v2/api (including faulted and refused ones). */
  readonly requests: number
  /** Requests per key fingerprint (see `keyFingerprint`). */
  readonly byKey: Readonly<Record<string, number>>
  /** Requests per "module/action" as sent. */
  readonly byOperation: Readonly<Record<string, number>>
  /** "Max calls per sec rate limit reached" answers given by the enforced windows. */
  readonly rateLimited: number
  /** Of those, per key fingerprint. */
  readonly rateLimitedByKey: Readonly<Record<string, number>>
  /** "Max daily rate limit reached" answers. */
  readonly dailyLimited: number
  /** "Missing/Invalid API Key", "Invalid API Key" and "Too many invalid api key attempts" answers. */
  readonly invalidKey: number
  /** Injected faults by kind (a forced rate-limit answer counts here, not in `rateLimited`). */
  readonly faults: Readonly<Record<FaultKind, number>>
  /** List rows sent in successful answers. */
  readonly rowsServed: number
  /** Download files served. */
  readonly downloads: number
  /**
   * With `recordQueries`: every request's query per key fingerprint, in arrival order, as
   * `name=value` pairs sorted by name and joined with `&`, the key left out (empty otherwise).
   */
  readonly queriesByKey: Readonly<Record<string, ReadonlyArray<string>>>
}

/** An answer of the HTTP layer. */
export type HttpAnswer =
  | {
    readonly _tag: "body"
    readonly status: number
    readonly contentType: string
    readonly body: string
    readonly headers?: Readonly<Record<string, string>>
  }
  | { readonly _tag: "reset" }

/**
 * A query for the oracle: the same parameters a request would carry (apikey, page and offset ignored).
 *
 * @since 0.1.0
 * @category models
 */
export interface OracleQuery {
  readonly chainId: number
  readonly module: string
  readonly action: string
  readonly params?: Readonly<Record<string, string | number | undefined>>
}

/** Why the oracle cannot answer: the server's NOTOK text for the query, or "not a list". */
export type OracleFailure = { readonly reason: string }

const JSON_TYPE = "application/json; charset=utf-8"
const notok = (text: string): HttpAnswer => ({
  _tag: "body",
  status: 200,
  contentType: JSON_TYPE,
  body: "{\"status\":\"0\",\"message\":\"NOTOK\",\"result\":" + JSON.stringify(text) + "}"
})

const DOWNLOAD_TTL_MS = 5 * 60 * 1000

interface MutableStats {
  requests: number
  byKey: Record<string, number>
  byOperation: Record<string, number>
  rateLimited: number
  rateLimitedByKey: Record<string, number>
  dailyLimited: number
  invalidKey: number
  faults: Record<FaultKind, number>
  rowsServed: number
  downloads: number
  queriesByKey: Record<string, Array<string>>
}
const emptyStats = (): MutableStats => ({
  requests: 0,
  byKey: {},
  byOperation: {},
  rateLimited: 0,
  rateLimitedByKey: {},
  dailyLimited: 0,
  invalidKey: 0,
  faults: Object.fromEntries(faultKinds.map((k) => [k, 0])) as Record<FaultKind, number>,
  rowsServed: 0,
  downloads: 0,
  queriesByKey: {}
})
const bump = (m: Record<string, number>, k: string, n = 1) => {
  m[k] = (m[k] ?? 0) + n
}

/** Normalise query parameters: lower-case names, first value of repeated ones, empty values dropped. */
export const normaliseParams = (raw: Readonly<Record<string, string | ReadonlyArray<string>>>): {
  readonly params: Params
  readonly repeatedChainId: boolean
} => {
  const params: Record<string, string> = {}
  let repeatedChainId = false
  for (const [k, v] of Object.entries(raw)) {
    const name = k.toLowerCase()
    const value = typeof v === "string" ? v : v[0]
    if (typeof v !== "string" && v.length > 1 && name === "chainid") repeatedChainId = true
    if (value !== undefined && value !== "" && params[name] === undefined) params[name] = value
  }
  return { params, repeatedChainId }
}

/** The simulated service (everything but the sockets). */
export class Core {
  readonly dataset: Dataset
  readonly keys: ReadonlyMap<string, Rules.PlanName>
  private readonly enforceRateLimits: boolean
  private readonly freeWindow: 1_000 | 10_000
  private readonly toleranceMs: number
  private readonly recordQueries: boolean
  private readonly dailyCaps: Readonly<Record<Rules.PlanName, number>> | undefined
  private faults: FaultOptions
  private occurrences = new Map<string, number>()
  private stats = emptyStats()
  private readonly planWindows = new Map<string, SlidingWindow>()
  private readonly throttleWindows = new Map<string, SlidingWindow>()
  private readonly daily = new DailyCounter()
  private readonly exportDaily = new DailyCounter()
  private readonly invalid = new InvalidKeyTracker()
  private readonly downloads = new Map<string, { readonly csv: string; readonly expires: number }>()
  private downloadSerial = 0
  baseUrl = ""

  constructor(options: SimulatorOptions = {}) {
    const seed = options.seed ?? 1
    this.dataset = new Dataset(seed, options.dataset)
    const keys = new Map<string, Rules.PlanName>()
    for (const p of Rules.plans) keys.set(demoKeys[p], p)
    for (const [k, p] of Object.entries(options.keys ?? {})) keys.set(k, p)
    this.keys = keys
    this.enforceRateLimits = options.enforceRateLimits ?? true
    this.freeWindow = options.freeWindow ?? 1_000
    this.toleranceMs = options.rateLimitToleranceMs ?? 50
    this.recordQueries = options.recordQueries ?? false
    const caps = options.dailyCaps ?? true
    this.dailyCaps = caps === false
      ? undefined
      : Object.fromEntries(Rules.plans.map((p) => [p, caps === true ? Rules.planRates[p].perDay : caps[p] ?? Rules.planRates[p].perDay])) as Record<Rules.PlanName, number>
    this.faults = options.faults ?? {}
  }

  /** Replace the fault configuration; the per-query occurrence counts start again. */
  setFaults(faults: FaultOptions): void {
    this.faults = faults
    this.occurrences = new Map()
  }

  /** A snapshot of the statistics. */
  snapshot(): SimulatorStats {
    const s = this.stats
    return {
      ...s,
      byKey: { ...s.byKey },
      byOperation: { ...s.byOperation },
      rateLimitedByKey: { ...s.rateLimitedByKey },
      faults: { ...s.faults },
      queriesByKey: Object.fromEntries(Object.entries(s.queriesByKey).map(([k, q]) => [k, [...q]]))
    }
  }

  /** Start counting again. */
  resetStats(): void {
    this.stats = emptyStats()
  }

  private window(map: Map<string, SlidingWindow>, key: string, limit: number): SlidingWindow {
    let w = map.get(key)
    if (w === undefined) {
      w = new SlidingWindow(limit, 1000 - this.toleranceMs)
      map.set(key, w)
    }
    return w
  }

  /** Answer one /v2/api request. */
  handle(
    raw: Readonly<Record<string, string | ReadonlyArray<string>>>,
    ip: string,
    now: number
  ): { readonly answer: HttpAnswer; readonly latencyMs: number } {
    const { params, repeatedChainId } = normaliseParams(raw)
    const s = this.stats
    s.requests++
    bump(s.byKey, keyFingerprint(params.apikey))
    bump(s.byOperation, `${params.module ?? "?"}/${params.action ?? "?"}`)
    if (this.recordQueries) (s.queriesByKey[keyFingerprint(params.apikey)] ??= []).push(canonicalQuery(params))

    const rates = this.faults.rates ?? {}
    const faulty = faultKinds.some((k) => (rates[k] ?? 0) > 0) || (this.faults.latency?.fixedMs ?? 0) > 0 ||
      (this.faults.latency?.jitterMs ?? 0) > 0 || (this.faults.latency?.perKRowsMs ?? 0) > 0
    let kind: FaultKind | undefined
    let latencyMs = 0
    let variant = 0
    if (faulty) {
      const q = canonicalQuery(params)
      const n = this.occurrences.get(q) ?? 0
      this.occurrences.set(q, n + 1)
      const d = decideFault(this.faults, q, n)
      kind = d.kind
      latencyMs = d.latencyMs
      variant = d.variant
    }
    if (kind !== undefined) s.faults[kind]++
    switch (kind) {
      case "http502":
        return { latencyMs, answer: { _tag: "body", status: 502, contentType: "text/html", body: BAD_GATEWAY_PAGE } }
      case "http503":
        return { latencyMs, answer: { _tag: "body", status: 503, contentType: "text/html", body: UNAVAILABLE_PAGE } }
      case "http429":
        return {
          latencyMs,
          answer: { _tag: "body", status: 429, contentType: "text/plain", body: EDGE_RATE_LIMITED, headers: { "retry-after": "1" } }
        }
      case "reset":
        return { latencyMs, answer: { _tag: "reset" } }
      case "html":
        return {
          latencyMs,
          answer: { _tag: "body", status: 200, contentType: "text/html", body: (variant & 1) === 0 ? CHALLENGE_PAGE : BLOCKED_PAGE }
        }
      case "queryTimeout":
        return { latencyMs, answer: notok(Texts.QUERY_TIMEOUT) }
      case "busy":
        return { latencyMs, answer: notok(Texts.SERVER_TOO_BUSY) }
      case "freeUnavailable":
        // the real service says it to free keys under load; injected, it is said to every key
        return { latencyMs, answer: notok(Texts.FREE_TEMPORARILY_UNAVAILABLE) }
      case "rateLimit": {
        const plan = params.apikey === undefined ? undefined : this.keys.get(params.apikey)
        return { latencyMs, answer: notok(Texts.maxCallsPerSec(Rules.planRates[plan ?? "free"].perSecond)) }
      }
      case "truncated": {
        const full = this.respond(params, repeatedChainId, ip, now, false)
        if (full._tag === "reset") return { latencyMs, answer: full }
        return { latencyMs, answer: { ...full, body: full.body.slice(0, Math.floor(full.body.length / 2)) } }
      }
      case undefined: {
        // The windows count the arrival in respond (at `now`); the size-dependent part follows the answer.
        const answer = this.respond(params, repeatedChainId, ip, now, true)
        return { latencyMs: sizedLatency(this.faults, latencyMs, answer._tag === "body" ? answer.body : undefined), answer }
      }
    }
  }

  private respond(p: Params, repeatedChainId: boolean, ip: string, now: number, count: boolean): HttpAnswer {
    const s = this.stats
    const key = p.apikey
    if (key === undefined) {
      s.invalidKey++
      return notok(Texts.MISSING_OR_INVALID_API_KEY)
    }
    const plan = this.keys.get(key)
    if (plan === undefined) {
      s.invalidKey++
      if (this.invalid.blocked(ip, now)) return notok(Texts.TOO_MANY_INVALID_KEY_ATTEMPTS)
      this.invalid.record(ip, now)
      return notok(Texts.INVALID_API_KEY)
    }
    const module = p.module
    const action = p.action
    const op = module === undefined || action === undefined ? undefined : Rules.endpointOf(module, action)
    if (count) {
      const fp = keyFingerprint(key)
      if (this.enforceRateLimits) {
        const perSecond = Rules.planRates[plan].perSecond
        const w = this.window(this.planWindows, key, perSecond)
        let limit = w.allows(now) ? undefined : perSecond
        const t = op !== undefined && Rules.isThrottled(op.action)
          ? this.window(this.throttleWindows, key, Rules.THROTTLED_PER_SECOND)
          : undefined
        if (limit === undefined && t !== undefined && !t.allows(now)) limit = Rules.THROTTLED_PER_SECOND
        if (limit !== undefined) {
          s.rateLimited++
          bump(s.rateLimitedByKey, fp)
          return notok(Texts.maxCallsPerSec(limit))
        }
        w.record(now)
        t?.record(now)
      }
      if (this.dailyCaps !== undefined) {
        const isExport = op?.action === "exportaddresstags"
        if (this.daily.get(key, now) >= this.dailyCaps[plan] || (isExport && this.exportDaily.get(key, now) >= Rules.EXPORT_ADDRESS_TAGS_PER_DAY)) {
          s.dailyLimited++
          return notok(Texts.MAX_DAILY_RATE_LIMIT_REACHED)
        }
        this.daily.add(key, now)
        if (isExport) this.exportDaily.add(key, now)
      }
    }
    if (op?.action === "getapilimit") return this.write({ _tag: "value", json: this.apiLimit(key, plan, now) }, now)
    const chainId = this.chainOf(p, repeatedChainId)
    if (chainId === undefined) return notok(Texts.UNSUPPORTED_CHAIN)
    if (module === undefined || !Rules.modules.has(module)) return notok(Texts.INVALID_MODULE)
    if (op === undefined) return notok(Texts.INVALID_ACTION)
    if (!Rules.planReaches(plan, Rules.requiredPlan(op.action, p))) return notok(Texts.API_PRO_ENDPOINT)
    if (plan === "free" && Rules.refusedToFreeKeys(chainId, op.action)) return notok(Texts.FREE_NOT_SUPPORTED_FOR_CHAIN)
    if (!Rules.offeredOn(chainId, op.action)) return notok(Texts.CHAIN_NOT_SUPPORTED_FOR_ENDPOINT)
    // the blocks the simulator's clock has produced since the last request (raw transactions sent)
    mineDue(this.dataset.chain(chainId), now)
    return this.write(evaluate(this.dataset, chainId, op, p, { _tag: "request", plan, freeWindow: this.freeWindow }), now)
  }

  /**
   * getapilimit (no chainid needed): the key's calls today (this one included) against its plan's daily
   * cap, and the time left until the count starts again at midnight UTC.
   */
  private apiLimit(key: string, plan: Rules.PlanName, now: number): string {
    const limit = this.dailyCaps?.[plan] ?? Rules.planRates[plan].perDay
    const used = this.daily.get(key, now)
    const left = Math.max(0, Math.ceil((86_400_000 - (now % 86_400_000)) / 1000))
    const two = (n: number) => String(n).padStart(2, "0")
    const span = `${two(Math.floor(left / 3600) % 24)}:${two(Math.floor(left / 60) % 60)}:${two(left % 60)}`
    return JSON.stringify({
      creditsUsed: used,
      creditsAvailable: Math.max(0, limit - used),
      creditLimit: limit,
      limitInterval: "daily",
      intervalExpiryTimespan: span
    })
  }

  private chainOf(p: Params, repeated: boolean): number | undefined {
    const raw = p.chainid
    if (repeated || raw === undefined || !/^\d{1,12}$/.test(raw)) return undefined
    const id = Number(raw)
    return isServed(id) ? id : undefined
  }

  private write(o: Outcome, now: number): HttpAnswer {
    const ok = (result: string, message = "OK"): HttpAnswer => ({
      _tag: "body",
      status: 200,
      contentType: JSON_TYPE,
      body: "{\"status\":\"1\",\"message\":\"" + message + "\",\"result\":" + result + "}"
    })
    switch (o._tag) {
      case "error":
        return notok(o.text)
      case "value":
        return ok(o.json)
      case "rpc":
        return {
          _tag: "body",
          status: 200,
          contentType: JSON_TYPE,
          // real JSON-RPC bodies end with a newline (recorded answers)
          body: "{\"jsonrpc\":\"2.0\",\"id\":" + o.id + ",\"result\":" + o.result + "}\n"
        }
      case "rpcError":
        return {
          _tag: "body",
          status: 200,
          contentType: JSON_TYPE,
          body: "{\"jsonrpc\":\"2.0\",\"id\":" + o.id + ",\"error\":" +
            JSON.stringify(o.data === undefined ? { code: o.code, message: o.message } : { code: o.code, message: o.message, data: o.data }) +
            "}\n"
        }
      case "list": {
        if (o.rows.length === 0) {
          return {
            _tag: "body",
            status: 200,
            contentType: JSON_TYPE,
            body: "{\"status\":\"0\",\"message\":\"" + o.emptyMessage + "\",\"result\":" + (o.emptyResult ?? "[]") + "}"
          }
        }
        this.stats.rowsServed += o.rows.length
        return ok("[" + o.rows.join(",") + "]", o.okMessage)
      }
      case "download":
        return ok(JSON.stringify(this.createDownload(o.csv, now)))
    }
  }

  private createDownload(csv: string, now: number): string {
    for (const [k, v] of this.downloads) if (v.expires <= now) this.downloads.delete(k)
    const token = hex8(hash2(hashString(this.baseUrl), this.downloadSerial)) + hex8(hash2(now | 0, ++this.downloadSerial))
    this.downloads.set(token, { csv, expires: now + DOWNLOAD_TTL_MS })
    return `${this.baseUrl}/downloads/${token}.csv?expires=${Math.floor((now + DOWNLOAD_TTL_MS) / 1000)}`
  }

  /** Serve a download file (GET /downloads/<token>.csv). */
  download(file: string, now: number): HttpAnswer {
    const token = file.endsWith(".csv") ? file.slice(0, -4) : file
    const d = this.downloads.get(token)
    if (d === undefined) {
      return { _tag: "body", status: 404, contentType: "application/xml", body: s3Error("NoSuchKey", "The specified key does not exist.") }
    }
    if (d.expires <= now) {
      this.downloads.delete(token)
      return { _tag: "body", status: 403, contentType: "application/xml", body: s3Error("AccessDenied", "Request has expired") }
    }
    this.stats.downloads++
    return { _tag: "body", status: 200, contentType: "text/csv; charset=utf-8", body: d.csv }
  }

  /** Every record a query matches (see `Simulator.Service.oracle`). */
  oracle(query: OracleQuery, countOnly: boolean): { readonly records: ReadonlyArray<WireRecord>; readonly count: number } | OracleFailure {
    const p: Record<string, string> = {}
    for (const [k, v] of Object.entries(query.params ?? {})) if (v !== undefined && v !== "") p[k.toLowerCase()] = String(v)
    delete p.page
    delete p.offset
    if (!isServed(query.chainId)) return { reason: Texts.UNSUPPORTED_CHAIN }
    if (!Rules.modules.has(query.module)) return { reason: Texts.INVALID_MODULE }
    const op = Rules.endpointOf(query.module, query.action)
    if (op === undefined) return { reason: Texts.INVALID_ACTION }
    if (!Rules.offeredOn(query.chainId, op.action)) return { reason: Texts.CHAIN_NOT_SUPPORTED_FOR_ENDPOINT }
    const mode: Mode = { _tag: "oracle", countOnly }
    const o = evaluate(this.dataset, query.chainId, op, p, mode)
    switch (o._tag) {
      case "error":
        return { reason: o.text }
      case "list":
        return countOnly
          ? { records: [], count: o.rows.length }
          : { records: o.rows.map((r) => JSON.parse(r) as WireRecord), count: o.rows.length }
      case "download":
        return { records: o.records.map((r) => JSON.parse(r) as WireRecord), count: o.records.length }
      case "value": {
        const v = JSON.parse(o.json) as Json
        if (Array.isArray(v)) return { records: v as ReadonlyArray<WireRecord>, count: v.length }
        if (typeof v === "object" && v !== null) return { records: [v as WireRecord], count: 1 }
        return { reason: `${query.module}/${query.action} answers a single value, not records` }
      }
      case "rpc":
      case "rpcError":
        return { reason: `${query.module}/${query.action} answers a single value, not records` }
    }
  }
}

const s3Error = (code: string, message: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`
