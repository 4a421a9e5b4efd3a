/**
 * Helpers of the simulator suites: real HTTP requests (fetch) against a running simulator.
 */
import { Effect, Either } from "effect"
import type { Simulator } from "../../src/simulator/index.js"

/** Query parameters of one call. */
export type Query = Readonly<Record<string, string | number | undefined>>

/** A raw HTTP answer. */
export interface Answer {
  readonly status: number
  readonly contentType: string
  readonly text: string
}

/** The explorer envelope. */
export interface Envelope {
  readonly status: string
  readonly message: string
  readonly result: unknown
}

/** A list envelope's records. */
export type Row = Readonly<Record<string, unknown>>

/** The URL of `/v2/api` with these parameters (undefined ones left out). */
export const apiUrl = (sim: Simulator.Service, query: Query): string => {
  const url = new URL(`${sim.baseUrl}/v2/api`)
  for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v))
  return url.toString()
}

/** GET a URL; fails (as a defect) only if the connection fails. */
export const get = (url: string): Effect.Effect<Answer> =>
  Effect.promise(async () => {
    const r = await fetch(url)
    return { status: r.status, contentType: r.headers.get("content-type") ?? "", text: await r.text() }
  })

/** GET a URL; a failed connection (reset) is a Left. */
export const tryGet = (url: string): Effect.Effect<Either.Either<Answer, unknown>> =>
  Effect.either(
    Effect.tryPromise(async () => {
      const r = await fetch(url)
      return { status: r.status, contentType: r.headers.get("content-type") ?? "", text: await r.text() }
    })
  )

/** Call `/v2/api` and read the envelope. */
export const call = (sim: Simulator.Service, query: Query): Effect.Effect<Envelope> =>
  Effect.map(get(apiUrl(sim, query)), (a) => JSON.parse(a.text) as Envelope)

/** Call a list operation and return its rows ([] for an empty answer); fails the test on NOTOK. */
export const rows = (sim: Simulator.Service, query: Query): Effect.Effect<ReadonlyArray<Row>> =>
  Effect.flatMap(call(sim, query), (e) =>
    Array.isArray(e.result) ? Effect.succeed(e.result as ReadonlyArray<Row>) : Effect.dieMessage(`NOTOK: ${String(e.result)}`)
  )

/** Follow every page (page = 1, 2, …) of a paged query until a short page. */
export const allPages = (sim: Simulator.Service, query: Query, offset: number): Effect.Effect<ReadonlyArray<Row>> =>
  Effect.gen(function*() {
    const out: Array<Row> = []
    for (let page = 1; ; page++) {
      const r = yield* rows(sim, { ...query, page, offset })
      out.push(...r)
      if (r.length < offset) return out
    }
  })

/** Wait in real time (the simulator's windows run on the wall clock). */
export const sleepReal = (ms: number): Effect.Effect<void> =>
  Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))
