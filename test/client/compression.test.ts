/**
 * Compressed answers, both ways, over real sockets: the simulator compresses with gzip or br when the
 * request's Accept-Encoding asks and answers plain text when it does not; the client asks for it and
 * reads the same records and writes the same export bytes as without it, through undici (which hands
 * over the compressed bytes) and fetch (which decodes them itself and keeps the header).
 */
import { FetchHttpClient, FileSystem, HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import * as F from "./fixtures.js"
import { createServer, request as httpRequest } from "node:http"
import { brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib"
import { ExplorerClient, Exports, Sources } from "explorer-etl"
import * as Simulator from "../../src/simulator/index.js"

const CHAIN = 1

const SimulatorLive = Simulator.layer({
  seed: 5,
  enforceRateLimits: false,
  dailyCaps: false,
  dataset: { chains: [CHAIN], busyWalletTransactions: 2_500, heavyContractLogs: 0 }
})

/** One raw GET on node:http (no decoding), with its headers and the bytes as they came. */
const rawGet = (url: string, acceptEncoding: string | undefined) =>
  Effect.async<{ readonly headers: Record<string, string | Array<string> | undefined>; readonly body: Buffer }, Error>((resume) => {
    const req = httpRequest(url, { headers: acceptEncoding === undefined ? {} : { "accept-encoding": acceptEncoding } }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => resume(Effect.succeed({ headers: res.headers, body: Buffer.concat(chunks) })))
      res.on("error", (e) => resume(Effect.fail(e)))
    })
    req.on("error", (e) => resume(Effect.fail(e)))
    req.end()
  })

/**
 * A client on the simulator: `compressed` false sends `Accept-Encoding: identity` (so the server answers
 * plain); every answer's Content-Encoding is recorded in `seen`.
 */
const clientOn = (sim: Simulator.Simulator.Service, compressed: boolean, seen: Array<string>) =>
  ExplorerClient.make({
    baseUrl: sim.baseUrl,
    apiKey: Redacted.make(sim.demoKeys.standard),
    plan: "standard",
    defaultChainId: CHAIN,
    rate: { callsPerSecond: 1_000, throttledPerSecond: 1_000 },
    transformClient: (client) =>
      client.pipe(
        compressed ? (c) => c : HttpClient.mapRequest(HttpClientRequest.setHeader("accept-encoding", "identity")),
        HttpClient.tap((response) => Effect.sync(() => void seen.push(response.headers["content-encoding"] ?? "identity")))
      )
  })

/** How many txlist rows the busy wallet has. */
const txCount = (sim: Simulator.Simulator.Service) =>
  Effect.orDie(sim.oracleCount({
    chainId: CHAIN, module: "account", action: "txlist", params: { address: sim.dataset.chain(CHAIN).busyWallet.address }
  }))

layer(Layer.merge(SimulatorLive, NodeContext.layer), { timeout: "120 seconds", excludeTestServices: true })("compression", (it) => {
  it.effect("the simulator answers gzip or br when asked, plain text when not; the decoded bytes are the plain ones", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallet = sim.dataset.chain(CHAIN).busyWallet.address
      const url = `${sim.baseUrl}/v2/api?chainid=${CHAIN}&module=account&action=txlist&address=${wallet}&apikey=${sim.demoKeys.standard}`
      const plain = yield* rawGet(url, undefined)
      expect(plain.headers["content-encoding"]).toBeUndefined()
      const text = plain.body.toString("utf8")
      expect(JSON.parse(text).result).toHaveLength(yield* txCount(sim))
      const gzip = yield* rawGet(url, "gzip")
      expect(gzip.headers["content-encoding"]).toBe("gzip")
      expect(gzip.headers.vary).toBe("Accept-Encoding")
      expect(gunzipSync(gzip.body).toString("utf8")).toBe(text)
      const br = yield* rawGet(url, "gzip, deflate, br")
      expect(br.headers["content-encoding"]).toBe("br")
      expect(brotliDecompressSync(br.body).toString("utf8")).toBe(text)
      expect(br.body.length).toBeLessThan(text.length / 5)
      // Refused codings are not used; one it does not speak leaves the answer plain.
      expect((yield* rawGet(url, "br;q=0, gzip")).headers["content-encoding"]).toBe("gzip")
      expect((yield* rawGet(url, "identity")).headers["content-encoding"]).toBeUndefined()
      expect((yield* rawGet(url, "deflate")).headers["content-encoding"]).toBeUndefined()
      // An error answer too.
      const refused = yield* rawGet(url.replace(sim.demoKeys.standard, "NOSUCHKEY"), "gzip")
      expect(JSON.parse(gunzipSync(refused.body).toString("utf8")).message).toBe("NOTOK")
    }))

  for (const [name, transport] of [["undici", NodeHttpClient.layerUndici], ["fetch", FetchHttpClient.layer]] as const) {
    it.effect(`${name}: a page read compressed equals the plain one, and list answers come compressed`, () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const wallet = sim.dataset.chain(CHAIN).busyWallet.address
        const seenPlain: Array<string> = []
        const seenCompressed: Array<string> = []
        const plain = yield* clientOn(sim, false, seenPlain)
        const compressed = yield* clientOn(sim, true, seenCompressed)
        const rowsPlain = yield* plain.txlist({ address: wallet })
        const rowsCompressed = yield* compressed.txlist({ address: wallet })
        expect(rowsPlain).toHaveLength(yield* txCount(sim))
        expect(rowsCompressed).toEqual(rowsPlain)
        // A single value and a proxy answer too.
        expect(yield* compressed.balance({ address: wallet })).toEqual(yield* plain.balance({ address: wallet }))
        expect(yield* compressed.eth_blockNumber()).toEqual(yield* plain.eth_blockNumber())
        expect(seenPlain).toEqual(["identity", "identity", "identity"])
        expect(seenCompressed).toEqual(["br", "br", "br"])
      }).pipe(Effect.scoped, Effect.provide(transport)))
  }

  it.effect("an export written from compressed answers is byte-identical to one from plain answers", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const fs = yield* FileSystem.FileSystem
      const folder = yield* fs.makeTempDirectoryScoped({ prefix: "compression-" })
      const wallet = sim.dataset.chain(CHAIN).busyWallet.address
      const exportWith = (compressed: boolean, out: string) =>
        Effect.gen(function*() {
          const seen: Array<string> = []
          const client = yield* clientOn(sim, compressed, seen)
          const source = yield* Sources.transactions({ address: wallet }).pipe(Effect.provideService(ExplorerClient.ExplorerClient, client))
          const summary = yield* Exports.toFile(source, { out, quiet: true }).pipe(Effect.provideService(ExplorerClient.ExplorerClient, client))
          return { summary, seen }
        })
      const plain = yield* exportWith(false, `${folder}/plain.csv`)
      const compressed = yield* exportWith(true, `${folder}/compressed.csv`)
      const total = yield* txCount(sim)
      expect(plain.summary.rowsWritten).toBe(total)
      expect(compressed.summary.rowsWritten).toBe(total)
      expect(plain.seen.every((e) => e === "identity")).toBe(true)
      expect(compressed.seen.length).toBeGreaterThan(1)
      expect(compressed.seen.every((e) => e === "br")).toBe(true)
      const a = yield* fs.readFile(`${folder}/plain.csv`)
      const b = yield* fs.readFile(`${folder}/compressed.csv`)
      expect(Buffer.from(b).equals(Buffer.from(a))).toBe(true)
      expect(compressed.summary.manifest.contentHash).toBe(plain.summary.manifest.contentHash)
    }).pipe(Effect.scoped, Effect.provide(NodeHttpClient.layerUndici)))
})

layer(NodeHttpClient.layerUndici, { timeout: "30 seconds", excludeTestServices: true })("compression: a body that does not decode", (it) => {
  it.effect("a cut gzip body is a transient error, retried until a whole one", () =>
    Effect.gen(function*() {
      const body = gzipSync(JSON.stringify({
        status: "1",
        message: "OK",
        result: [{
          blockNumber: "1", timeStamp: "1", hash: `0x${"1".repeat(64)}`, nonce: "0", blockHash: `0x${"2".repeat(64)}`,
          transactionIndex: "0", from: F.ADDRESS, to: F.ADDRESS, value: "0", gas: "21000", gasPrice: "1",
          isError: "0", txreceipt_status: "1", input: "0x", contractAddress: "", cumulativeGasUsed: "21000",
          gasUsed: "21000", confirmations: "1", methodId: "0x", functionName: ""
        }]
      }))
      let requests = 0
      const server = yield* Effect.acquireRelease(
        Effect.async<ReturnType<typeof createServer>>((resume) => {
          const srv = createServer((_req, res) => {
            requests++
            res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" })
            res.end(requests === 1 ? body.subarray(0, Math.floor(body.length / 2)) : body)
          })
          srv.listen(0, "127.0.0.1", () => resume(Effect.succeed(srv)))
        }),
        (srv) => Effect.sync(() => srv.close())
      )
      const port = (server.address() as { port: number }).port
      const client = yield* ExplorerClient.make({
        baseUrl: `http://127.0.0.1:${port}`,
        apiKey: Redacted.make("CUTGZIPKEY"),
        rate: { callsPerSecond: 500 },
        retry: { times: 3, baseDelay: "5 millis", maxDelay: "20 millis" }
      })
      const rows = yield* client.txlist({ address: F.ADDRESS })
      expect(rows).toHaveLength(1)
      expect(requests).toBe(2)
      expect((yield* client.stats).retries).toBe(1)
    }).pipe(Effect.scoped))
})
