/**
 * What the measurement children share: the undici `HttpClient` with every request's send time recorded
 * (the client sees them after its limiter), and the rate figures computed from those times.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

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
  return { calls: n, callsPerSecond: span > 0 ? (n - 1) / span : 0, maxInAnySecond: max, spanSeconds: span }
}
