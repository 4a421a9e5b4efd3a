/**
 * The HTTP side of the simulator: an @effect/platform router on NodeHttpServer, serving `/v2/api`
 * (GET, and POST with a form body; `chainid` is read from the query string only), the download files,
 * `/v2/chainlist`, and the V1 `/api` path (answered with the deprecation text). Handlers run on the
 * real clock whatever clock the caller's runtime has (tests build the layer under TestClock); the
 * service counts time by `options.now` (default `Date.now`).
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { ServeError } from "@effect/platform/HttpServerError"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { createServer, type IncomingMessage } from "node:http"
import * as zlib from "node:zlib"
import * as Chain from "../Chain.js"
import { Core, demoKeys, type HttpAnswer, type OracleQuery, type SimulatorStats, type WireRecord } from "./core.js"
import type { DatasetDescription } from "./dataset.js"
import type { FaultOptions, SimulatorOptions } from "./options.js"
import { SimulatorOracleError } from "./oracleError.js"
import { type PlanName, plans } from "./rules.js"
import * as Texts from "./texts.js"

/**
 * The running simulator, as the `Simulator` service exposes it.
 *
 * @since 0.1.0
 * @category models
 */
export interface SimulatorService {
  /** Base URL, e.g. "http://127.0.0.1:40123" (the API is at `${baseUrl}/v2/api`). */
  readonly baseUrl: string
  /** The documented demo keys, one per plan. */
  readonly demoKeys: Readonly<Record<PlanName, string>>
  /** Well-known entities of the data set. */
  readonly dataset: DatasetDescription
  /** Counters since start or the last `resetStats`. */
  readonly stats: Effect.Effect<SimulatorStats>
  readonly resetStats: Effect.Effect<void>
  /** Replace the fault injection (per-query occurrence counts start again, so a replay is exact). */
  readonly setFaults: (faults: FaultOptions) => Effect.Effect<void>
  /**
   * Every wire record the query matches, sorted as `sort` asks (default asc), ignoring page, offset
   * and the result window: the exact content of a perfect export. Object results (fundedby) give one
   * record; exportaddresstags / getlabelmasterlist give the records of the file behind the URL. Fails
   * with the server's NOTOK text for a query the server would refuse (plan and key rules aside), or for
   * a single-value operation (balance, ethsupply, eth_gasPrice…).
   */
  readonly oracle: (query: OracleQuery) => Effect.Effect<ReadonlyArray<WireRecord>, SimulatorOracleError>
  /** How many records `oracle` would return, without building them (for million-row sets). */
  readonly oracleCount: (query: OracleQuery) => Effect.Effect<number, SimulatorOracleError>
}

const liveClock = Clock.make()

/** The CORS headers of every API answer (browsers call the real service directly). */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "Content-Type"
}

/**
 * The encoding an `Accept-Encoding` header asks for, as Cloudflare in front of the real service
 * answers it: br if accepted, else gzip, else none (`q=0` refuses a coding; `*` accepts both).
 */
const chooseEncoding = (header: string | undefined): "br" | "gzip" | undefined => {
  if (header === undefined) return undefined
  const accepted = new Map<string, number>()
  for (const part of header.split(",")) {
    const [name = "", ...params] = part.trim().toLowerCase().split(";")
    const q = params.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/.exec(p)).find((m) => m !== null)
    accepted.set(name.trim(), q === undefined || q === null ? 1 : Number(q[1]))
  }
  const weight = (coding: string) => accepted.get(coding) ?? accepted.get("*") ?? 0
  return weight("br") > 0 ? "br" : weight("gzip") > 0 || weight("x-gzip") > 0 ? "gzip" : undefined
}

/**
 * Compresses off the event loop (zlib's thread pool): a 10,000-row page is ~9 MB. Brotli at quality
 * 4, as CDNs use for answers made on the fly (11 takes seconds on such a page).
 */
const compress = (encoding: "br" | "gzip", body: string): Effect.Effect<Uint8Array> =>
  Effect.async<Uint8Array>((resume) => {
    const done = (error: Error | null, out: Buffer) =>
      resume(error === null ? Effect.succeed(out) : Effect.die(error))
    if (encoding === "gzip") zlib.gzip(body, done)
    else zlib.brotliCompress(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(body) } }, done)
  })

/** An answer as the request's `Accept-Encoding` asks: compressed (with `Content-Encoding`) or plain. */
const toResponse = (a: Extract<HttpAnswer, { _tag: "body" }>, acceptEncoding: string | undefined) => {
  const headers = { ...CORS_HEADERS, ...(a.headers ?? {}), vary: "Accept-Encoding" }
  const encoding = chooseEncoding(acceptEncoding)
  if (encoding === undefined) return Effect.succeed(HttpServerResponse.text(a.body, { status: a.status, contentType: a.contentType, headers }))
  return Effect.map(compress(encoding, a.body), (bytes) =>
    HttpServerResponse.uint8Array(bytes, {
      status: a.status,
      contentType: a.contentType,
      headers: { ...headers, "content-encoding": encoding }
    }))
}

/** A CORS preflight: 204 with the CORS headers. */
const preflight = Effect.succeed(HttpServerResponse.empty({ status: 204, headers: CORS_HEADERS }))

const reset = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.suspend(() => {
    const socket = NodeHttpServerRequest.toIncomingMessage(request).socket
    if (typeof socket.resetAndDestroy === "function") socket.resetAndDestroy()
    else socket.destroy()
    // The closed socket interrupts this handler; the sleep only bounds it if it ever did not.
    return Effect.sleep("10 seconds").pipe(Effect.as(HttpServerResponse.empty({ status: 502 })))
  })

const chainlist = (baseUrl: string): string =>
  JSON.stringify({
    comments: "List of API endpoints maintained by Etherscan EAAS. Available Status codes are (0)=Offline, (1)=Ok, (2)=Degraded",
    totalcount: Chain.chains.length,
    result: Chain.chains.map((c) => ({
      chainname: c.name,
      chainid: String(c.id),
      blockexplorer: `${baseUrl}/`,
      apiurl: `${baseUrl}/v2/api?chainid=${c.id}`,
      status: 1,
      comment: ""
    }))
  })

/** The largest POST body the simulator reads. */
const MAX_BODY_BYTES = 1024 * 1024

/** The answer to a body over {@link MAX_BODY_BYTES}. */
const tooLarge = HttpServerResponse.text("413 Request Entity Too Large\n", { status: 413, headers: CORS_HEADERS })

/**
 * The service counts a request when it arrives at its edge, as Node's server hands it over, not when its
 * handler gets to run: this process's own scheduling (other requests' answers, a test's fibers) is no
 * client's doing. `arrived` says when a request came (`now` for one it has not seen).
 */
const makeRouter = (core: Core, now: () => number, arrived: (request: IncomingMessage) => number) => {
  const api = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const query = yield* HttpServerRequest.ParsedSearchParams
    let raw: Readonly<Record<string, string | ReadonlyArray<string>>> = query
    if (request.method === "POST") {
      // A form of a few parameters is a few hundred bytes: of a body over 1 MB no more than that is kept
      // (the rest is read and dropped, so the 413 reaches the client rather than a reset connection).
      const read = yield* Stream.runFold(
        request.stream,
        { bytes: 0, chunks: [] as Array<Uint8Array> },
        (acc, chunk) => {
          acc.bytes += chunk.length
          if (acc.bytes <= MAX_BODY_BYTES) acc.chunks.push(chunk)
          return acc
        }
      ).pipe(Effect.option)
      if (Option.isSome(read) && read.value.bytes > MAX_BODY_BYTES) return tooLarge
      const body: ReadonlyArray<readonly [string, string]> = Option.isSome(read)
        ? [...new URLSearchParams(Buffer.concat(read.value.chunks).toString("utf8")).entries()]
        : []
      const merged: Record<string, string | ReadonlyArray<string>> = {}
      for (const [k, v] of body) if (k.toLowerCase() !== "chainid") merged[k] = v
      for (const [k, v] of Object.entries(query)) if (merged[k] === undefined || k.toLowerCase() === "chainid") merged[k] = v
      raw = merged
    }
    const ip = Option.getOrElse(request.remoteAddress, () => "unknown")
    const { answer, latencyMs } = core.handle(raw, ip, arrived(NodeHttpServerRequest.toIncomingMessage(request)))
    if (latencyMs > 0) yield* Effect.sleep(latencyMs)
    return answer._tag === "reset" ? yield* reset(request) : yield* toResponse(answer, request.headers["accept-encoding"])
  })
  return HttpRouter.empty.pipe(
    HttpRouter.get("/v2/api", api),
    HttpRouter.post("/v2/api", api),
    HttpRouter.options("/v2/api", preflight),
    HttpRouter.get(
      "/downloads/:file",
      Effect.gen(function*() {
        const p = yield* HttpRouter.params
        const request = yield* HttpServerRequest.HttpServerRequest
        const a = core.download(p.file ?? "", now())
        return a._tag === "body" ? yield* toResponse(a, request.headers["accept-encoding"]) : HttpServerResponse.empty({ status: 404 })
      })
    ),
    HttpRouter.get("/v2/chainlist", Effect.sync(() => HttpServerResponse.text(chainlist(core.baseUrl), { contentType: "application/json" }))),
    HttpRouter.get(
      "/api",
      Effect.succeed(
        HttpServerResponse.text(JSON.stringify({ status: "0", message: "NOTOK", result: Texts.DEPRECATED_V1 }), { contentType: "application/json" })
      )
    )
  )
}

const hostForUrl = (host: string): string => (host.includes(":") ? `[${host}]` : host)

/**
 * Start the simulator in the current scope and return its service.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: SimulatorOptions = {}): Effect.Effect<SimulatorService, ServeError, Scope.Scope> =>
  Effect.gen(function*() {
    const core = new Core(options)
    const host = options.host ?? "127.0.0.1"
    const now = options.now ?? Date.now
    const arrivals = new WeakMap<IncomingMessage, number>()
    // Registered before the HTTP layer's own listener, so it runs first, as the request comes.
    const server = yield* NodeHttpServer.make(
      () => createServer().on("request", (request: IncomingMessage) => void arrivals.set(request, now())),
      { host, port: options.port ?? 0 }
    )
    const address = server.address
    const shownHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host
    core.baseUrl = address._tag === "TcpAddress" ? `http://${hostForUrl(shownHost)}:${address.port}` : `http://unix:${address.path}`
    yield* server.serve(makeRouter(core, now, (request) => arrivals.get(request) ?? now()).pipe(Effect.withClock(liveClock)))
    const description = core.dataset.describe()
    const oracleWith = (query: OracleQuery, countOnly: boolean) =>
      Effect.suspend(() => {
        const r = core.oracle(query, countOnly)
        return "reason" in r ? Effect.fail(new SimulatorOracleError({ query: `${query.module}/${query.action}`, reason: r.reason })) : Effect.succeed(r)
      })
    const service: SimulatorService = {
      baseUrl: core.baseUrl,
      demoKeys,
      dataset: description,
      stats: Effect.sync(() => core.snapshot()),
      resetStats: Effect.sync(() => core.resetStats()),
      setFaults: (faults) => Effect.sync(() => core.setFaults(faults)),
      oracle: (query) => Effect.map(oracleWith(query, false), (r) => r.records),
      oracleCount: (query) => Effect.map(oracleWith(query, true), (r) => r.count)
    }
    return service
  })

/**
 * The lines `serve` prints: base URL and the demo keys (never the extra `keys` of the options).
 *
 * @since 0.1.0
 * @category formatting
 */
export const banner = (service: SimulatorService): string =>
  [
    `explorer-etl simulator listening on ${service.baseUrl}`,
    `  API: ${service.baseUrl}/v2/api   (chains with data: ${service.dataset.chainIds.join(", ")})`,
    "  demo keys (made up, one per plan):",
    ...plans.map((p) => `    ${p.padEnd(13)} ${service.demoKeys[p]}`)
  ].join("\n")

/**
 * Start the simulator, print its base URL and demo keys, and run until interrupted.
 *
 * @since 0.1.0
 * @category utils
 */
export const serve = (options: SimulatorOptions = {}): Effect.Effect<never, ServeError> =>
  Effect.scoped(
    Effect.gen(function*() {
      const service = yield* make(options)
      yield* Console.log(banner(service))
      return yield* Effect.never
    })
  )
