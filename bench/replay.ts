/**
 * Answers captured once from the bench simulator and replayed in-process (bench/cpu.ts, bench/workers.ts):
 * the CPU path measured with the network, and the simulator, out of the picture.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Undici from "@effect/platform-node/Undici"
import * as Layer from "effect/Layer"
import { lowerBound } from "../src/simulator/rowIndex.js"
import { nextCursorPage } from "./lib.js"

/** The data sets captured: 10,000-row txlist pages, 1,000-row getLogs pages. */
export type Dataset = "txs" | "logs"

/** Where and what to capture from. */
export interface CaptureAt {
  readonly baseUrl: string
  readonly key: string
  readonly chainId: number
  readonly fromBlock: number
  readonly latest: number
}

export interface Captured {
  /** Bodies by `${startBlock}:${page}`, the way the block cursor asks for them. */
  readonly bodies: Map<string, Buffer>
  /** In capture order, for the baseline and the stages. */
  readonly list: ReadonlyArray<Buffer>
  /** The start block and page of each body, in capture order. */
  readonly keys: ReadonlyArray<readonly [start: number, page: number]>
  readonly rows: number
  readonly bytes: number
}

/** Pages a query the way the block cursor does (the next page while the window holds it, else a new query at the last block) and keeps the bodies. */
export const capture = async (at: CaptureAt, dataset: Dataset, address: string, pages: number, cap: number): Promise<Captured> => {
  const { baseUrl, chainId, fromBlock, key, latest } = at
  const bodies = new Map<string, Buffer>()
  const list: Array<Buffer> = []
  const keys: Array<readonly [number, number]> = []
  let start = fromBlock
  let page = 1
  let rows = 0
  let bytes = 0
  for (let i = 0; i < pages; i++) {
    const url = dataset === "txs"
      ? `${baseUrl}/v2/api?chainid=${chainId}&module=account&action=txlist&address=${address}&startblock=${start}&endblock=${latest}&page=${page}&offset=${cap}&sort=asc&apikey=${key}`
      : `${baseUrl}/v2/api?chainid=${chainId}&module=logs&action=getLogs&address=${address}&fromBlock=${start}&toBlock=${latest}&page=${page}&offset=${cap}&apikey=${key}`
    const body = Buffer.from(await (await fetch(url)).arrayBuffer())
    const result = (JSON.parse(body.toString("utf8")) as { result: ReadonlyArray<{ blockNumber: string }> }).result
    if (!Array.isArray(result) || result.length === 0) break
    bodies.set(`${start}:${page}`, body)
    list.push(body)
    keys.push([start, page])
    rows += result.length
    bytes += body.length
    if (result.length < cap) break
    // The paid plans' result window: 10,000 rows (txlist's 10,000-row pages each start a new query).
    ;({ page, start } = nextCursorPage(start, page, Number((result[result.length - 1] as { blockNumber: string }).blockNumber), cap, 10_000))
  }
  return { bodies, list, keys, rows, bytes }
}

const EMPTY = Buffer.from("{\"status\":\"0\",\"message\":\"No transactions found\",\"result\":[]}")

export const REPLAY_ORIGIN = "http://replay.invalid"

/**
 * An in-process explorer answering from the captured bodies (unknown pages: an empty answer), behind the
 * very `HttpClient` exports use (`NodeHttpClient` on undici): an undici `MockAgent` hands each body over as
 * the network would, so the client reads it as it reads a real answer.
 */
export const replay = (captured: Record<Dataset, Captured>, latest: number) =>
  Layer.sync(HttpClient.HttpClient, () => {
    const agent = new Undici.MockAgent({ connections: 1 })
    agent.disableNetConnect()
    agent.get(REPLAY_ORIGIN).intercept({ path: () => true, method: "GET" }).reply((request) => {
      const p = new URL(request.path, REPLAY_ORIGIN).searchParams
      const action = p.get("action")
      let body: Buffer
      if (action === "getblocknobytime") body = Buffer.from(`{"status":"1","message":"OK","result":"${latest}"}`)
      else if (action === "txlist") body = captured.txs.bodies.get(`${p.get("startblock")}:${p.get("page")}`) ?? EMPTY
      else body = captured.logs.bodies.get(`${p.get("fromBlock")}:${p.get("page")}`) ?? EMPTY
      return { statusCode: 200, data: body, responseOptions: { headers: { "content-type": "application/json" } } }
    }).persist()
    return NodeHttpClient.makeUndici(agent)
  })


/**
 * Records captured once, each as its JSON text (the simulator's oracle: one wire record per line, in
 * block order), from which {@link replayRanges} answers any block range and page.
 */
export interface CapturedRecords {
  readonly texts: ReadonlyArray<string>
  /** The block of each record (ascending). */
  readonly blocks: Int32Array
}

/** Reads an oracle file (one record per line) as {@link CapturedRecords}. */
export const recordsOf = (lines: ReadonlyArray<string>): CapturedRecords => ({
  texts: lines,
  blocks: Int32Array.from(lines, (line) => Number((JSON.parse(line) as { blockNumber: string }).blockNumber))
})

/**
 * An in-process explorer answering any range and page of the captured records (what partitions ask),
 * behind the very `HttpClient` exports use, as {@link replay} does. Each body is put together from the records' texts once and kept, so that the
 * rounds after the first are served from memory as captured answers are.
 */
export const replayRanges = (records: Record<Dataset, CapturedRecords>, latest: number) =>
  Layer.sync(HttpClient.HttpClient, () => {
    const agent = new Undici.MockAgent({ connections: 8 })
    agent.disableNetConnect()
    const bodies = new Map<string, Buffer>()
    const answer = (p: URLSearchParams): Buffer => {
      const action = p.get("action")
      if (action === "getblocknobytime") return Buffer.from(`{"status":"1","message":"OK","result":"${latest}"}`)
      const dataset: Dataset = action === "txlist" ? "txs" : "logs"
      const from = Number(p.get(dataset === "txs" ? "startblock" : "fromBlock") ?? "0")
      const to = Number(p.get(dataset === "txs" ? "endblock" : "toBlock") ?? String(latest))
      const page = Number(p.get("page") ?? "1")
      const offset = Number(p.get("offset") ?? "1000")
      const key = `${dataset}:${from}:${to}:${page}:${offset}`
      const known = bodies.get(key)
      if (known !== undefined) return known
      const r = records[dataset]
      const first = lowerBound(r.blocks, from)
      const end = lowerBound(r.blocks, to + 1)
      const texts = r.texts.slice(Math.min(end, first + (page - 1) * offset), Math.min(end, first + page * offset))
      const body = Buffer.from(
        texts.length === 0
          ? `{"status":"0","message":"${dataset === "txs" ? "No transactions found" : "No records found"}","result":[]}`
          : `{"status":"1","message":"OK","result":[${texts.join(",")}]}`
      )
      bodies.set(key, body)
      return body
    }
    agent.get(REPLAY_ORIGIN).intercept({ path: () => true, method: "GET" }).reply((request) => ({
      statusCode: 200,
      data: answer(new URL(request.path, REPLAY_ORIGIN).searchParams),
      responseOptions: { headers: { "content-type": "application/json" } }
    })).persist()
    return NodeHttpClient.makeUndici(agent)
  })
