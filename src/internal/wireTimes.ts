/**
 * When a request really leaves: undici publishes `undici:client:sendHeaders` as it writes a request's
 * headers to its socket, after any connection set-up (a TCP and TLS handshake with a distant server
 * takes a round trip or more) and after this process's event loop got round to it. A key's lanes count
 * a start from its send (`Throttle.sent`); this moves the send to that moment, for the requests the
 * transport registers here just before handing them to the HTTP client.
 *
 * Requests are matched by their query without the key (the same parameters in any order). Identical
 * requests on the way at once are taken first come, first served. A request no message names (another
 * HTTP client than undici, a base URL with a query of its own) keeps the send marked before it was
 * handed over.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { subscribe } from "node:diagnostics_channel"
import type * as Throttle from "../Throttle.js"

interface OnTheWay {
  readonly ticket: Throttle.Ticket
  /** The ticket's clock and the wall clock when registered (a test's clock need not be the wall's). */
  readonly at: number
  readonly wall: number
}

const onTheWay = new Map<string, Array<OnTheWay>>()

/** A query's parameters without the key, in a fixed order. */
const canonical = (params: Iterable<readonly [string, string]>): string => {
  const kept: Array<string> = []
  for (const [k, v] of params) if (k.toLowerCase() !== "apikey") kept.push(`${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
  return kept.sort().join("&")
}

let listening = false

const listen = () => {
  if (listening) return
  listening = true
  subscribe("undici:client:sendHeaders", (message) => {
    if (onTheWay.size === 0) return
    const path = (message as { readonly request?: { readonly path?: unknown } }).request?.path
    if (typeof path !== "string") return
    const q = path.indexOf("?")
    if (q < 0) return
    const id = canonical(new URLSearchParams(path.slice(q + 1)))
    const waiting = onTheWay.get(id)
    const first = waiting?.shift()
    if (first === undefined) return
    if (waiting?.length === 0) onTheWay.delete(id)
    const sentAt = first.at + (Date.now() - first.wall)
    if (sentAt > first.ticket.sentAt) first.ticket.sentAt = sentAt
  })
}

/**
 * Runs `send` (a request with these query parameters handed to the HTTP client) with its start's ticket
 * moved to the moment undici writes the request, if it says so.
 */
export const tracked = <A, E, R>(
  params: Iterable<readonly [string, string]>,
  ticket: Throttle.Ticket,
  send: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.flatMap(Clock.currentTimeMillis, (at) => {
    listen()
    const id = canonical(params)
    const entry: OnTheWay = { ticket, at, wall: Date.now() }
    const list = onTheWay.get(id)
    if (list === undefined) onTheWay.set(id, [entry])
    else list.push(entry)
    return Effect.ensuring(
      send,
      Effect.sync(() => {
        const waiting = onTheWay.get(id)
        const i = waiting?.indexOf(entry) ?? -1
        if (waiting === undefined || i < 0) return
        waiting.splice(i, 1)
        if (waiting.length === 0) onTheWay.delete(id)
      })
    )
  })
