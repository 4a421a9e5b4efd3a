/**
 * What the measurement children share: the undici `HttpClient` with every request's send time recorded
 * (the client sees them after its limiter), and the rate figures computed from those times.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { round } from "./lib.js"

/** The platform client, recording the time (performance.now, ms) each request leaves. */
export const recordingHttp = (sent: Array<number>): Layer.Layer<HttpClient.HttpClient> =>
  Layer.effect(
    HttpClient.HttpClient,
    Effect.map(HttpClient.HttpClient, HttpClient.tapRequest(() => Effect.sync(() => void sent.push(performance.now()))))
  ).pipe(Layer.provide(NodeHttpClient.layerUndici))

/** Rate figures of a list of send times. */
export interface RateFigures {
  readonly calls: number
  /** (calls − 1) / (last − first): the spacing the limiter kept. */
  readonly callsPerSecond: number
  /** The most calls sent within any 1,000 ms (what a server's sliding window counts). */
  readonly maxInAnySecond: number
  readonly spanSeconds: number
  /** The send times as wall-clock ms (`performance.timeOrigin` + now), to pair with the simulator's arrivals. */
  readonly sentAtMs: ReadonlyArray<number>
}

/** Rate figures of send times (ms). */
export const rateOf = (sent: ReadonlyArray<number>): RateFigures => {
  const times = [...sent].sort((a, b) => a - b)
  const n = times.length
  const span = n > 1 ? ((times[n - 1] as number) - (times[0] as number)) / 1000 : 0
  let max = 0
  let start = 0
  for (let end = 0; end < n; end++) {
    while ((times[end] as number) - (times[start] as number) >= 1000) start++
    max = Math.max(max, end - start + 1)
  }
  return {
    calls: n,
    callsPerSecond: span > 0 ? (n - 1) / span : 0,
    maxInAnySecond: max,
    spanSeconds: span,
    sentAtMs: times.map((t) => round(performance.timeOrigin + t, 2))
  }
}

/** How the calls' arrivals at the simulator's handler compare with their send times. */
export interface ArrivalFigures {
  /** Send → handler, in ms: the median and the largest. */
  readonly delayMedianMs: number
  readonly delayMaxMs: number
  /** The shortest span of any `allowed + 1` consecutive calls, as sent and as the simulator saw them (ms). */
  readonly shortestSpanSentMs: number
  readonly shortestSpanSeenMs: number
}

const shortestSpan = (times: ReadonlyArray<number>, n: number): number => {
  let min = Number.POSITIVE_INFINITY
  for (let k = 0; k + n < times.length; k++) min = Math.min(min, (times[k + n] as number) - (times[k] as number))
  return min
}

/**
 * Pairs the i-th send with the i-th arrival (one key, calls sent at least ~100 ms apart, so none
 * overtakes another); undefined when the counts differ or there are too few calls for a window.
 */
export const arrivalFigures = (
  sentAtMs: ReadonlyArray<number>,
  arrivalsMs: ReadonlyArray<number>,
  allowed: number
): ArrivalFigures | undefined => {
  if (sentAtMs.length !== arrivalsMs.length || sentAtMs.length <= allowed) return undefined
  const delays = sentAtMs.map((t, i) => (arrivalsMs[i] as number) - t).sort((a, b) => a - b)
  return {
    delayMedianMs: round(delays[Math.floor(delays.length / 2)] as number, 1),
    delayMaxMs: round(delays[delays.length - 1] as number, 1),
    shortestSpanSentMs: round(shortestSpan(sentAtMs, allowed), 1),
    shortestSpanSeenMs: round(shortestSpan(arrivalsMs, allowed), 1)
  }
}
