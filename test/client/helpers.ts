/**
 * Test helpers of the client suites: an in-process fake explorer (an `HttpClient` that answers from a
 * handler and records every request with its TestClock time), a driver that runs an effect while
 * advancing the TestClock, and a Tracer/Logger that collect everything for the key-leak checks.
 */
import { HttpClient, HttpClientError, HttpClientResponse } from "@effect/platform"
import { Chunk, Clock, Duration, Effect, Exit, Fiber, Layer, List, Logger, Option, Redacted, Scope, TestClock, Tracer } from "effect"
import type { Context } from "effect"
import { NodeHttpClient } from "@effect/platform-node"
import * as Client from "../../src/ExplorerClient.js"
import * as Simulator from "../../src/simulator/index.js"
import type * as ExplorerConfig from "../../src/Config.js"
import { startServer } from "../../bench/lib.js"

/** One request the fake received (the full URL, key included, stays in test memory only). */
export interface Seen {
  readonly url: string
  readonly origin: string
  readonly path: string
  /** Query parameters (last value wins). */
  readonly params: Readonly<Record<string, string>>
  /** Query parameter names in order, duplicates kept. */
  readonly keys: ReadonlyArray<string>
  readonly headers: Readonly<Record<string, string>>
  /** TestClock (or real clock) millis when the request was sent. */
  readonly at: number
}

/** What the fake answers. */
export type Reply =
  | { readonly json: unknown; readonly status?: number }
  | {
    readonly text: string
    readonly status?: number
    readonly contentType?: string
    /** The body's bytes sent in pieces of these lengths, in turn (the last one repeated): as a connection cuts them. */
    readonly pieces?: ReadonlyArray<number> | undefined
  }
  | { readonly reset: true; readonly message?: string }
  | { readonly hang: true }

/** Answers a request; `index` is its 0-based position among every request the fake saw. */
export type Handler = (request: Seen, index: number) => Reply

/** An envelope answer. */
export const ok = (result: unknown, message = "OK"): Reply => ({ json: { status: "1", message, result } })
/** A NOTOK answer with a text. */
export const notOk = (text: string, message = "NOTOK"): Reply => ({ json: { status: "0", message, result: text } })

/** Bytes as a stream of pieces of the given lengths (the last length repeated). */
const piecesOf = (bytes: Uint8Array, lengths: ReadonlyArray<number>): ReadableStream<Uint8Array> => {
  let at = 0
  let turn = 0
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close()
      const length = Math.max(1, lengths[Math.min(turn++, lengths.length - 1)] ?? 1)
      controller.enqueue(bytes.slice(at, at + length))
      at += length
    }
  })
}

/** An in-process fake explorer: an `HttpClient` layer and the list of requests it saw. */
export const fakeHttp = (handler: Handler) => {
  const seen: Array<Seen> = []
  const client = HttpClient.make((request, url) =>
    Effect.gen(function*() {
      const at = yield* Clock.currentTimeMillis
      const entry: Seen = {
        url: url.toString(),
        origin: url.origin,
        path: url.pathname,
        params: Object.fromEntries(url.searchParams),
        keys: [...url.searchParams.keys()],
        headers: { ...request.headers },
        at
      }
      seen.push(entry)
      const reply = handler(entry, seen.length - 1)
      if ("reset" in reply) {
        const cause = Object.assign(new Error(reply.message ?? "socket hang up"), { code: "ECONNRESET" })
        return yield* Effect.fail(new HttpClientError.RequestError({ request, reason: "Transport", cause }))
      }
      if ("hang" in reply) return yield* Effect.never
      const body = "json" in reply ? JSON.stringify(reply.json) : reply.text
      const contentType = "json" in reply ? "application/json" : reply.contentType ?? "text/plain"
      const pieces = "pieces" in reply ? reply.pieces : undefined
      return HttpClientResponse.fromWeb(
        request,
        new Response(pieces === undefined ? body : piecesOf(new TextEncoder().encode(body), pieces), {
          status: reply.status ?? 200,
          headers: { "content-type": contentType }
        })
      )
    })
  )
  return { layer: Layer.succeed(HttpClient.HttpClient, client), seen }
}

let keyCounter = 0
/** A fresh made-up API key (each test its own, so limiters never leak between tests). */
export const freshKey = (label = "TESTKEY"): Redacted.Redacted<string> =>
  Redacted.make(`${label}${Date.now().toString(36).toUpperCase()}X${(keyCounter++).toString(36).toUpperCase()}`)

/** Builds a client on the fake (scoped: the key's limiter lives until the scope closes). */
export const clientOn = (
  fake: { readonly layer: Layer.Layer<HttpClient.HttpClient> },
  options: ExplorerConfig.Options = {}
): Effect.Effect<Client.ExplorerClient.Service, never, Scope.Scope> =>
  Client.make({ apiKey: freshKey(), baseUrl: "https://explorer.test", ...options }).pipe(Effect.provide(fake.layer))

/**
 * Runs an effect under `it.effect`, moving the TestClock straight to the next scheduled wake-up
 * whenever the effect waits (limiter slots, backoffs, pauses, timeouts), until it completes. Only
 * for effects whose I/O is in-process (the fake explorer), so that virtual time is the only wait.
 */
export const drive = <A, E, R>(effect: Effect.Effect<A, E, R>, maxSteps = 200_000): Effect.Effect<Exit.Exit<A, E>, never, R> =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(effect)
    // Since when (real time) the effect has waited with no wake-up scheduled: in-process I/O (a body
    // streamed in pieces) needs turns of Node's event loop, fewer on a quiet machine than a busy one.
    let idleSince: number | undefined
    for (let i = 0; i < maxSteps; i++) {
      const done = yield* Fiber.poll(fiber)
      if (Option.isSome(done)) return done.value
      const sleeps = yield* TestClock.sleeps()
      const next = Chunk.reduce(sleeps, Number.POSITIVE_INFINITY, (min, t) => Math.min(min, t))
      if (Number.isFinite(next)) {
        idleSince = undefined
        yield* TestClock.setTime(Math.max(next, yield* Clock.currentTimeMillis))
      } else {
        idleSince ??= Date.now()
        if (Date.now() - idleSince > 10_000) return yield* Effect.dieMessage("drive: the effect waits for nothing the clock can advance")
        yield* Effect.yieldNow()
        // A turn of the event loop, so that I/O callbacks run.
        yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
      }
    }
    return yield* Effect.dieMessage("drive: the effect did not finish")
  })

/** {@link drive}, then the effect's own result (success or failure). */
export const driven = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(drive(effect), (exit) => exit)

/** A span as the collecting tracer saw it. */
export interface SeenSpan {
  readonly name: string
  readonly attributes: Map<string, unknown>
  readonly events: Array<readonly [string, Record<string, unknown>]>
  exit?: Exit.Exit<unknown, unknown>
}

/** A Tracer that keeps every span (name, attributes, events, exit). */
export const collectingTracer = () => {
  const spans: Array<SeenSpan> = []
  let ids = 0
  const tracer = Tracer.make({
    span: (name, parent, context, links, startTime, kind) => {
      const seen: SeenSpan = { name, attributes: new Map(), events: [] }
      spans.push(seen)
      const span: Tracer.Span = {
        _tag: "Span",
        name,
        spanId: `span${ids++}`,
        traceId: parent._tag === "Some" ? parent.value.traceId : `trace${ids}`,
        parent,
        context: context as Context.Context<never>,
        status: { _tag: "Started", startTime },
        attributes: seen.attributes,
        links: [...links],
        sampled: true,
        kind,
        end: (_endTime, exit) => {
          seen.exit = exit
        },
        attribute: (key, value) => {
          seen.attributes.set(key, value)
        },
        event: (eventName, _startTime, attributes) => {
          seen.events.push([eventName, attributes ?? {}])
        },
        addLinks: () => {}
      }
      return span
    },
    context: (f) => f()
  })
  return { tracer, spans }
}

/** A Logger that keeps every line (message, annotations, spans, cause) as text. */
export const collectingLogger = () => {
  const lines: Array<string> = []
  const logger = Logger.make((options) => {
    const annotations = Object.fromEntries(options.annotations)
    lines.push(
      [
        options.logLevel.label,
        typeof options.message === "string" ? options.message : JSON.stringify(options.message, replacer),
        JSON.stringify(annotations, replacer),
        List.toArray(options.spans).map((s) => s.label).join(","),
        options.cause._tag === "Empty" ? "" : JSON.stringify(options.cause, replacer)
      ].join(" | ")
    )
  })
  return { logger, lines }
}

/** JSON.stringify replacer that keeps bigints readable. */
export const replacer = (_key: string, value: unknown): unknown => (typeof value === "bigint" ? `${value}n` : value)

/** Max number of timestamps inside any half-open window [t, t + width). */
export const maxInWindow = (times: ReadonlyArray<number>, width: number): number => {
  const sorted = [...times].sort((a, b) => a - b)
  let max = 0
  let lo = 0
  for (let hi = 0; hi < sorted.length; hi++) {
    while ((sorted[hi] ?? 0) - (sorted[lo] ?? 0) >= width) lo++
    max = Math.max(max, hi - lo + 1)
  }
  return max
}

/** Milliseconds of a duration input. */
export const millis = (d: Duration.DurationInput): number => Duration.toMillis(Duration.decode(d))

/** A suite's simulator and a Pro Plus client pointed at it (over undici), in one layer. */
export const proplusOnSimulator = <E>(simulator: Layer.Layer<Simulator.Simulator, E>) =>
  Layer.unwrapEffect(
    Effect.map(Simulator.Simulator, (sim) =>
      Client.layer({
        apiKey: Redacted.make(sim.demoKeys.proplus),
        baseUrl: sim.baseUrl,
        plan: "proplus",
        retry: { baseDelay: "20 millis" }
      }))
  ).pipe(Layer.provideMerge(simulator), Layer.provideMerge(NodeHttpClient.layerUndici))

/**
 * The simulator in a process of its own (bench/server.ts, the same options, so the same data set as an
 * in-process one of the same seed), for the tests that judge the client's spacing by the simulator's
 * rate windows. The windows count a request when Node's server hands it over: in the test's own process
 * that waits for its event loop, which the client's decoding and a loaded machine's other work block
 * now and then, so arrivals the client sent apart are stamped late and together (a refusal the client
 * did not cause). In a process that does nothing else, a stamp is late only when the kernel hands the
 * socket over late.
 */
export const simulatorProcess = (options: Simulator.SimulatorOptions) =>
  Effect.map(
    Effect.acquireRelease(Effect.promise(() => startServer({ ...options })), (server) => Effect.promise(() => server.stop())),
    (server) => ({
      baseUrl: server.baseUrl,
      demoKeys: server.demoKeys,
      stats: Effect.promise(() => server.command<Simulator.SimulatorStats>({ cmd: "stats" }))
    })
  )
