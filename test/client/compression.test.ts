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
import { request as httpRequest } from "node:http"
import { brotliDecompressSync, gunzipSync } from "node:zlib"
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
