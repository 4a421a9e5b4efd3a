/**
 * One explorer-etl export in a process of its own, against the bench simulator: `Exports.toFile` of the
 * busy wallet's transactions or the heavy contract's logs, as a user runs it (undici, the real limiter,
 * the real sinks). Reports rows, rows/s, the calls and their rate as sent, the client's counters, and the
 * process's memory: RSS once everything is loaded (before the export) and the peak (VmHWM) after it;
 * run with `--expose-gc`, also the largest heap a full collection every 200 ms leaves (the data held).
 *
 * With `--verify FILE` (the oracle, one wire record per line) a finished JSONL export is read back,
 * each line decoded with the file schema and written back to the wire form, and compared with the
 * oracle: rows matched, missing, duplicated, unexpected (after the memory figures are taken).
 *
 * Args: --base-url URL --key KEY --plan PLAN --dataset txs|logs --address A --from-block N --to-block N
 *       --out FILE [--rate CALLS_PER_SECOND] [--seconds N: stop the export after N seconds] [--verify FILE]
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"
import { monitorEventLoopDelay } from "node:perf_hooks"
import * as Client from "../src/ExplorerClient.js"
import * as Exports from "../src/Exports.js"
import type * as Plan from "../src/Plan.js"
import * as Schemas from "../src/schemas/index.js"
import * as Sources from "../src/streams/Sources.js"
import { arg, args, canonical, compare, emit, peakRssMb, round, rssMb } from "./lib.js"
import { rateOf, recordingHttp } from "./timing.js"

const a = args()
const dataset = arg(a, "dataset")
const plan = arg(a, "plan") as Plan.Plan
const seconds = a.seconds === undefined ? undefined : Number(a.seconds)
const rate = a.rate === undefined ? undefined : Number(a.rate)
const query = {
  chainId: 1,
  address: arg(a, "address"),
  fromBlock: Number(arg(a, "from-block")),
  toBlock: Number(arg(a, "to-block"))
}

const sent: Array<number> = []
const ClientLive = Client.layer({
  apiKey: Redacted.make(arg(a, "key")),
  baseUrl: arg(a, "base-url"),
  plan,
  ...(rate === undefined ? {} : { rate: { callsPerSecond: rate, throttledPerSecond: rate } })
}).pipe(Layer.provide(recordingHttp(sent)))

const program = Effect.gen(function*() {
  const source = (dataset === "txs" ? yield* Sources.transactions(query) : yield* Sources.logs(query)) as unknown as Sources.Source<
    unknown,
    unknown
  >
  const client = yield* Client.ExplorerClient
  // Everything is loaded and built: what the process holds before the first row.
  global.gc?.()
  const rssBefore = rssMb()
  const heapBefore = process.memoryUsage().heapUsed / 1024 / 1024
  let rssMax = rssBefore
  const sampler = setInterval(() => void (rssMax = Math.max(rssMax, rssMb())), 100)
  // With --expose-gc: a full collection every 200 ms (a 10,000-row export lasts about a second), and the
  // heap it leaves (the data really held).
  let liveHeapMax = heapBefore
  const live: Array<number> = []
  const liveSampler = global.gc === undefined ? undefined : setInterval(() => {
    global.gc?.()
    const used = process.memoryUsage().heapUsed / 1024 / 1024
    live.push(used)
    liveHeapMax = Math.max(liveHeapMax, used)
  }, 200)
  // How late this process's event loop ran: a late timer or a long synchronous step delays a request.
  const loop = monitorEventLoopDelay({ resolution: 5 })
  loop.enable()
  const t0 = performance.now()
  const run = Exports.toFile(source, { out: arg(a, "out"), quiet: true })
  const outcome = yield* (seconds === undefined ? Effect.map(run, Option.some) : Effect.timeout(run, Duration.seconds(seconds)).pipe(
    Effect.option
  )).pipe(Effect.either)
  const elapsed = (performance.now() - t0) / 1000
  clearInterval(sampler)
  loop.disable()
  if (liveSampler !== undefined) clearInterval(liveSampler)
  const stats = yield* client.stats
  const summary = outcome._tag === "Right" ? Option.getOrUndefined(outcome.right) : undefined
  const peak = peakRssMb()
  const lines = (file: string) => readFileSync(file, "utf8").split("\n").filter((l) => l !== "")
  let oracle: ReturnType<typeof compare> | undefined
  if (a.verify !== undefined && summary !== undefined) {
    const decodeLine = Schema.decodeUnknownSync(Schema.parseJson(source.schema))
    const toWire = Schema.encodeSync((dataset === "txs" ? Schemas.NormalTransaction : Schemas.Log) as Schema.Schema<unknown, unknown>)
    oracle = compare(
      lines(a.verify).map((l) => canonical(JSON.parse(l))),
      lines(arg(a, "out")).map((l) => canonical(toWire(decodeLine(l))))
    )
  }
  return {
    dataset,
    plan,
    completed: summary !== undefined,
    error: outcome._tag === "Left" ? { tag: outcome.left._tag, message: outcome.left.message } : undefined,
    rows: summary?.rowsWritten,
    bytes: summary?.manifest.bytes,
    seconds: round(elapsed, 3),
    rowsPerSecond: summary === undefined ? undefined : round(summary.rowsWritten / elapsed),
    rate: rateOf(sent),
    loopDelayMaxMs: round(loop.max / 1e6, 1),
    client: stats,
    rssBeforeMb: round(rssBefore, 1),
    rssMaxSampledMb: round(rssMax, 1),
    heapBeforeMb: round(heapBefore, 1),
    liveHeapMaxMb: liveSampler === undefined ? undefined : round(liveHeapMax, 1),
    // The typical heap held (the median of the samples): unlike the maximum, it does not grow with the
    // number of samples a longer export takes.
    liveHeapMedianMb: liveSampler === undefined || live.length === 0 ? undefined : round([...live].sort((x, y) => x - y)[Math.floor(live.length / 2)] as number, 1),
    peakRssMb: round(peak, 1),
    oracle
  }
})

Effect.runPromise(program.pipe(Effect.provide(Layer.merge(ClientLive, NodeContext.layer)))).then(emit, (error: unknown) => {
  process.stderr.write(`${String(error)}\n`)
  process.exit(1)
})
