/**
 * Counts every request a client sends for a piece of work — each attempt, retries included, as the
 * server counts them — wherever the work calls the client from: a library stream, a custom
 * `Sources.fromStream`, an ABI fetched before an export. A counter is attached to an effect with
 * {@link tracking}; every request sent by that effect (and the fibers it starts) adds to it, and to
 * every enclosing counter (an export inside a pipeline run counts in both).
 *
 * @example
 * const counter = CallCount.make()
 * yield* Stream.runDrain(Streams.logs({ address })).pipe(CallCount.tracking(counter))
 * console.log(counter.requests, counter.retries)
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import { dual } from "effect/Function"
import { globalValue } from "effect/GlobalValue"

/**
 * The requests sent for a piece of work so far: `requests` counts every attempt, `retries` those of
 * them that repeated a call after a transient failure. Live: read it while the work runs.
 *
 * @since 0.1.0
 * @category models
 */
export interface Counter {
  readonly requests: number
  readonly retries: number
}

interface MutableCounter {
  requests: number
  retries: number
}

/**
 * A counter at zero, or starting from `from` (the calls an interrupted export made before it was
 * resumed).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (from?: { readonly requests?: number | undefined; readonly retries?: number | undefined }): Counter => ({ requests: from?.requests ?? 0, retries: from?.retries ?? 0 })

const current = globalValue(
  Symbol.for("explorer-etl/CallCount/current"),
  () => FiberRef.unsafeMake<ReadonlyArray<MutableCounter>>([])
)

/**
 * Runs `self` with `counter` counting its requests (as well as the counters already counting).
 *
 * @since 0.1.0
 * @category combinators
 */
export const tracking: {
  (counter: Counter): <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  <A, E, R>(self: Effect.Effect<A, E, R>, counter: Counter): Effect.Effect<A, E, R>
} = dual(
  2,
  <A, E, R>(self: Effect.Effect<A, E, R>, counter: Counter): Effect.Effect<A, E, R> =>
    // The counter is the caller's object: `record` adds to it in place (it is read live).
    Effect.locallyWith(self, current, (all) => [...all, counter as MutableCounter])
)

/**
 * Adds counts to a counter (a resumed export's earlier requests, read from its checkpoint).
 *
 * @since 0.1.0
 * @category counting
 */
export const add = (counter: Counter, counts: { readonly requests?: number | undefined; readonly retries?: number | undefined }): Effect.Effect<void> =>
  Effect.sync(() => {
    const c = counter as MutableCounter
    c.requests += counts.requests ?? 0
    c.retries += counts.retries ?? 0
  })

/**
 * Adds one request (a retry if `retry`) to every counter of the current fiber. Called by the client
 * for each attempt it sends.
 *
 * @since 0.1.0
 * @category counting
 */
export const record = (retry: boolean): Effect.Effect<void> =>
  Effect.map(FiberRef.get(current), (all) => {
    for (const counter of all) {
      counter.requests += 1
      if (retry) counter.retries += 1
    }
  })

/**
 * The innermost counter of the current fiber, if any (what an export checkpoints as its calls so far).
 *
 * @since 0.1.0
 * @category getters
 */
export const innermost: Effect.Effect<Counter | undefined> = Effect.map(FiberRef.get(current), (all) => all[all.length - 1])
