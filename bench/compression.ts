/**
 * Compressed answers on 10,000-row txlist pages: the bytes on the wire with no compression, gzip and
 * br (the simulator compresses as Cloudflare does in front of the real service when Accept-Encoding
 * asks), and the time of one call through the client (server compresses, bytes travel, the client
 * decodes and reads the records) on loopback and behind a link paced at a few bandwidths (a local TCP
 * proxy that sends the answer's bytes no faster than the bandwidth).
 *
 * Usage: tsx bench/compression.ts [--pages N] [--emit] [--merge]
 * (--merge: the figures written into bench/results.json as its `compression`; then `npm run bench --
 * --render` renders bench/RESULTS.md again.)
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { readFileSync, writeFileSync } from "node:fs"
import { request as httpRequest } from "node:http"
import * as net from "node:net"
import * as path from "node:path"
import * as Client from "../src/ExplorerClient.js"
import * as Simulator from "../src/simulator/index.js"
import { args, emit, repoRoot, round } from "./lib.js"

/** One encoding's figures (medians over the pages). */
export interface CompressionRow {
  readonly encoding: "identity" | "gzip" | "br"
  readonly rows: number
  readonly wireBytes: number
  readonly plainBytes: number
  /** Median ms of one client call on loopback, then behind each paced link (by Mbit/s). */
  readonly loopbackMs: number
  readonly pacedMs: Readonly<Record<string, number>>
}

/** What this bench gives. */
export interface CompressionResults {
  readonly date: string
  readonly pages: number
  readonly bandwidthsMbit: ReadonlyArray<number>
  readonly rows: ReadonlyArray<CompressionRow>
}

const ENCODINGS = ["identity", "gzip", "br"] as const
const BANDWIDTHS_MBIT = [100, 20] as const
const ROWS = 10_000

const median = (xs: ReadonlyArray<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0

/** The bytes of one raw GET as they came on the wire (no decoding). */
const wireBytes = (url: string, encoding: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { "accept-encoding": encoding } }, (res) => {
      let n = 0
      res.on("data", (c: Buffer) => void (n += c.length))
      res.on("end", () => resolve(n))
      res.on("error", reject)
    })
    req.on("error", reject)
    req.end()
  })

/** A TCP proxy to `port` that sends the answers' bytes no faster than `mbit` Mbit/s (requests go at once). */
const pacedProxy = (port: number, mbit: number): Promise<{ readonly port: number; readonly close: () => void }> =>
  new Promise((resolve) => {
    const bytesPerMs = (mbit * 1_000_000) / 8 / 1000
    const sockets = new Set<net.Socket>()
    const server = net.createServer((downstream) => {
      const upstream = net.connect(port, "127.0.0.1")
      sockets.add(downstream).add(upstream)
      downstream.pipe(upstream)
      let free = performance.now()
      upstream.on("data", (chunk: Buffer) => {
        const now = performance.now()
        free = Math.max(free, now) + chunk.length / bytesPerMs
        upstream.pause()
        setTimeout(() => {
          downstream.write(chunk)
          upstream.resume()
        }, free - now)
      })
      upstream.on("end", () => setTimeout(() => downstream.end(), Math.max(0, free - performance.now())))
      for (const s of [downstream, upstream]) s.on("error", () => { downstream.destroy(); upstream.destroy() })
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as net.AddressInfo
      resolve({ port: address.port, close: () => { for (const s of sockets) s.destroy(); server.close() } })
    })
  })

export const compression = (pages: number): Effect.Effect<CompressionResults, unknown> =>
  Effect.scoped(Effect.gen(function*() {
    const sim = yield* Simulator.make({
      enforceRateLimits: false,
      dailyCaps: false,
      dataset: { chains: [1], busyWalletTransactions: ROWS + 1_000, heavyContractLogs: 0 }
    })
    const wallet = sim.dataset.chain(1).busyWallet.address
    const key = sim.demoKeys.professional
    const url = (base: string) => `${base}/v2/api?chainid=1&module=account&action=txlist&address=${wallet}&page=1&offset=${ROWS}&apikey=${key}`
    const simPort = Number(new URL(sim.baseUrl).port)
    const proxies = yield* Effect.acquireRelease(
      Effect.promise(() => Promise.all(BANDWIDTHS_MBIT.map((mbit) => pacedProxy(simPort, mbit)))),
      (ps) => Effect.sync(() => ps.forEach((p) => p.close()))
    )
    const http = yield* Layer.build(NodeHttpClient.layerUndici) // one dispatcher, as long as the bench
    /** ms of one client call per page, through `base`, asking for `encoding`. */
    const timed = (base: string, encoding: string) =>
      Effect.gen(function*() {
        const client = yield* Client.make({
          baseUrl: base,
          apiKey: Redacted.make(key),
          plan: "professional",
          defaultChainId: 1,
          rate: { callsPerSecond: 1_000 },
          transformClient: HttpClient.mapRequest(HttpClientRequest.setHeader("accept-encoding", encoding))
        }).pipe(Effect.provide(http))
        const times: Array<number> = []
        let rows = 0
        for (let i = 0; i < pages + 1; i++) {
          const started = performance.now()
          rows = (yield* client.txlist({ address: wallet, page: 1, offset: ROWS })).length
          if (i > 0) times.push(performance.now() - started) // the first call warms the connection and the JIT
        }
        return { rows, ms: round(median(times), 0) }
      })
    const plainBytes = yield* Effect.promise(() => wireBytes(url(sim.baseUrl), "identity"))
    const rows: Array<CompressionRow> = []
    for (const encoding of ENCODINGS) {
      const bytes = yield* Effect.promise(() => wireBytes(url(sim.baseUrl), encoding))
      const loopback = yield* timed(sim.baseUrl, encoding)
      const pacedMs: Record<string, number> = {}
      for (const [i, mbit] of BANDWIDTHS_MBIT.entries()) {
        pacedMs[String(mbit)] = (yield* timed(`http://127.0.0.1:${proxies[i]?.port}`, encoding)).ms
      }
      rows.push({ encoding, rows: loopback.rows, wireBytes: bytes, plainBytes, loopbackMs: loopback.ms, pacedMs })
    }
    return { date: new Date().toISOString(), pages, bandwidthsMbit: [...BANDWIDTHS_MBIT], rows }
  }))

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]).replace(/\.js$/, ".ts").endsWith(path.join("bench", "compression.ts"))
if (isMain) {
  const options = args()
  Effect.runPromise(compression(Number(options.pages ?? 5))).then((results) => {
    if (options.merge === "true") {
      const file = path.join(repoRoot, "bench", "results.json")
      writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), compression: results }, null, 2) + "\n")
    }
    if (options.emit === "true") emit(results)
    else process.stdout.write(`${JSON.stringify(results, null, 2)}\n`)
    process.exit(0)
  }, (error: unknown) => {
    process.stderr.write(`compression bench failed: ${String(error)}\n`)
    process.exit(1)
  })
}
