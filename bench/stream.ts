/**
 * One `Streams.logs(…)` drained in a process of its own, as a notebook-style script does it: the
 * library's composable Stream of a contract's logs over a block range, its rows consumed chunk by chunk.
 * Reports the rows, the sha256 of their fingerprints in the order the Stream gave them (bench/lib.ts
 * `logFingerprint`: compared with the oracle's by bench/shapes.ts), the seconds from the Stream's start to
 * its end, this process's event-loop utilisation and peak RSS.
 *
 * Args: --base-url URL --key KEY --plan PLAN --address A --from-block N --to-block N
 * [--rate N] (the client's calls/s instead of the plan's) [--spill DIR] (rows read ahead wait in
 * temporary files of DIR, `spill: { directory }`, instead of memory) [--concurrency N] (the Stream's
 * `concurrency`; env BENCH_HELD_ROWS: its `heldRows`). With node --expose-gc: a full collection every 200 ms, and the heap it leaves (the
 * data really held: `liveHeapMaxMb`, `liveHeapMedianMb`).
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { createHash } from "node:crypto"
import * as Client from "../src/ExplorerClient.js"
import type * as Plan from "../src/Plan.js"
import * as Streams from "../src/streams/Streams.js"
import { arg, args, emit, logFingerprint, peakRssMb, round } from "./lib.js"

const a = args()
const plan = arg(a, "plan") as Plan.Plan
const query = {
  chainId: 1,
  address: arg(a, "address"),
  fromBlock: Number(arg(a, "from-block")),
  toBlock: Number(arg(a, "to-block"))
}

const rate = a.rate === undefined ? undefined : Number(a.rate)
const spill = a.spill

const ClientLive = Client.layer({
  apiKey: Redacted.make(arg(a, "key")),
  baseUrl: arg(a, "base-url"),
  plan,
  ...(rate === undefined ? {} : { rate: { callsPerSecond: rate, throttledPerSecond: rate } })
}).pipe(
  Layer.provide(NodeHttpClient.layerUndici)
)

const program = Effect.gen(function*() {
  const hash = createHash("sha256")
  let rows = 0
  const loop0 = performance.eventLoopUtilization()
  const t0 = performance.now()
  const extra = {
    ...(a.concurrency === undefined ? {} : { concurrency: Number(a.concurrency) }),
    ...(process.env.BENCH_HELD_ROWS === undefined ? {} : { heldRows: Number(process.env.BENCH_HELD_ROWS) })
  }
  global.gc?.()
  const heapBefore = process.memoryUsage().heapUsed / 1024 / 1024
  const live: Array<number> = []
  const liveSampler = global.gc === undefined ? undefined : setInterval(() => {
    global.gc?.()
    live.push(process.memoryUsage().heapUsed / 1024 / 1024)
  }, 200)
  yield* (spill === undefined ? Streams.logs(query, extra) : Streams.logs(query, { ...extra, spill: { directory: spill } })).pipe(
    Stream.runForEachChunk((chunk) =>
      Effect.sync(() => {
        for (const r of Chunk.toReadonlyArray(chunk)) {
          hash.update(`${logFingerprint(r as unknown as Readonly<Record<string, unknown>>)}\n`)
          rows++
        }
      })
    )
  )
  const seconds = (performance.now() - t0) / 1000
  if (liveSampler !== undefined) clearInterval(liveSampler)
  const sorted = [...live].sort((x, y) => x - y)
  return {
    rows,
    sha256: hash.digest("hex"),
    seconds: round(seconds, 3),
    eventLoop: round(performance.eventLoopUtilization(loop0).utilization, 2),
    peakRssMb: round(peakRssMb(), 1),
    ...(liveSampler === undefined ? {} : {
      heapBeforeMb: round(heapBefore, 1),
      liveHeapMaxMb: round(sorted[sorted.length - 1] ?? heapBefore, 1),
      liveHeapMedianMb: round(sorted[Math.floor(sorted.length / 2)] ?? heapBefore, 1)
    })
  }
})

Effect.runPromise(program.pipe(Effect.provide(Layer.merge(ClientLive, NodeContext.layer)))).then(emit, (error: unknown) => {
  process.stderr.write(`${String(error)}\n`)
  process.exit(1)
})
