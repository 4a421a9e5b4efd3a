/**
 * The per-key limiters: one shared limiter per API key (and base URL) for the whole process, so
 * every fiber, stream, chain — and every client layer — that uses a key stays under its rate.
 *
 * - The key's lane spaces the starts `1000 / (rate × (1 − margin))` ms apart (not rounded: 347.2 ms at
 *   3/s with the default 4 % margin), one caller at a time: evenly spaced, never a burst (a token
 *   bucket of `limit: N / 1 s` lets N + 1 calls through in the first second, effect-3-notes §1.8). A
 *   timer fires a little late (1–2 ms in Node); spacing each start from the previous *actual* start
 *   would lose that every call (2 % of the budget at 10/s, 5 % at 30/s), so the next start is planned
 *   from the previous *planned* one, but catches up at most 2 ms (and never more than half the safety
 *   margin). Any N + 1 consecutive starts then span at least N × spacing − 3 ms (2 ms of catch-up,
 *   1 ms of clock resolution; the catch-up does not add up: only the first start's lateness is made
 *   up within a run): with a 4 % margin, at least 1,038 ms at every rate, 96 % of the rate at best.
 *   The ~40 ms of slack is for whatever shifts an arrival as the server counts it (the network, the
 *   server's own pauses, this process's event loop between the slot and the socket). (At 3 %, 31 ms
 *   of slack, a simulator counting to the millisecond refused one call now and then on a busy 2-core
 *   machine; bench/RESULTS.md.)
 * - The throttled operations (`Plan.operations[x].throttled`, 2 calls/s on every plan) also pass a
 *   gate that holds their slot until `1000 / (2 × (1 − margin))` ms after the moment they took the
 *   key's slot, i.e. the moment they are sent (520.8 ms at 4 %, 96 % of the 2/s). (Two RateLimiters
 *   in a row would not do: a call that waits for the key's lane after taking the throttled token is
 *   sent late, the next one may not wait, and two throttled calls would reach the server closer than
 *   500 ms apart.)
 * - A rate-limit answer pauses the key: every call waits until the pause is over.
 *
 * The limiter is applied per attempt (retries are throttled too).
 *
 * **Shared by key, even across layers.** The registry lives at module level (`globalValue`): two
 * `Client.layer(...)` built for the same base URL and key — the documented "layer provided twice
 * doubles the rate" trap — get the same limiter. The entry is reference-counted and closed when
 * the last client using it is released. A later client asking a different rate for the same key
 * shares the first one's limiter (and a warning is logged): the server counts per key, not per
 * client.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import { globalValue } from "effect/GlobalValue"
import { createHash } from "node:crypto"

/** What a client needs from its key's limiter. */
export interface Throttle {
  /** Calls per second the key's lane allows (before the safety margin). */
  readonly callsPerSecond: number
  /** Calls per second of the throttled operations (before the safety margin). */
  readonly throttledPerSecond: number
  /** Spacing of the key's lane, in ms (the margin included). */
  readonly intervalMillis: number
  /** Spacing of the throttled lane, in ms (the margin included). */
  readonly throttledIntervalMillis: number
  /**
   * Waits until one request may be sent now: the pause (if any) is over, the key's lane has a slot
   * and, for a throttled operation, the throttled lane too. Call it once per attempt, right before
   * sending.
   */
  readonly acquire: (throttled: boolean) => Effect.Effect<void>
  /** After a rate-limit answer: every call of the key waits until `duration` from now. */
  readonly pause: (duration: Duration.DurationInput) => Effect.Effect<void>
}

/** Options of {@link make}. */
export interface Options {
  /** The API URL the key is used against (two servers do not share a limit). */
  readonly apiUrl: string
  /** The key; `None` shares one "keyless" limiter per URL. */
  readonly apiKey: Option.Option<Redacted.Redacted<string>>
  readonly callsPerSecond: number
  readonly throttledPerSecond: number
  /** Fraction of the rate kept in reserve, e.g. 0.04 (`Config.DEFAULT_SAFETY_MARGIN`). */
  readonly safetyMargin: number
}

/** How late a start of the key's lane the next start may make up, in ms (timer lateness, not pauses). */
const MAX_CATCH_UP_MILLIS = 2

/**
 * The spacing in ms of a lane of `rate` calls/s with a safety margin, not rounded: the lanes plan their
 * starts in fractions of a millisecond and wait whole milliseconds, never starting before the plan.
 */
export const intervalMillis = (rate: number, safetyMargin: number): number => 1000 / (rate * (1 - safetyMargin))

/**
 * A short fingerprint of a key (SHA-256, 16 hex digits) for the registry: the registry never holds
 * the key itself.
 */
export const fingerprint = (apiKey: Option.Option<Redacted.Redacted<string>>): string =>
  Option.match(apiKey, {
    onNone: () => "no-key",
    onSome: (key) => createHash("sha256").update(Redacted.value(key)).digest("hex").slice(0, 16)
  })

interface Entry {
  readonly throttle: Throttle
  readonly scope: Scope.CloseableScope
  refCount: number
}

interface Registry {
  readonly entries: Map<string, Entry>
  readonly lock: Effect.Semaphore
}

const registry = globalValue(Symbol.for("explorer-etl/Throttle/registry"), (): Registry => ({
  entries: new Map(),
  lock: Effect.unsafeMakeSemaphore(1)
}))

/** How many keys have a live limiter (for tests and diagnostics). */
export const activeCount: Effect.Effect<number> = Effect.sync(() => registry.entries.size)

const build = (options: Options): Effect.Effect<Throttle> =>
  Effect.gen(function*() {
    const keyInterval = intervalMillis(options.callsPerSecond, options.safetyMargin)
    const throttledInterval = intervalMillis(options.throttledPerSecond, options.safetyMargin)
    // How much of a late start the next one may make up: the usual lateness of a timer, and at most
    // half the safety margin of one interval.
    const catchUp = Math.min(MAX_CATCH_UP_MILLIS, (keyInterval * options.safetyMargin) / 2)
    const keyGate = yield* Effect.makeSemaphore(1)
    const nextKeyStart = yield* Ref.make(Number.NEGATIVE_INFINITY)
    const keyLane: Effect.Effect<void> = keyGate.withPermits(1)(
      Effect.gen(function*() {
        const planned = yield* Ref.get(nextKeyStart)
        const now = yield* Clock.currentTimeMillis
        if (now < planned) yield* Effect.sleep(Duration.millis(Math.ceil(planned - now)))
        // The clock counts whole milliseconds: a start up to 1 ms after a fractional plan is on time.
        const started = yield* Clock.currentTimeMillis
        yield* Ref.set(nextKeyStart, Math.max(planned, started - catchUp - 1) + keyInterval)
      })
    )
    const throttledGate = yield* Effect.makeSemaphore(1)
    const lastThrottledSend = yield* Ref.make(Number.NEGATIVE_INFINITY)
    const pauseUntil = yield* Ref.make(0)

    const waitUntil = (ref: Ref.Ref<number>, offset: number) =>
      Effect.gen(function*() {
        const until = (yield* Ref.get(ref)) + offset
        const now = yield* Clock.currentTimeMillis
        if (now < until) yield* Effect.sleep(Duration.millis(Math.ceil(until - now)))
      })

    // Take a slot of the key's lane once no pause is running; a slot taken while a pause began is
    // given up and a new one taken after the pause (so calls resume evenly spaced, not in a burst).
    const keySlot: Effect.Effect<void> = Effect.gen(function*() {
      while (true) {
        yield* waitUntil(pauseUntil, 0)
        yield* keyLane
        const now = yield* Clock.currentTimeMillis
        if (now >= (yield* Ref.get(pauseUntil))) return
      }
    })

    const throttledSlot = throttledGate.withPermits(1)(
      Effect.gen(function*() {
        yield* waitUntil(lastThrottledSend, throttledInterval)
        yield* keySlot
        yield* Ref.set(lastThrottledSend, yield* Clock.currentTimeMillis)
      })
    )

    return {
      callsPerSecond: options.callsPerSecond,
      throttledPerSecond: options.throttledPerSecond,
      intervalMillis: keyInterval,
      throttledIntervalMillis: throttledInterval,
      acquire: (throttled) => (throttled ? throttledSlot : keySlot),
      pause: (duration) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Ref.update(pauseUntil, (until) => Math.max(until, now + Duration.toMillis(duration))))
    } satisfies Throttle
  })

/**
 * The limiter of a key, shared process-wide: the first call builds it, later calls (from any
 * client layer) get the same one until every scope that asked for it is closed.
 *
 * Note: the limiter's clock is the one of the fiber that built it (tests on `TestClock` should use
 * a key of their own).
 */
export const make = (options: Options): Effect.Effect<Throttle, never, Scope.Scope> => {
  const id = `${options.apiUrl} ${fingerprint(options.apiKey)}`
  const acquire = registry.lock.withPermits(1)(
    Effect.gen(function*() {
      const existing = registry.entries.get(id)
      if (existing !== undefined) {
        existing.refCount++
        const t = existing.throttle
        if (t.callsPerSecond !== options.callsPerSecond || t.throttledPerSecond !== options.throttledPerSecond) {
          yield* Effect.logWarning(
            `explorer-etl: a client for this key already runs at ${t.callsPerSecond} calls/s ` +
              `(${t.throttledPerSecond}/s throttled); sharing it instead of ${options.callsPerSecond} calls/s`
          )
        }
        return existing
      }
      const scope = yield* Scope.make()
      const throttle = yield* build(options)
      const entry: Entry = { throttle, scope, refCount: 1 }
      registry.entries.set(id, entry)
      return entry
    })
  )
  const release = (entry: Entry) =>
    registry.lock.withPermits(1)(
      Effect.suspend(() => {
        entry.refCount--
        if (entry.refCount > 0) return Effect.void
        if (registry.entries.get(id) === entry) registry.entries.delete(id)
        return Scope.close(entry.scope, Exit.void)
      })
    )
  return Effect.map(Effect.acquireRelease(acquire, release), (entry) => entry.throttle)
}
