/**
 * The per-key limiters: one shared limiter per API key (and base URL) for the whole process, so
 * every fiber, stream, chain — and every client layer — that uses a key stays under its rate.
 *
 * - A lane is a grant loop repeated on a `Schedule` ({@link starts}): a fiber hands the start to the
 *   next waiting caller, then the schedule, stepped at that start, says when the next one may be.
 *   Callers wait in a queue; a lane with no one waiting starts the next caller at once (if its time
 *   has come), so an idle key adds no latency.
 * - The key's lane spaces the starts `1000 / (rate × (1 − margin))` ms apart (not rounded: 347.2 ms at
 *   3/s with the default 4 % margin), one caller at a time: evenly spaced, never a burst (a token
 *   bucket of `limit: N / 1 s` lets N + 1 calls through in the first second, effect-3-notes §1.8; a
 *   fixed grid of permits, `Schedule.fixed`, does the same: a permit kept until a caller comes is
 *   followed by the next grid point, closer than the spacing). A timer fires a little late (1–2 ms in
 *   Node); spacing each start from the previous *actual* start would lose that every call (2 % of the
 *   budget at 10/s, 5 % at 30/s), so the next start is planned from the previous *planned* one, but
 *   catches up at most 2 ms (and never more than half the safety margin). Any N + 1 consecutive
 *   starts then span at least N × spacing − 3 ms (2 ms of catch-up, 1 ms of clock resolution; the
 *   catch-up does not add up: only the first start's lateness is made up within a run): with a 4 %
 *   margin, at least 1,038 ms at every rate, 96 % of the rate at best. The ~40 ms of slack is for
 *   whatever shifts an arrival as the server counts it (the network, the server's own pauses, this
 *   process's event loop between the slot and the socket). (At 3 %, 31 ms of slack, a simulator
 *   counting to the millisecond refused one call now and then on a busy 2-core machine.)
 * - The throttled operations (`Plan.operations[x].throttled`, 2 calls/s on every plan) wait in a lane
 *   of their own whose loop, for each caller, first takes a slot of the key's lane and then starts
 *   the next throttled call no sooner than `1000 / (2 × (1 − margin))` ms after that slot, i.e. the
 *   moment it was sent (520.8 ms at 4 %, 96 % of the 2/s). (Two RateLimiters in a row would not do: a
 *   call that waits for the key's lane after taking the throttled token is sent late, the next one may
 *   not wait, and two throttled calls would reach the server closer than 500 ms apart.)
 * - **Starts counted when the request leaves.** A start is given to a caller, but the request goes out a
 *   little later (its fiber must be resumed, the request built, handed to the HTTP client): on a busy
 *   event loop (pages decoded, other fibers) that can be tens of milliseconds, and more for one call than
 *   the next. The server counts arrivals, so a call that left late narrows its window to the calls after
 *   it. Each start is a {@link Ticket}: the transport marks it {@link sent} as it hands the request over
 *   (and again when undici writes it to its socket, after any connection set-up), and a lane starts no
 *   caller sooner than `N × 1000 / (rate × (1 − margin/2))` ms after the send of the start N before it
 *   (N: the lane's calls a second; 1,020 ms at 4 %): half the margin stays for the network, the other
 *   half absorbs an ordinary delay (up to ~18 ms) at no cost, and a longer one holds the later start
 *   back by what is missing, never letting N + 1 requests out within a second.
 * - A rate-limit answer pauses the key: the key's lane starts no one until the pause is over, then
 *   resumes evenly spaced (the first start after the pause plans the next), not in a burst.
 * - A caller that gives up while waiting (interrupted) leaves its turn to the next one.
 * - **Who goes first.** A caller may say how urgent it is ({@link Priority}): the key's lane starts the
 *   waiting caller of the lowest level, in the order they came within a level, and a caller may lower
 *   its level while it waits. The paging engine asks the page a cursor waits for at level 0 and the
 *   pages it asks ahead of need at higher levels, so a guess goes only in a slot no needed page wants
 *   (a slot nobody takes is lost: a guess there costs nothing more). Callers that say nothing are
 *   level 0: first come, first served, as before.
 *
 * The limiter is applied per attempt (retries are throttled too).
 *
 * **Shared by key, even across layers.** The registry lives at module level (`globalValue`): two
 * `ExplorerClient.layer(...)` built for the same base URL and key — the documented "layer provided twice
 * doubles the rate" trap — get the same limiter. The entry is reference-counted and closed when
 * the last client using it is released (its loops stop). A later client asking a different rate for
 * the same key shares the first one's limiter (and a warning is logged): the server counts per key,
 * not per client.
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as ScheduleDecision from "effect/ScheduleDecision"
import * as ScheduleInterval from "effect/ScheduleInterval"
import * as Scope from "effect/Scope"
import { globalValue } from "effect/GlobalValue"
import { createHash } from "node:crypto"

/**
 * What a client needs from its key's limiter.
 *
 * @since 0.1.0
 * @category models
 */
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
  readonly acquire: (throttled: boolean, priority?: Priority) => Effect.Effect<Ticket>
  /** After a rate-limit answer: every call of the key waits until `duration` from now. */
  readonly pause: (duration: Duration.DurationInput) => Effect.Effect<void>
}

/**
 * One start given by a key's lane: `sentAt` is when it was given (ms), until the request's sender marks
 * with {@link sent} when the request actually left; the lanes start the call N after it no sooner than a
 * second (and a little) after that.
 *
 * @since 0.1.0
 * @category models
 */
export interface Ticket {
  sentAt: number
}

/**
 * Marks a start's request as sent now (right before it is handed to the HTTP client): the later starts
 * of its lanes are counted from here, not from when the start was given.
 *
 * @since 0.1.0
 * @category utils
 */
export const sent = (ticket: Ticket): Effect.Effect<void> =>
  Effect.map(Clock.currentTimeMillis, (now) => {
    if (now > ticket.sentAt) ticket.sentAt = now
  })

/**
 * How urgent a call is at its key's lane: of the callers waiting, the lowest `level` starts first
 * (first come, first served within a level). Mutable: a caller waiting at a higher level that turns
 * out to be needed (a page asked ahead that a cursor now waits for) lowers it in place, and the lane
 * reads it at its next start. No priority is level 0.
 *
 * @since 0.1.0
 * @category models
 */
export interface Priority {
  level: number
}

/**
 * A shared lane's answer when the key's calls of the current UTC day are spent: the call is not sent
 * (the client fails it with the `RateLimitError` of scope "day" the server would answer).
 *
 * @since 0.1.0
 * @category errors
 */
export class DailyCapReached extends Data.TaggedError("DailyCapReached")<{
  /** The cap counted against (calls per UTC day). */
  readonly callsPerDay: number
}> {}

/**
 * A key's budget shared with other processes: see {@link SharedBudget}.
 *
 * @since 0.1.0
 * @category models
 */
export interface SharedLane {
  /**
   * Waits until this process may send one request of the key (a throttled one if `throttled`), and
   * counts it in the key's day; fails, taking no slot, when the day's calls are spent.
   */
  readonly acquire: (throttled: boolean) => Effect.Effect<SharedSlot, DailyCapReached>
  /** After a rate-limit answer: every process's calls of the key wait until `duration` from now. */
  readonly pause: (duration: Duration.DurationInput) => Effect.Effect<void>
}

/**
 * A slot a {@link SharedLane} gave. The request leaves a little after it (its fiber resumed, the request
 * built, handed over: on a busy event loop tens of milliseconds, more for one call than the next); `sent`
 * tells the lane when it did (this process's clock, ms), and a lane that keeps the key's sends starts
 * the call N after it no sooner than a second after that, as {@link Ticket} does in a process. Called a
 * few times per slot, each time with a later moment (the hand-over, then undici's write); it returns at
 * once (a lane writes it in the background).
 *
 * @since 0.1.0
 * @category models
 */
export interface SharedSlot {
  readonly sent: (atMillis: number) => void
}

/**
 * How a lane of `perSecond` calls/s counts its sends: no start sooner than `spanMillis` after the send of
 * the start `count` before it (`count` = the calls a second, at least 1; `spanMillis` = `count` seconds'
 * worth of the rate less half the safety margin: 1,020 ms at 4 %).
 *
 * @since 0.1.0
 * @category utils
 */
export const sendWindow = (perSecond: number, safetyMargin: number): { readonly count: number; readonly spanMillis: number } => {
  const count = Math.max(1, Math.floor(perSecond))
  return { count, spanMillis: (count * 1000) / (perSecond * (1 - safetyMargin / 2)) }
}

/**
 * A budget per key shared by several processes (the runners of a cluster, `durable/Cluster`): when
 * present in the context a client is built in, every attempt of the client takes a slot of its key's
 * shared lane after its slot of this process's limiter, so all the processes together stay under the
 * key's rate. `id` identifies the key (URL and fingerprint, never the key); the intervals are this
 * process's ({@link Throttle}, the margin included); `callsPerDay` the key's daily cap (`Config`'s
 * `rate.callsPerDay`), which the shared lane counts per UTC day.
 *
 * @since 0.1.0
 * @category services
 */
export class SharedBudget extends Context.Tag("explorer-etl/Throttle/SharedBudget")<SharedBudget, {
  readonly lane: (options: {
    readonly id: string
    readonly intervalMillis: number
    readonly throttledIntervalMillis: number
    readonly callsPerDay: number
    /** The key's lane's and the throttled lane's {@link sendWindow}s (for a lane that keeps the sends). */
    readonly sends?: {
      readonly key: ReturnType<typeof sendWindow>
      readonly throttled: ReturnType<typeof sendWindow>
    }
  }) => Effect.Effect<SharedLane>
}>() {}

/**
 * The id of a key in a {@link SharedBudget}: its API URL and fingerprint.
 *
 * @since 0.1.0
 * @category utils
 */
export const sharedId = (options: Pick<Options, "apiUrl" | "apiKey">): string => `${options.apiUrl} ${fingerprint(options.apiKey)}`

/**
 * Options of {@link make}.
 *
 * @since 0.1.0
 * @category models
 */
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
 *
 * @since 0.1.0
 * @category utils
 */
export const intervalMillis = (rate: number, safetyMargin: number): number => 1000 / (rate * (1 - safetyMargin))

/**
 * A short fingerprint of a key (SHA-256, 16 hex digits) for the registry: the registry never holds
 * the key itself.
 *
 * @since 0.1.0
 * @category utils
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

/**
 * How many keys have a live limiter (for tests and diagnostics).
 *
 * @since 0.1.0
 * @category constants
 */
export const activeCount: Effect.Effect<number> = Effect.sync(() => registry.entries.size)

/**
 * The starts of a lane, as a `Schedule` stepped at each start (`now`: when it happened): the next
 * start is `spacing` ms after the later of the planned start and `now − allowance` (how late a start
 * may be and still be made up by the next one). Plans are kept in fractions of a millisecond and
 * waited until the next whole one, never before. The output is the plan of the next start.
 *
 * @example
 * // 3 calls/s, 4 % margin, stepped at the starts it asks for from 0: plans 344.2, 691.4, 1038.7 ms
 * Schedule.run(Throttle.starts(Throttle.intervalMillis(3, 0.04), 3), 0, [1, 2, 3])
 *
 * @since 0.1.0
 * @category utils
 */
export const starts = (spacing: number, allowance: number): Schedule.Schedule<number, unknown> =>
  Schedule.makeWithState(Number.NEGATIVE_INFINITY, (now, _input, planned: number) => {
    const next = Math.max(planned, now - allowance) + spacing
    return Effect.succeed([next, next, ScheduleDecision.continueWith(ScheduleInterval.after(Math.ceil(next)))] as const)
  })

/** A caller waiting in a lane: the lane's loop completes it at the moment it may send. */
type Turn = Deferred.Deferred<void>

interface Waiting {
  readonly turn: Turn
  readonly priority: Priority | undefined
  /** The start this caller is given (a throttled call's start in the key's lane is the same ticket). */
  readonly ticket: Ticket
}

/**
 * The callers waiting for a lane's starts: the next one is the first of the lowest level (see
 * {@link Priority}). `signal` wakes a loop waiting for a caller.
 */
interface Lane {
  readonly waiting: Array<Waiting>
  readonly signal: Queue.Queue<void>
}

const makeLane: Effect.Effect<Lane> = Effect.map(Queue.sliding<void>(1), (signal) => ({ waiting: [], signal }))

/** The next caller of a lane, taken out of it; waits for one when none is waiting. */
const nextTurn = (lane: Lane): Effect.Effect<Waiting> =>
  Effect.suspend(function loop(): Effect.Effect<Waiting> {
    let best = -1
    let level = Number.POSITIVE_INFINITY
    for (let i = 0; i < lane.waiting.length; i++) {
      const l = (lane.waiting[i] as Waiting).priority?.level ?? 0
      if (l < level) {
        level = l
        best = i
        if (l <= 0) break
      }
    }
    if (best >= 0) return Effect.succeed(lane.waiting.splice(best, 1)[0] as Waiting)
    return Effect.zipRight(Queue.take(lane.signal), Effect.suspend(loop))
  })

/** Waits for a turn in a lane. A caller interrupted while waiting leaves it (a turn already given is skipped). */
const waitTurn = (lane: Lane, priority?: Priority, given?: Ticket): Effect.Effect<Ticket> =>
  Effect.flatMap(Deferred.make<void>(), (turn) => {
    // A new ticket each time the effect runs (an acquire effect may be run many times).
    const ticket: Ticket = given ?? { sentAt: 0 }
    const waiting: Waiting = { turn, priority, ticket }
    return Effect.sync(() => void lane.waiting.push(waiting)).pipe(
      Effect.zipRight(Queue.offer(lane.signal, undefined)),
      Effect.zipRight(Deferred.await(turn)),
      Effect.as(ticket),
      Effect.onInterrupt(() =>
        Effect.suspend(() => {
          const i = lane.waiting.indexOf(waiting)
          if (i >= 0) lane.waiting.splice(i, 1)
          return Deferred.interrupt(turn)
        })
      )
    )
  })

/**
 * A lane's grant loop: gives the start to the next caller still waiting (`grant` says whether one took
 * it), then waits on `schedule` for the next start; forever (until its scope closes).
 */
const grantLoop = (
  lane: Lane,
  grant: (waiting: Waiting) => Effect.Effect<boolean>,
  schedule: Schedule.Schedule<number, unknown>
): Effect.Effect<number> =>
  Effect.repeat(
    Effect.gen(function*() {
      // A caller that gave up leaves the start to the next one.
      let taken = false
      while (!taken) taken = yield* grant(yield* nextTurn(lane))
    }),
    schedule
  )

/**
 * The last N starts of a lane, as tickets: `wait` holds the next start until `span` ms after the send
 * of the start N before it (read again after each sleep: a send may be marked meanwhile).
 */
interface Sends {
  readonly wait: Effect.Effect<void>
  readonly record: (ticket: Ticket, now: number) => void
}

const makeSends = (perSecond: number, safetyMargin: number): Sends => {
  const { count: n, spanMillis: span } = sendWindow(perSecond, safetyMargin)
  // Filled as sends are recorded, up to `n`: a lane whose rate is set very high (1,000,000 calls/s to take
  // the limiter out of the way) would otherwise allocate and fill n places before its first call.
  const ring: Array<Ticket | undefined> = []
  let next = 0
  return {
    wait: Effect.suspend(function loop(): Effect.Effect<void> {
      const oldest = ring[next]
      if (oldest === undefined) return Effect.void
      return Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const due = oldest.sentAt + span
        return now >= due ? Effect.void : Effect.zipRight(Effect.sleep(Duration.millis(Math.ceil(due - now))), Effect.suspend(loop))
      })
    }),
    record: (ticket, now) => {
      if (ticket.sentAt < now) ticket.sentAt = now
      ring[next] = ticket
      next = (next + 1) % n
    }
  }
}

const build = (options: Options, scope: Scope.Scope): Effect.Effect<Throttle> =>
  Effect.gen(function*() {
    const keyInterval = intervalMillis(options.callsPerSecond, options.safetyMargin)
    const throttledInterval = intervalMillis(options.throttledPerSecond, options.safetyMargin)
    // How much of a late start the next one may make up: the usual lateness of a timer, and at most
    // half the safety margin of one interval; plus 1 ms, as the clock counts whole milliseconds (a
    // start up to 1 ms after a fractional plan is on time).
    const catchUp = Math.min(MAX_CATCH_UP_MILLIS, (keyInterval * options.safetyMargin) / 2) + 1
    const keyLane = yield* makeLane
    const throttledLane = yield* makeLane
    const pauseUntil = yield* Ref.make(0)

    const pauseOver: Effect.Effect<void> = Effect.gen(function*() {
      // Read again after each wait: a pause may have been extended meanwhile.
      for (let until = yield* Ref.get(pauseUntil); ; until = yield* Ref.get(pauseUntil)) {
        const now = yield* Clock.currentTimeMillis
        if (now >= until) return
        yield* Effect.sleep(Duration.millis(Math.ceil(until - now)))
      }
    })
    const keySends = makeSends(options.callsPerSecond, options.safetyMargin)
    const throttledSends = makeSends(options.throttledPerSecond, options.safetyMargin)
    /** Gives a start now and counts it among the lane's sends (a caller that gave up meanwhile does not count). */
    const give = (waiting: Waiting, sends: Sends) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.map(Deferred.succeed(waiting.turn, undefined), (given) => {
          if (given) sends.record(waiting.ticket, now)
          return given
        }))
    // The key's start is given once no pause runs and the send N starts before is a second away (its
    // schedule then plans from this late start).
    const keyGrant = (waiting: Waiting) => Effect.zipRight(Effect.zipRight(pauseOver, keySends.wait), give(waiting, keySends))
    // A throttled call's start is a start of the key's lane too: the throttled loop waits for one
    // itself (the same ticket, counted in both lanes), and its schedule plans from the moment it got it
    // (when the call is sent).
    const throttledGrant = (waiting: Waiting) =>
      Effect.gen(function*() {
        yield* throttledSends.wait
        if (yield* Deferred.isDone(waiting.turn)) return false
        yield* waitTurn(keyLane, undefined, waiting.ticket)
        return yield* give(waiting, throttledSends)
      })

    // Built inside `acquireRelease`'s acquire, which is uninterruptible: the loops must be made
    // interruptible, or closing the scope would wait for them forever.
    yield* Effect.forkIn(Effect.interruptible(grantLoop(keyLane, keyGrant, starts(keyInterval, catchUp))), scope)
    yield* Effect.forkIn(
      Effect.interruptible(grantLoop(throttledLane, throttledGrant, starts(throttledInterval, 0))),
      scope
    )
    // Once the limiter is released, a caller still waiting (or coming) is interrupted, not left hanging.
    yield* Scope.addFinalizer(
      scope,
      Effect.forEach([keyLane, throttledLane], (lane) =>
        Effect.zipRight(
          Effect.forEach(lane.waiting.splice(0), (waiting) => Deferred.interrupt(waiting.turn)),
          Queue.shutdown(lane.signal)
        ))
    )

    return {
      callsPerSecond: options.callsPerSecond,
      throttledPerSecond: options.throttledPerSecond,
      intervalMillis: keyInterval,
      throttledIntervalMillis: throttledInterval,
      // A throttled call waits in its own lane first; its start in the key's lane is then level 0.
      acquire: (throttled, priority) => throttled ? waitTurn(throttledLane, priority) : waitTurn(keyLane, priority),
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
 *
 * @since 0.1.0
 * @category constructors
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
      const throttle = yield* build(options, scope)
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
