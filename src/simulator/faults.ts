/**
 * Fault injection: which fault (if any) a request gets and how long it waits, decided from a hash of
 * (fault seed, canonical query without apikey, occurrence of that query), and the bodies the faults
 * send (Cloudflare-style pages, the edge's 429, the server's timeout/busy texts).
 */
import { hash2, hash3, hashString, unit } from "./hash.js"
import { type FaultKind, faultKinds, type FaultOptions } from "./options.js"

/** The query as the fault decision sees it: names lower-cased, sorted, apikey left out. */
export const canonicalQuery = (params: Readonly<Record<string, string>>): string =>
  Object.keys(params)
    .filter((k) => k !== "apikey")
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join("&")

/** The fault of one request, and its added latency. */
export interface FaultDecision {
  readonly kind: FaultKind | undefined
  readonly latencyMs: number
  /** A second deterministic draw, for variants (which HTML page). */
  readonly variant: number
}

/** Decide the fault of the `occurrence`-th request (0-based) of `query` under `faults`. */
export const decideFault = (faults: FaultOptions, query: string, occurrence: number): FaultDecision => {
  const seed = faults.seed ?? 0
  const h = hash3(seed, hashString(query), occurrence)
  const u = unit(h)
  let kind: FaultKind | undefined
  let acc = 0
  const rates = faults.rates ?? {}
  for (const k of faultKinds) {
    const r = rates[k] ?? 0
    if (r <= 0) continue
    acc += r
    if (u < acc) {
      kind = k
      break
    }
  }
  const fixed = faults.latency?.fixedMs ?? 0
  const jitter = faults.latency?.jitterMs ?? 0
  return { kind, latencyMs: Math.max(0, fixed + (jitter > 0 ? unit(hash2(h, 0x1a7)) * jitter : 0)), variant: hash2(h, 0x5a7) }
}

const gatewayPage = (code: number, title: string): string =>
  `<html>\r\n<head><title>${code} ${title}</title></head>\r\n<body>\r\n<center><h1>${code} ${title}</h1></center>\r\n` +
  `<hr><center>cloudflare</center>\r\n</body>\r\n</html>\r\n`

/** Cloudflare's 502 page. */
export const BAD_GATEWAY_PAGE = gatewayPage(502, "Bad Gateway")
/** Cloudflare's 503 page. */
export const UNAVAILABLE_PAGE = gatewayPage(503, "Service Temporarily Unavailable")
/** Cloudflare's rate-limit body (error 1015) sent with HTTP 429. */
export const EDGE_RATE_LIMITED = "error code: 1015"

/** Cloudflare's browser challenge page ("Just a moment..."). */
export const CHALLENGE_PAGE =
  "<!DOCTYPE html><html lang=\"en-US\"><head><title>Just a moment...</title>" +
  "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=UTF-8\"><meta name=\"robots\" content=\"noindex,nofollow\">" +
  "</head><body><div class=\"main-wrapper\" role=\"main\"><div class=\"main-content\"><h1 class=\"zone-name-title h1\">" +
  "api.etherscan.io</h1><h2 class=\"h2\" id=\"challenge-running\">Checking if the site connection is secure</h2>" +
  "<noscript><div class=\"h2\">Enable JavaScript and cookies to continue</div></noscript></div></div>" +
  "<div class=\"footer\" role=\"contentinfo\">Performance &amp; security by Cloudflare</div></body></html>"

/** Cloudflare's block page ("Sorry, you have been blocked"). */
export const BLOCKED_PAGE =
  "<!DOCTYPE html><html class=\"no-js\" lang=\"en-US\"><head><title>Attention Required! | Cloudflare</title>" +
  "<meta charset=\"UTF-8\" /></head><body><div id=\"cf-wrapper\"><div id=\"cf-error-details\" class=\"cf-error-details-wrapper\">" +
  "<div class=\"cf-wrapper cf-header cf-error-overview\"><h1 data-translate=\"block_headline\">Sorry, you have been blocked</h1>" +
  "<h2 class=\"cf-subheadline\"><span data-translate=\"unable_to_access\">You are unable to access</span> etherscan.io</h2>" +
  "</div><div class=\"cf-section cf-wrapper\"><p>This website is using a security service to protect itself from online attacks.</p>" +
  "</div><p class=\"cf-footer-item\">Performance &amp; security by Cloudflare</p></div></div></body></html>"

/**
 * How many rows an answer body's `result` holds: the length of its array, 0 for anything else
 * (an error text, a JSON-RPC object, an HTML page).
 */
export const resultRows = (body: string): number => {
  try {
    const parsed: unknown = JSON.parse(body)
    const result = typeof parsed === "object" && parsed !== null ? (parsed as { result?: unknown }).result : undefined
    return Array.isArray(result) ? result.length : 0
  } catch {
    return 0
  }
}

/**
 * The latency of an answer once its size is known: `baseMs` (fixed + jitter, from `decideFault`) plus
 * `perKRowsMs` for every 1,000 rows of its `result`. The body is only read when `perKRowsMs` is set.
 */
export const sizedLatency = (faults: FaultOptions, baseMs: number, body: string | undefined): number => {
  const perK = faults.latency?.perKRowsMs ?? 0
  if (perK <= 0 || body === undefined) return baseMs
  return baseMs + (resultRows(body) / 1000) * perK
}
