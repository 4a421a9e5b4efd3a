/**
 * The API key never leaves the request: not in errors (message, JSON, Cause.pretty), not in log
 * lines, not in span names, attributes, events or exits — even when the server, a proxy page or a
 * transport error echoes it back, or the full URL.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Logger, LogLevel, Redacted, Schema } from "effect"
import type * as Errors from "../../src/ExplorerError.js"
import * as T from "../../src/simulator/texts.js"
import * as F from "./fixtures.js"
import { clientOn, collectingLogger, collectingTracer, driven, fakeHttp, notOk, ok, replacer, type Reply } from "./helpers.js"

const KEY = "MADEUPKEY7Q2W9E4R6T8Y1U3I5O"
const URL_WITH_KEY = `https://explorer.test/v2/api?chainid=1&module=account&action=txlist&apikey=${KEY}`

/** Scripted answers, consumed in order; each scenario below uses some of them. */
const script: ReadonlyArray<Reply> = [
  ok([F.normalTransaction]), // 0 success
  notOk(`Invalid API Key ${KEY}`), // 1 server echoes the key
  { reset: true, message: `request to ${URL_WITH_KEY} failed, reason: socket hang up` }, // 2 transport error with the URL
  { text: `<html><head><title>Blocked ${URL_WITH_KEY}</title></head></html>`, contentType: "text/html" }, // 3 HTML page echo
  ok([F.normalTransaction]), // 4 (retry after 2 and 3)
  { text: `upstream ${URL_WITH_KEY} unavailable`, status: 404 }, // 5 HTTP error echoing the URL
  ok([{ ...F.normalTransaction, blockNumber: KEY }]), // 6 a record that echoes the key fails decoding
  notOk(T.maxCallsPerSec(3)), // 7 rate limit (retried)
  ok("1"), // 8
  { hang: true }, // 9 timeout
  { hang: true }, // 10 timeout
  ok(`https://explorer.test/download/tags.csv?apikey=${KEY}&sig=1`), // 11 export link on the same origin
  { text: "denied", status: 403 } // 12 download refused
]

describe("no API key anywhere", () => {
  it.scoped("errors, logs and spans of every kind of call stay clean", () =>
    Effect.gen(function*() {
      const { tracer, spans } = collectingTracer()
      const { logger, lines } = collectingLogger()
      const fake = fakeHttp((_, i) => script[i] ?? ok("1"))
      const client = yield* clientOn(fake, {
        apiKey: Redacted.make(KEY),
        plan: "proplus",
        requestTimeout: "2 seconds",
        rate: { callsPerSecond: 1000, throttledPerSecond: 1000 },
        retry: { times: 2, baseDelay: "10 millis" }
      })
      const address = F.ADDRESS
      const exits = yield* driven(
        Effect.all(
          ([
            client.txlist({ address }), // 0
            client.txlist({ address }, { retries: 0 }), // 1
            client.txlist({ address }), // 2, 3, 4
            client.txlist({ address }), // 5
            client.txlist({ address }), // 6
            client.balance({ address }), // 7, 8
            client.balance({ address }, { retries: 1 }), // 9, 10
            client.exportaddresstags({ label: "all" }, { retries: 0 }), // 11, 12
            client.request({ module: "account", action: "balancemulti", params: { address }, schema: Schema.Number }) // 13: decode error
          ] as ReadonlyArray<Effect.Effect<unknown, Errors.ExplorerError>>).map((e) => Effect.exit(e)),
          { concurrency: 1 }
        ).pipe(
          Effect.tap((all) =>
            Effect.forEach(all, (exit) => (Exit.isFailure(exit) ? Effect.logError("call failed", exit.cause) : Effect.logInfo("ok")))
          ),
          Effect.withTracer(tracer),
          Logger.withMinimumLogLevel(LogLevel.All),
          Effect.provide(Logger.replace(Logger.defaultLogger, logger))
        )
      )
      expect(fake.seen.length).toBeGreaterThanOrEqual(13)
      // the key did go to the server, where it belongs
      expect(fake.seen.filter((s) => s.path === "/v2/api").every((s) => s.params.apikey === KEY)).toBe(true)

      const failures = exits.filter(Exit.isFailure)
      expect(failures.length).toBeGreaterThanOrEqual(6)
      const texts: Array<string> = []
      for (const exit of failures) {
        texts.push(Cause.pretty(exit.cause), JSON.stringify(exit.cause, replacer))
        for (const error of Array.from(Cause.failures(exit.cause))) {
          texts.push(error.message, String(error), JSON.stringify(error, replacer), error.detail)
        }
      }
      texts.push(...lines)
      for (const span of spans) {
        texts.push(span.name, JSON.stringify([...span.attributes], replacer), JSON.stringify(span.events, replacer))
        // a span's failure (its success value is the server's data, which a tracer does not export)
        if (span.exit !== undefined && Exit.isFailure(span.exit)) {
          texts.push(Cause.pretty(span.exit.cause), JSON.stringify(span.exit.cause, replacer))
        }
        expect([...span.attributes.keys()]).not.toContain("url.full")
        expect([...span.attributes.keys()]).not.toContain("url.query")
      }
      expect(spans.map((s) => s.name)).toEqual(expect.arrayContaining(["ExplorerClient.txlist", "ExplorerClient.balance", "ExplorerClient.http"]))
      expect(lines.length).toBeGreaterThan(0)
      for (const text of texts) {
        expect(text).not.toContain(KEY)
        expect(text).not.toContain(encodeURIComponent(KEY))
        expect(text).not.toMatch(/apikey=/i)
      }
      // the scrubbing kept the server's words around the key
      const details = failures.flatMap((exit) => Array.from(Cause.failures(exit.cause), (e) => e.detail))
      expect(details).toContain("Invalid API Key <redacted>")
    }))
})
