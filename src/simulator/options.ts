/**
 * Options of the simulator: server, keys, limits, data set knobs and fault injection, plus the
 * `--fault` spec parser the CLI uses (`parseFaultSpec("http503=0.1,reset=0.05,latency=20+10,seed=7")`).
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { PlanName } from "./rules.js"

/**
 * The row kinds a scenario can add (see `DatasetOptions.scenarios`).
 *
 * @since 0.1.0
 * @category models
 */
export type ScenarioKind =
  | "logs"
  | "mixedLogs"
  | "txlist"
  | "txlistinternal"
  | "tokentx"
  | "tokennfttx"
  | "token1155tx"
  | "tokenholderlist"
  | "addresstokenbalance"
  | "addresstokennftbalance"

/**
 * Extra rows for one entity, for tests that need a precise distribution. `address` is the entity
 * the rows belong to: the emitting contract for `logs`, the wallet for the account lists and
 * balances, the token contract for `tokenholderlist`. `rowsPerBlock` lists (block, count) pairs; for
 * the holder and balance kinds (not block-ordered) only the total count matters. `logs` are ERC-20-shaped
 * Transfer logs; `mixedLogs` the same with about one log in five an ERC-721-shaped Transfer (3 indexed
 * topics, no data) and about one in thirteen a `Paused(address)`, logs an ERC-20 ABI cannot decode.
 *
 * @since 0.1.0
 * @category models
 */
export interface Scenario {
  readonly chainId: number
  readonly kind: ScenarioKind
  readonly address: string
  readonly rowsPerBlock: ReadonlyArray<readonly [block: number, count: number]>
}

/**
 * Shape and scale of the generated data set.
 *
 * @since 0.1.0
 * @category models
 */
export interface DatasetOptions {
  /** Chains with a populated data set (default 1, 137, 8453, 999, 11155111); other served chains are empty. */
  readonly chains?: ReadonlyArray<number>
  /** Transactions of each chain's `busyWallet` (default 5,000; benchmarks use 100,000). */
  readonly busyWalletTransactions?: number
  /** Logs of each chain's `heavyContract` (default 20,000; benchmarks use 1,000,000). */
  readonly heavyContractLogs?: number
  /** Rows added on top of the generated ones. */
  readonly scenarios?: ReadonlyArray<Scenario>
}

/**
 * The kinds of injected fault.
 *
 * @since 0.1.0
 * @category constants
 */
export const faultKinds = [
  "http502",
  "http503",
  "http429",
  "reset",
  "truncated",
  "html",
  "queryTimeout",
  "busy",
  "rateLimit",
  "freeUnavailable"
] as const

/**
 * One kind of injected fault.
 *
 * @since 0.1.0
 * @category models
 */
export type FaultKind = typeof faultKinds[number]

/**
 * Fault injection of one server. Each request's fault is decided from a hash of (seed, the query
 * without apikey, how many times that query was seen since the last `setFaults`), so a replay in the
 * same order per query gives the same faults even when requests interleave.
 *
 * @since 0.1.0
 * @category models
 */
export interface FaultOptions {
  readonly seed?: number
  /**
   * Added to every answer: `fixedMs` plus a deterministic share of `jitterMs`, plus `perKRowsMs` for
   * every 1,000 rows the answer's `result` holds (a distant server takes longer to send a big answer).
   * The delay runs after the per-key windows have counted the arrival.
   */
  readonly latency?: { readonly fixedMs?: number; readonly jitterMs?: number; readonly perKRowsMs?: number }
  /** Fraction (0..1) of answers replaced by each fault; the fractions add up to at most 1. */
  readonly rates?: { readonly [K in FaultKind]?: number }
}

/**
 * Options of `Simulator.layer` and `serve`.
 *
 * @since 0.1.0
 * @category models
 */
export interface SimulatorOptions {
  /** Seed of the data set (default 1). */
  readonly seed?: number
  /** Interface to listen on (default 127.0.0.1). */
  readonly host?: string
  /** Port (default 0: a random free port). */
  readonly port?: number
  /** Extra API keys and their plans, on top of the demo keys. */
  readonly keys?: Readonly<Record<string, PlanName>>
  /** Per-second sliding windows (plan rate and the 2/s throttle); default true, benchmarks turn it off. */
  readonly enforceRateLimits?: boolean
  /**
   * Allowance for network jitter in the sliding window, in milliseconds (default 50): a call counts
   * as "within the same second" as an earlier one when it arrives less than 1000 − this after it.
   */
  readonly rateLimitToleranceMs?: number
  /**
   * Record every request's query (without the key) in `stats.queriesByKey`, e.g. to check which calls
   * a program repeated; default false (the list grows with every request).
   */
  readonly recordQueries?: boolean
  /**
   * The free plan's result window (largest `page × offset`) on the list operations (txlist,
   * txlistinternal, tokentx, tokennfttx, token1155tx, getLogs, tokenholderlist, getminedblocks,
   * txsBeaconWithdrawal): 1,000 (default) or 10,000. The service's changelog cut the free tier's records
   * per request to 1,000 and no recording says whether the window shrank with them; a request still
   * returns at most 1,000 rows either way.
   */
  readonly freeWindow?: 1_000 | 10_000
  /** Daily caps: `true` (default) = the plans' caps, `false` = none, or caps per plan to override. */
  readonly dailyCaps?: boolean | { readonly [P in PlanName]?: number }
  /**
   * The simulator's time (epoch ms) for its windows, daily caps (a day is a UTC day of this clock) and
   * download links; default `Date.now`. A test that must see a new day without waiting for one moves a
   * clock of its own (and gives the client's runtime the same one).
   */
  readonly now?: (() => number) | undefined
  readonly faults?: FaultOptions
  readonly dataset?: DatasetOptions
}

/**
 * A `--fault` spec that cannot be read; `message` says which part.
 *
 * @since 0.1.0
 * @category errors
 */
export class FaultSpecError extends Schema.TaggedError<FaultSpecError>()("FaultSpecError", {
  spec: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `Invalid fault spec "${this.spec}": ${this.reason}`
  }
}

const kindByName: Readonly<Record<string, FaultKind>> = Object.fromEntries(
  [
    ...faultKinds.map((k) => [k.toLowerCase(), k] as const),
    ["502", "http502"],
    ["503", "http503"],
    ["429", "http429"],
    ["timeout", "queryTimeout"],
    ["cloudflare", "html"],
    ["ratelimited", "rateLimit"]
  ] as ReadonlyArray<readonly [string, FaultKind]>
)

/**
 * Read a comma-separated fault spec: `<kind>=<fraction>` for each fault kind (http502, http503,
 * http429, reset, truncated, html, queryTimeout, busy, rateLimit, freeUnavailable), `latency=<fixed>[+<jitter>]` in
 * milliseconds, `perKRows=<ms>` (added latency per 1,000 rows of the answer), `seed=<int>`. An empty
 * spec means no faults.
 *
 * @example
 * parseFaultSpec("http503=0.1,reset=0.05,latency=20+10,seed=7")
 * // Right({ seed: 7, latency: { fixedMs: 20, jitterMs: 10 }, rates: { http503: 0.1, reset: 0.05 } })
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseFaultSpec = (spec: string): Either.Either<FaultOptions, FaultSpecError> => {
  const fail = (reason: string) => Either.left(new FaultSpecError({ spec, reason }))
  const rates: { [K in FaultKind]?: number } = {}
  let seed: number | undefined
  let latency: { fixedMs: number; jitterMs: number } | undefined
  let perKRowsMs: number | undefined
  let sum = 0
  for (const raw of spec.split(",")) {
    const part = raw.trim()
    if (part === "") continue
    const eq = part.indexOf("=")
    if (eq <= 0) return fail(`"${part}" is not name=value`)
    const name = part.slice(0, eq).trim().toLowerCase()
    const value = part.slice(eq + 1).trim()
    if (name === "seed") {
      if (!/^\d+$/.test(value)) return fail(`seed must be a non-negative integer, got "${value}"`)
      seed = Number(value)
    } else if (name === "latency") {
      const m = /^(\d+(?:\.\d+)?)(?:\+(\d+(?:\.\d+)?))?$/.exec(value)
      if (m === null) return fail(`latency must be <fixedMs>[+<jitterMs>], got "${value}"`)
      latency = { fixedMs: Number(m[1]), jitterMs: m[2] === undefined ? 0 : Number(m[2]) }
    } else if (name === "perkrows") {
      if (!/^\d+(?:\.\d+)?$/.test(value)) return fail(`perKRows must be a non-negative number of ms, got "${value}"`)
      perKRowsMs = Number(value)
    } else {
      const kind = kindByName[name]
      if (kind === undefined) return fail(`unknown fault "${name}" (known: ${faultKinds.join(", ")}, latency, perKRows, seed)`)
      const n = Number(value)
      if (value === "" || !Number.isFinite(n) || n < 0 || n > 1) return fail(`${kind} must be a fraction in 0..1, got "${value}"`)
      sum += n - (rates[kind] ?? 0)
      rates[kind] = n
    }
  }
  if (sum > 1 + 1e-9) return fail(`the fault fractions add up to ${sum}, more than 1`)
  const sized = perKRowsMs === undefined ? latency : { ...(latency ?? { fixedMs: 0, jitterMs: 0 }), perKRowsMs }
  return Either.right({
    ...(seed === undefined ? {} : { seed }),
    ...(sized === undefined ? {} : { latency: sized }),
    rates
  })
}
