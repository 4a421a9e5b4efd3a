/**
 * The transport. Over real sockets (a node:http server on 127.0.0.1, port 0) with the undici and fetch
 * transports: connection resets, bodies cut mid-way, HTML pages, HTTP errors and silence are mapped to
 * typed errors and retried; nothing of the request leaks into them. Real clock, millisecond delays.
 * And the `transformClient` option, on the in-process fake: what it sees, and what it cannot undo.
 */
import { FetchHttpClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Redacted } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { Socket } from "node:net"
import * as Client from "../../src/ExplorerClient.js"
import type * as ExplorerConfig from "../../src/Config.js"
import * as F from "./fixtures.js"
import { clientOn, collectingTracer, driven, fakeHttp, freshKey, ok } from "./helpers.js"

type Behaviour = "ok" | "reset" | "truncate" | "html" | "503" | "hang"

/** A local server answering each request with the next behaviour of the script (then "ok"). */
const server = (script: ReadonlyArray<Behaviour>) =>
  Effect.acquireRelease(
    Effect.async<{ readonly baseUrl: string; readonly urls: Array<string>; readonly close: () => void }>((resume) => {
      const urls: Array<string> = []
      const sockets = new Set<Socket>()
      const handler = (req: IncomingMessage, res: ServerResponse) => {
        urls.push(req.url ?? "")
        const behaviour = script[urls.length - 1] ?? "ok"
        switch (behaviour) {
          case "reset":
            req.socket.destroy()
            return
          case "truncate":
            res.writeHead(200, { "content-type": "application/json", "content-length": "500" })
            res.write("{\"status\":\"1\",\"message\":\"OK\",\"result\":[{\"blockNumber\":\"1")
            setTimeout(() => res.socket?.destroy(), 5)
            return
          case "html":
            res.writeHead(200, { "content-type": "text/html" })
            res.end("<!DOCTYPE html><html><head><title>Attention Required! | Cloudflare</title></head><body></body></html>")
            return
          case "503":
            res.writeHead(503, { "content-type": "text/plain" })
            res.end("Service Unavailable")
            return
          case "hang":
            return
          case "ok":
            res.writeHead(200, { "content-type": "application/json" })
            res.end(JSON.stringify({ status: "1", message: "OK", result: [F.normalTransaction] }))
        }
      }
      const s = createServer(handler)
      s.on("connection", (socket) => {
        sockets.add(socket)
        socket.on("close", () => sockets.delete(socket))
      })
      s.listen(0, "127.0.0.1", () => {
        const address = s.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        resume(
          Effect.succeed({
            baseUrl: `http://127.0.0.1:${port}`,
            urls,
            close: () => {
              for (const socket of sockets) socket.destroy()
              s.close()
            }
          })
        )
      })
    }),
    (srv) => Effect.sync(srv.close)
  )

const transports: ReadonlyArray<readonly [string, Layer.Layer<HttpClient.HttpClient>]> = [
  ["undici", NodeHttpClient.layerUndici],
  ["fetch", FetchHttpClient.layer]
]

const fast = (baseUrl: string, apiKey: Redacted.Redacted<string>): ExplorerConfig.Options => ({
  apiKey,
  baseUrl,
  requestTimeout: "400 millis",
  rate: { callsPerSecond: 500 },
  retry: { times: 6, baseDelay: "5 millis", maxDelay: "20 millis" }
})

describe("over real sockets", () => {
  for (const [name, transport] of transports) {
    it.scopedLive(`${name}: reset, cut body, HTML, 503 and silence are retried until an answer`, () =>
      Effect.gen(function*() {
        const srv = yield* server(["reset", "truncate", "html", "503", "hang"])
        const key = freshKey("SOCKETKEY")
        const http = yield* Layer.build(transport) // lives as long as the test, like the client
        const client = yield* Client.make(fast(srv.baseUrl, key)).pipe(Effect.provide(http))
        const rows = yield* client.txlist({ address: F.ADDRESS })
        expect(rows).toHaveLength(1)
        expect(srv.urls).toHaveLength(6)
        expect(srv.urls.every((u) => u.startsWith("/v2/api?"))).toBe(true)
        expect((yield* client.stats).retries).toBe(5)
      }))

    it.scopedLive(`${name}: when every attempt fails, the typed error carries no URL nor key`, () =>
      Effect.gen(function*() {
        const srv = yield* server(Array.from({ length: 10 }, () => "reset" as const))
        const key = freshKey("SOCKETKEY")
        const http = yield* Layer.build(transport)
        const client = yield* Client.make({ ...fast(srv.baseUrl, key), retry: { times: 2, baseDelay: "5 millis" } }).pipe(
          Effect.provide(http)
        )
        const error = yield* Effect.flip(client.txlist({ address: F.ADDRESS }))
        expect(error._tag).toBe("TransportError")
        expect(srv.urls).toHaveLength(3)
        for (const text of [error.message, JSON.stringify(error), String(error)]) {
          expect(text).not.toContain(Redacted.value(key))
          expect(text).not.toContain("apikey")
          expect(text).not.toContain("/v2/api?")
        }
      }))
  }

  it.scopedLive("a call interrupted once counted still reaches the server: the client's count is the server's", () =>
    Effect.gen(function*() {
      const srv = yield* server([])
      const http = yield* Layer.build(NodeHttpClient.layerUndici)
      // Between the count and the wire: a transform that holds each request 150 ms, as a loaded CPU
      // may hold it for a moment.
      const client = yield* Client.make({
        ...fast(srv.baseUrl, freshKey()),
        transformClient: HttpClient.mapRequestEffect((request) => Effect.as(Effect.sleep("150 millis"), request))
      }).pipe(Effect.provide(http))
      const call = yield* Effect.fork(client.balance({ address: F.ADDRESS }))
      yield* Effect.sleep("50 millis")
      expect((yield* client.stats).requests).toBe(1)
      yield* Fiber.interrupt(call)
      yield* Effect.sleep("300 millis")
      expect(srv.urls).toHaveLength(1)
      expect((yield* client.stats).requests).toBe(1)
    }))

  it.scopedLive("nothing listening: a TransportError after the retries", () =>
    Effect.gen(function*() {
      const srv = yield* server([])
      srv.close()
      const http = yield* Layer.build(NodeHttpClient.layerUndici)
      const client = yield* Client.make({ ...fast(srv.baseUrl, freshKey()), retry: { times: 1, baseDelay: "5 millis" } }).pipe(
        Effect.provide(http)
      )
      const error = yield* Effect.flip(client.balance({ address: F.ADDRESS }))
      expect(error._tag).toBe("TransportError")
    }))
})

describe("transformClient", () => {
  it.scoped("every request passes through it once (retries and download links too), and it cannot bring back the span or trace headers", () =>
    driven(Effect.gen(function*() {
      const { tracer, spans } = collectingTracer()
      const fake = fakeHttp((r, i) =>
        r.path === "/v2/api"
          ? i === 0 ? { reset: true } : i === 1 ? ok("7") : ok("https://downloads.example.net/labels.csv?sig=1")
          : { text: "", contentType: "text/csv" }
      )
      let sent = 0
      const key = freshKey("TRANSFORMKEY")
      const client = yield* clientOn(fake, {
        apiKey: key,
        plan: "proplus",
        retry: { times: 2, baseDelay: "10 millis" },
        transformClient: (http) =>
          http.pipe(
            HttpClient.mapRequest(HttpClientRequest.setHeader("x-team", "etl")),
            HttpClient.tapRequest(() => Effect.sync(() => sent++)),
            // what a transform cannot undo: the client's own settings are applied before it
            HttpClient.withTracerPropagation(true),
            HttpClient.withTracerDisabledWhen(() => false)
          )
      })
      const balance = yield* client.balance({ address: F.ADDRESS }).pipe(Effect.withTracer(tracer))
      const labels = yield* Effect.either(client.getlabelmasterlist({}, { retries: 0 }).pipe(Effect.withTracer(tracer)))
      expect(balance).toBe(7n)
      expect(labels._tag).toBe("Left") // an empty file is not a label list; what matters is that it was fetched
      expect(fake.seen.map((s) => s.path)).toEqual(["/v2/api", "/v2/api", "/v2/api", "/labels.csv"])
      expect(sent).toBe(fake.seen.length)
      expect((yield* client.stats).requests).toBe(3)
      for (const seen of fake.seen) {
        expect(seen.headers["x-team"]).toBe("etl")
        expect(Object.keys(seen.headers)).not.toContain("traceparent")
        expect(Object.keys(seen.headers)).not.toContain("b3")
      }
      // the key goes to the API and nowhere else, and no span records a URL
      expect(fake.seen.map((s) => s.params.apikey)).toEqual([Redacted.value(key), Redacted.value(key), Redacted.value(key), undefined])
      expect(spans.length).toBeGreaterThan(0)
      for (const span of spans) {
        expect([...span.attributes.keys()]).not.toContain("url.full")
        expect(JSON.stringify([...span.attributes])).not.toContain(Redacted.value(key))
      }
    })))

  it.scoped("it sees requests with the base URL already in place", () =>
    Effect.gen(function*() {
      const fake = fakeHttp(() => ok("1"))
      const urls: Array<string> = []
      const client = yield* clientOn(fake, {
        baseUrl: "https://explorer.test/prefix/",
        transformClient: HttpClient.tapRequest((request) => Effect.sync(() => urls.push(request.url)))
      })
      yield* client.balance({ address: F.ADDRESS })
      expect(urls).toEqual(["https://explorer.test/prefix/v2/api"])
      expect(fake.seen[0]?.url.startsWith("https://explorer.test/prefix/v2/api?chainid=1&module=account&action=balance&")).toBe(true)
    }))
})
