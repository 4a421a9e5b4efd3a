/**
 * The transport of the explorer client: the HTTP clients its requests go through (built as
 * `HttpClient` transforms: the base URL and the key by `mapRequest`, no trace headers, no platform
 * span, then the user's `transformClient`), one attempt of a call (the key's limiter, the timeout, the
 * answer classified), the retry policy, the download links, and the scrubbing that keeps the key out
 * of every error. Nothing of a request is ever copied into an error: its URL holds the key.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import { flow, identity } from "effect/Function"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Intervals from "effect/ScheduleIntervals"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as CallCount from "../CallCount.js"
import type * as Chain from "../Chain.js"
import * as ExplorerConfig from "../Config.js"
import * as Errors from "../ExplorerError.js"
import type { CallOptions, Stats } from "../ExplorerClient.js"
import * as Plan from "../Plan.js"
import * as Throttle from "../Throttle.js"
import * as Classify from "./classify.js"
import * as ContentEncoding from "./contentEncoding.js"
import { textPieces } from "./textPieces.js"
import * as WireTimes from "./wireTimes.js"
import type * as Params from "../Params.js"

/** Global counters of every client in the process (re-exported as `ExplorerClient.metrics`). */
export const metrics = {
  requests: Metric.counter("explorer_client_requests_total", {
    description: "HTTP requests sent to the explorer API (retries included)",
    incremental: true
  }),
  retries: Metric.counter("explorer_client_retries_total", {
    description: "Attempts after the first one of a call",
    incremental: true
  }),
  rateLimited: Metric.counter("explorer_client_rate_limited_total", {
    description: "Rate-limit answers received from the explorer API",
    incremental: true
  }),
  workerPages: Metric.counter("explorer_client_worker_pages_total", {
    description: "List answers made into a file's lines by a decoding worker thread",
    incremental: true
  }),
  workerReturns: Metric.counter("explorer_client_worker_returns_total", {
    description: "List answers a decoding worker gave back to be read by the main thread (not a plain list, torn, refused)",
    incremental: true
  }),
  slicedAnswers: Metric.counter("explorer_client_sliced_answers_total", {
    description: "List answers read a slice at a time as their body came, not as one text (a list of the usual shape)",
    incremental: true
  })
}

/** A start's ticket that tells a shared lane's slot each time its send moves. */
const toldTicket = (ticket: Throttle.Ticket, slot: Throttle.SharedSlot): Throttle.Ticket => ({
  get sentAt() {
    return ticket.sentAt
  },
  set sentAt(at: number) {
    ticket.sentAt = at
    slot.sent(at)
  }
})

/** One call as it goes on the wire (checked already): `chainid`, `module`, `action`, then `wire`. */
export interface Call {
  readonly chainId: Chain.ChainId
  readonly module: string
  readonly action: string
  /** The named operation, if it is one (its plan rules and lane); `undefined` for other actions. */
  readonly operation: Plan.Operation | undefined
  readonly wire: Params.Wire
}

/** What every error of a call carries (never the key, never the URL). */
export const contextOf = (call: Pick<Call, "chainId" | "module" | "action">): Classify.CallContext => ({
  chainId: call.chainId,
  module: call.module,
  action: call.action
})

/** A redactor: removes the key (raw and URL-encoded) and the query of any URL from a text. */
export const makeScrub = (apiKey: Option.Option<Redacted.Redacted<string>>) => (text: string): string => {
  let out = text.replace(/(https?:\/\/[^\s"'<>?#]*)[?#][^\s"'<>]*/gi, "$1")
  if (Option.isSome(apiKey)) {
    const key = Redacted.value(apiKey.value)
    if (key !== "") {
      out = out.split(key).join("<redacted>")
      const encoded = encodeURIComponent(key)
      if (encoded !== key) out = out.split(encoded).join("<redacted>")
    }
  }
  return out
}

/** A `code` ("ECONNRESET", "UND_ERR_SOCKET"…) and the innermost message of an error chain. */
const describeCause = (cause: unknown): { code?: string; message?: string } => {
  let current: unknown = cause
  let code: string | undefined
  let message: string | undefined
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const record = current as { code?: unknown; message?: unknown; cause?: unknown }
    if (typeof record.code === "string" && /^[A-Z0-9_]+$/.test(record.code)) code = record.code
    if (typeof record.message === "string" && record.message !== "") message = record.message
    current = record.cause
  }
  return { ...(code !== undefined ? { code } : {}), ...(message !== undefined ? { message } : {}) }
}

/**
 * An `HttpClientError` as a TransportError. Copies nothing of the request (its URL holds the key):
 * only a reason, a code and a scrubbed message of the cause.
 */
export const transportError = (
  call: Call,
  error: HttpClientError.HttpClientError,
  scrub: (text: string) => string
): Errors.TransportError => {
  const { code, message } = describeCause(error.cause)
  const what = error._tag === "RequestError"
    ? error.reason === "Transport" ? "network error" : `could not send the request (${error.reason})`
    : `could not read the answer (${error.reason})`
  const extra = [code, message !== undefined ? Classify.clip(scrub(message)) : undefined].filter((s) => s !== undefined)
  return new Errors.TransportError({
    ...contextOf(call),
    detail: extra.length > 0 ? `${what}: ${extra.join(" ")}` : what
  })
}

/**
 * Reads a body's records slice by slice from consecutive pieces of its text (a generator that yields
 * between two slices), or gives undefined to have the answer read whole.
 */
export type SliceReader<S> = (pieces: Iterable<string>) => Generator<void, S | undefined, void>

/**
 * Reads a list answer's whole body elsewhere (a decoding worker): what it made of it, or the body back
 * (`Unread`: the slice reader, or the whole answer, then reads it here). May fail (a worker lost).
 */
export type BodyReader<S> = (
  body: Uint8Array,
  ctx: Classify.CallContext
) => Effect.Effect<{ readonly _tag: "Read"; readonly value: S } | { readonly _tag: "Unread"; readonly body: Uint8Array }, Errors.ExplorerError>

/**
 * A body's chunks copied into one buffer of their own, which a reader elsewhere may take (a chunk may
 * be a view into a buffer the HTTP client still uses).
 */
const joined = (chunks: ReadonlyArray<Uint8Array>): Uint8Array => {
  let length = 0
  for (const chunk of chunks) length += chunk.length
  const out = new Uint8Array(length)
  let at = 0
  for (const chunk of chunks) {
    out.set(chunk, at)
    at += chunk.length
  }
  return out
}

/** The whole text of a body's bytes, as {@link textPieces} decodes them. */
const textOf = (chunks: ReadonlyArray<Uint8Array>): string => {
  let text = ""
  for (const piece of textPieces(chunks)) text += piece
  return text
}

/**
 * How long a slice reader may hold the event loop before it gives it back, in ms. A page takes 10–30
 * ms to read (a 10,000-row one, 100–200 ms), and a timer due meanwhile waits for it: the key's limiter
 * then starts its next call late, and a late start is made up by at most 2 ms (`Throttle`). Given back
 * every 2 ms, a start is at most a few ms late.
 */
const SLICE_TURN_MILLIS = 2

/**
 * Waits for the event loop's next turn: its timers phase runs before the turn after it, so a timer
 * due fires meanwhile (a microtask, as `Effect.yieldNow` may be, would not let it). No clamp to 1 ms,
 * as `setTimeout` has: with nothing else to do, the reader goes on at once.
 */
const nextTurn: Effect.Effect<void> = Effect.async<void>((resume) => {
  if (typeof setImmediate !== "function") {
    const timer = setTimeout(() => resume(Effect.void), 0)
    return Effect.sync(() => clearTimeout(timer))
  }
  const immediate = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(immediate))
})

/** Runs a slice reader through, giving the event loop back every {@link SLICE_TURN_MILLIS}. */
const readSliced = <S>(steps: Generator<void, S | undefined, void>): Effect.Effect<S | undefined> =>
  Effect.gen(function*() {
    let since = performance.now()
    for (let step = steps.next(); ; step = steps.next()) {
      if (step.done === true) return step.value
      if (performance.now() - since >= SLICE_TURN_MILLIS) {
        yield* nextTurn
        since = performance.now()
      }
    }
  })

/** What a client sends through: its counters, its scrubber, its calls and its downloads. */
export interface Transport {
  /** Removes the key and the query of any URL from a text copied into an error. */
  readonly scrub: (text: string) => string
  /** Counters of this client. */
  readonly stats: Effect.Effect<Stats>
  /**
   * Sends a call with the retry policy; every attempt waits for the key's slot and is counted.
   * `slices`: reads a list answer's records as the body is read (fileRecordsMapped) when it can;
   * `offload`, given with `slices`: reads it elsewhere first (a decoding worker).
   */
  readonly send: <S = never>(
    call: Call,
    options: CallOptions | undefined,
    slices?: SliceReader<S>,
    offload?: BodyReader<S>
  ) => Effect.Effect<Classify.Answer | S, Errors.ExplorerError>
  /** Follows a download link (exportaddresstags, getlabelmasterlist) and gives the file's text. */
  readonly download: (call: Call, link: string, options: CallOptions | undefined) => Effect.Effect<string, Errors.ExplorerError>
}

/**
 * Builds the transport of a client. Needs an `HttpClient` (the library never picks the platform) and
 * a `Scope` (the key's limiter lives as long as the client).
 */
export const make = (
  config: ExplorerConfig.ExplorerConfig
): Effect.Effect<Transport, never, HttpClient.HttpClient | Scope.Scope> =>
  Effect.gen(function*() {
    // No trace headers to a third-party API, and no platform span: it would record url.full and
    // url.query — with the API key in them. Our own spans carry chain/module/action only. Applied
    // first: the innermost setting wins, so a `transformClient` cannot turn them back on.
    const platform = (yield* HttpClient.HttpClient).pipe(
      HttpClient.withTracerPropagation(false),
      HttpClient.withTracerDisabledWhen(() => true)
    )
    const transform = config.transformClient ?? identity
    // The key is unwrapped only here, as each request is built; `apikey` comes last, as it always has.
    const withKey = Option.match(config.apiKey, {
      onNone: () => identity<HttpClientRequest.HttpClientRequest>,
      onSome: (key) => (request: HttpClientRequest.HttpClientRequest) =>
        HttpClientRequest.setUrlParam(request, "apikey", Redacted.value(key))
    })
    const api = transform(platform.pipe(HttpClient.mapRequest(flow(HttpClientRequest.prependUrl(config.baseUrl), withKey))))
    // Download links are absolute and may point elsewhere: no base URL, and the key only where it belongs.
    const files = transform(platform)

    const local = yield* Throttle.make({
      apiUrl: config.apiUrl,
      apiKey: config.apiKey,
      callsPerSecond: config.rate.callsPerSecond,
      throttledPerSecond: config.rate.throttledPerSecond,
      safetyMargin: config.rate.safetyMargin
    })
    // A budget shared with other processes, when the context has one (a cluster's runners), else when
    // the config asks for the machine's (`machineBudget`, its SQLite driver loaded only then): each
    // attempt takes this process's slot, then the key's shared one, and sends at the latter.
    // The shared lane also counts the key's calls of the UTC day: past `rate.callsPerDay` it refuses
    // the call, which then fails as the server's "Max daily rate limit reached" would, unsent.
    const inContext = yield* Effect.serviceOption(Throttle.SharedBudget)
    const machine = config.machineBudget
    const shared = Option.isSome(inContext) || machine === undefined ? inContext : Option.fromNullable(
      yield* Effect.flatMap(
        Effect.promise(() => import("./machineBudget.js")),
        (m) => m.make({ directory: machine.directory, keyFingerprint: Throttle.fingerprint(config.apiKey) })
      )
    )
    const countedBy = Option.isSome(inContext) ? "the cluster" : "this machine's processes"
    const lane = Option.isNone(shared) ? undefined : yield* shared.value.lane({
      id: Throttle.sharedId(config),
      intervalMillis: local.intervalMillis,
      throttledIntervalMillis: local.throttledIntervalMillis,
      callsPerDay: config.rate.callsPerDay,
      sends: {
        key: Throttle.sendWindow(config.rate.callsPerSecond, config.rate.safetyMargin),
        throttled: Throttle.sendWindow(config.rate.throttledPerSecond, config.rate.safetyMargin)
      }
    })
    /** This process's start, and the shared lane's slot (to be told when the request left). */
    const acquire = (
      call: Call,
      throttled: boolean,
      priority?: Throttle.Priority
    ): Effect.Effect<readonly [Throttle.Ticket, Throttle.SharedSlot | undefined], Errors.RateLimitError> =>
      lane === undefined ? Effect.map(local.acquire(throttled, priority), (ticket) => [ticket, undefined] as const) : Effect.zip(
        local.acquire(throttled, priority),
        Effect.catchTag(lane.acquire(throttled), "DailyCapReached", (e) =>
          Effect.fail(
            new Errors.RateLimitError({
              ...contextOf(call),
              scope: "day",
              detail: `Max daily rate limit reached (${e.callsPerDay.toLocaleString("en-US")} calls today, UTC, ` +
                `counted by ${countedBy} for this key; not sent)`
            })
          ))
      )
    const pause = (duration: Duration.DurationInput): Effect.Effect<void> =>
      lane === undefined ? local.pause(duration) : Effect.zipRight(local.pause(duration), lane.pause(duration))
    const counters = yield* Ref.make<Stats>({ requests: 0, retries: 0, rateLimited: 0 })
    const scrub = makeScrub(config.apiKey)
    const apiOrigin = new URL(config.apiUrl).origin
    const apiPath = new URL(config.apiUrl).pathname

    /** Sends a request and reads its whole body with `read`, within the request timeout (which starts after the slot). */
    const readBody = <A>(
      client: HttpClient.HttpClient,
      request: HttpClientRequest.HttpClientRequest,
      call: Call,
      what: string,
      read: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<A, HttpClientError.ResponseError>
    ) =>
      client.execute(request).pipe(
        Effect.flatMap(read),
        Effect.mapError((error) => transportError(call, error, scrub)),
        Effect.timeoutFail({
          duration: config.requestTimeout,
          onTimeout: () =>
            new Errors.TransportError({ ...contextOf(call), detail: `${what}no answer within ${Duration.format(config.requestTimeout)}` })
        })
      )

    /** A body as text (decoded if it came compressed). */
    const readText = (client: HttpClient.HttpClient, request: HttpClientRequest.HttpClientRequest, call: Call, what: string) =>
      readBody(client, request, call, what, (response) =>
        Effect.map(Stream.runCollect(ContentEncoding.plainBody(response)), (chunks): Classify.RawResponse => ({
          status: response.status,
          contentType: response.headers["content-type"],
          body: textOf(Chunk.toReadonlyArray(chunks))
        })))

    /**
     * A body as the bytes that came, decoded as they come if compressed (for a slice reader; made text
     * only if the answer is read whole).
     */
    const readBytes = (client: HttpClient.HttpClient, request: HttpClientRequest.HttpClientRequest, call: Call) =>
      readBody(client, request, call, "", (response) =>
        Effect.map(Stream.runCollect(ContentEncoding.plainBody(response)), (chunks) => ({
          status: response.status,
          contentType: response.headers["content-type"],
          chunks: Chunk.toReadonlyArray(chunks)
        })))

    /**
     * One attempt: wait for the key's slot, send, read, classify. The limiter wraps the attempt, not the
     * client (`transformResponse`): the timeout must start once the slot is granted and cover the whole
     * body, which is read after a response transform has returned.
     */
    const sendOnce = <S>(
      call: Call,
      throttled: boolean,
      attempt: number,
      slices: SliceReader<S> | undefined,
      offload: BodyReader<S> | undefined,
      onAnswer: ((millis: number) => void) | undefined,
      priority: Throttle.Priority | undefined
    ) =>
      Effect.gen(function*() {
        const [ticket, sharedSlot] = yield* acquire(call, throttled, priority)
        const slot = yield* Clock.currentTimeMillis
        // A submission (verifysourcecode, a source of many kilobytes) goes as a POST form; the service reads
        // `chainid` from the query string only, so it stays there.
        const request = call.operation?.post === true
          ? HttpClientRequest.post(ExplorerConfig.API_PATH).pipe(
            HttpClientRequest.setUrlParams({ chainid: String(call.chainId) }),
            HttpClientRequest.bodyUrlParams({ module: call.module, action: call.action, ...call.wire }),
            HttpClientRequest.acceptJson,
            HttpClientRequest.setHeader("accept-encoding", ContentEncoding.ACCEPT_ENCODING)
          )
          : HttpClientRequest.get(ExplorerConfig.API_PATH).pipe(
            HttpClientRequest.setUrlParams({ chainid: String(call.chainId), module: call.module, action: call.action, ...call.wire }),
            HttpClientRequest.acceptJson,
            HttpClientRequest.setHeader("accept-encoding", ContentEncoding.ACCEPT_ENCODING)
          )
        // Counted and sent as one step: once counted, the request goes and is read to its end (within
        // the timeout) in a fiber of its own, even if this attempt is interrupted (a page asked ahead
        // and then given up): otherwise an interruption between the count and the request reaching the
        // wire would count a call the server never received.
        const sending = yield* Effect.uninterruptible(Effect.gen(function*() {
          yield* Ref.update(counters, (s) => ({ ...s, requests: s.requests + 1 }))
          yield* CallCount.record(attempt > 1)
          yield* Metric.increment(metrics.requests)
          const read: Effect.Effect<
            Classify.RawResponse | Effect.Effect.Success<ReturnType<typeof readBytes>>,
            Errors.TransportError
          > = slices === undefined ? readText(api, request, call, "") : readBytes(api, request, call)
          // The key's lanes count the send from here, and from when undici writes it if it says so
          // (a GET: its query names it), after any connection set-up.
          // A shared lane learns each move of the send too.
          const leaving = sharedSlot === undefined ? ticket : toldTicket(ticket, sharedSlot)
          const send = request.method === "GET" ? WireTimes.tracked(request.urlParams, leaving, read) : read
          return yield* Effect.forkDaemon(Effect.interruptible(Effect.zipRight(Throttle.sent(leaving), send)))
        }))
        const got = yield* Fiber.join(sending)
        if (onAnswer !== undefined) onAnswer((yield* Clock.currentTimeMillis) - slot)
        yield* Effect.annotateCurrentSpan("http.response.status_code", got.status)
        let chunks = "chunks" in got ? got.chunks : undefined
        if (chunks !== undefined && slices !== undefined && got.status >= 200 && got.status < 300) {
          if (offload !== undefined) {
            const read = yield* offload(joined(chunks), contextOf(call))
            if (read._tag === "Read") return read.value
            chunks = [read.body]
          }
          const sliced = yield* readSliced(slices(textPieces(chunks)))
          if (sliced !== undefined) {
            yield* Metric.increment(metrics.slicedAnswers)
            return sliced
          }
        }
        const raw: Classify.RawResponse = "chunks" in got
          ? { status: got.status, contentType: got.contentType, body: textOf(chunks ?? got.chunks) }
          : got
        const classified = Classify.classifyResponse(
          {
            ...contextOf(call),
            plan: config.plan,
            requiredPlan: call.operation !== undefined ? Plan.requiredPlan(call.operation, call.wire) : undefined
          },
          raw,
          { scrub }
        )
        if (Either.isLeft(classified) && classified.left._tag === "RateLimitError") {
          yield* Ref.update(counters, (s) => ({ ...s, rateLimited: s.rateLimited + 1 }))
          yield* Metric.increment(metrics.rateLimited)
          // Slow every call of the key down for a while; a daily limit is not waited out.
          if (classified.left.scope !== "day") yield* pause(config.rate.rateLimitPause)
        }
        return yield* classified
      }).pipe(
        Effect.withSpan("ExplorerClient.http", {
          kind: "client",
          attributes: {
            "http.request.method": call.operation?.post === true ? "POST" : "GET",
            "server.address": apiOrigin,
            "url.path": apiPath,
            "explorer.chain_id": call.chainId,
            "explorer.module": call.module,
            "explorer.action": call.action,
            "explorer.attempt": attempt
          }
        })
      )

    const retrySchedule = (times: number) =>
      Schedule.exponential(config.retry.baseDelay, 2).pipe(
        Schedule.either(Schedule.spaced(config.retry.maxDelay)),
        Schedule.jittered,
        Schedule.intersect(Schedule.recurs(times))
      )

    /**
     * The retry schedule of one call, telling `config.retry.onRetry` of each retry it decides (the
     * failure is one `retryable` accepts) with the wait it chose.
     */
    const announced = (call: Call, times: number, retryable: (error: Errors.ExplorerError) => boolean) => {
      const onRetry = config.retry.onRetry
      const schedule = retrySchedule(times)
      if (onRetry === undefined) return schedule
      let last: Errors.ExplorerError | undefined
      let retry = 0
      return schedule.pipe(
        Schedule.tapInput((error: Errors.ExplorerError) => Effect.sync(() => void (last = error))),
        Schedule.onDecision((_, decision) =>
          Effect.map(Clock.currentTimeMillis, (now) => {
            if (decision._tag !== "Continue" || last === undefined || !retryable(last)) return
            retry += 1
            onRetry({
              chainId: call.chainId,
              module: call.module,
              action: call.action,
              retry,
              of: times,
              delay: Duration.millis(Math.max(0, Intervals.start(decision.intervals) - now)),
              error: { _tag: last._tag, detail: last.detail }
            })
          })
        )
      )
    }

    const send = <S = never>(
      call: Call,
      options: CallOptions | undefined,
      slices?: SliceReader<S>,
      offload?: BodyReader<S>
    ): Effect.Effect<Classify.Answer | S, Errors.ExplorerError> =>
      Effect.gen(function*() {
        const throttled = call.operation?.throttled ?? false
        const retryQueryTimeout = options?.retryQueryTimeout ?? config.retry.queryTimeout
        const times = options?.retries ?? config.retry.times
        const retryable = (error: Errors.ExplorerError) =>
          Errors.isTransient(error) && (error._tag !== "QueryTimeoutError" || retryQueryTimeout)
        const attempts = yield* Ref.make(0)
        const attempt = Effect.gen(function*() {
          const n = yield* Ref.getAndUpdate(attempts, (i) => i + 1)
          if (n > 0) {
            yield* Ref.update(counters, (s) => ({ ...s, retries: s.retries + 1 }))
            yield* Metric.increment(metrics.retries)
          }
          return yield* sendOnce(call, throttled, n + 1, slices, offload, options?.onAnswer, options?.priority)
        })
        return yield* attempt.pipe(
          Effect.tapError((error) =>
            Errors.isTransient(error)
              ? Effect.logDebug(`explorer-etl: ${error._tag} on ${call.module}/${call.action} (chain ${call.chainId})`).pipe(
                Effect.annotateLogs({ detail: error.detail })
              )
              : Effect.void
          ),
          Effect.retry({
            schedule: announced(call, Math.max(0, times), retryable),
            while: retryable
          })
        )
      })

    const download = (call: Call, link: string, options: CallOptions | undefined) =>
      Effect.gen(function*() {
        const ctx = contextOf(call)
        let url: URL
        try {
          url = new URL(link.trim())
        } catch {
          return yield* new Errors.DecodeError({ ...ctx, transient: false, detail: "the answer is neither records nor a download link" })
        }
        if (url.protocol !== "https:" && url.protocol !== "http:") {
          return yield* new Errors.DecodeError({ ...ctx, transient: false, detail: "the download link is not an http(s) URL" })
        }
        // The key goes only to the API's own origin; a pre-signed link elsewhere needs none.
        const sameOrigin = url.origin === apiOrigin
        const request = HttpClientRequest.get(link.trim()).pipe(sameOrigin && !url.searchParams.has("apikey") ? withKey : identity)
        const once = Effect.gen(function*() {
          if (sameOrigin) yield* acquire(call, false)
          const raw = yield* readText(files, request, call, "download: ")
          if (raw.status < 200 || raw.status >= 300) {
            return yield* new Errors.TransportError({ ...ctx, status: raw.status, detail: `download failed: HTTP status ${raw.status}` })
          }
          return raw.body
        }).pipe(Effect.withSpan("ExplorerClient.download", { kind: "client", attributes: { "explorer.action": call.action } }))
        return yield* once.pipe(
          Effect.retry({
            schedule: announced(call, Math.max(0, options?.retries ?? config.retry.times), Errors.isTransient),
            while: Errors.isTransient
          })
        )
      })

    return { scrub, stats: Ref.get(counters), send, download }
  })
