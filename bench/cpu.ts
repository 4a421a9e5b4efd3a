/**
 * The CPU path, measured on one core with the network out of the picture: answers are captured once
 * from the bench simulator (10,000-row txlist pages, 1,000-row getLogs pages, paged as the block cursor
 * pages them), then served from memory through an undici `MockAgent` behind the `HttpClient` exports use
 * (`NodeHttpClient` on undici), and, in alternating order, round after round on the very same bodies:
 *
 * - explorer-etl: `Exports.toFile` of `Sources.transactions` / `Sources.logs` — the real client (checks,
 *   limiter, classification, JSON.parse a slice at a time, every record checked by its schema's checks
 *   and turned into the file's line), the block cursor, the sinks, hashing, checkpoints and the manifest,
 *   to a file;
 * - baseline (the issue's): `JSON.parse` of each body, then csv-stringify of the raw `result` objects, to a
 *   file — the reference of both the CSV and the JSONL ratios;
 * - for JSONL also a stricter reference with no goal: `JSON.parse`, then one `JSON.stringify` per record;
 * - Parquet (`txs.parquet`, `logs.parquet`) and decoded events (`events.csv`, `events.parquet`: the log
 *   bodies' Swap events decoded by `Sources.events` with ox) through the same `Exports.toFile`, each also
 *   against explorer-etl's own CSV path of the same bodies (`vsCsv`, issue 15's goal: ≥ 0.5).
 *
 * Also the stages on their own, best of three passes (JSON.parse; the client's file records = parse +
 * classify + check; its typed call = parse + classify + decode; writing and encoding), to say what bounds
 * the path. Prints one BENCH_RESULT line (see bench/lib.ts).
 *
 * Args: --base-url URL --key KEY --tx-address A --log-address A --from-block N --latest N
 *       [--tx-pages 3] [--log-pages 30] [--rounds 3] --dir DIR
 *       [--only CASE,…] (cases: txs.csv txs.jsonl logs.csv logs.jsonl txs.parquet logs.parquet events.csv events.parquet)
 *       [--stages false] (to profile one case)
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { stringify } from "csv-stringify/sync"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { closeSync, openSync, rmSync, writeSync } from "node:fs"
import * as path from "node:path"
import * as Client from "../src/ExplorerClient.js"
import * as Exports from "../src/Exports.js"
import * as Schemas from "../src/schemas/index.js"
import * as Format from "../src/sinks/Format.js"
import * as Sources from "../src/streams/Sources.js"
import { arg, args, emit, median, peakRssMb, round } from "./lib.js"
import { capture, type Captured, type Dataset, replay, REPLAY_ORIGIN } from "./replay.js"

const a = args()
const baseUrl = arg(a, "base-url")
const key = arg(a, "key")
const chainId = 1
const fromBlock = Number(arg(a, "from-block"))
const latest = Number(arg(a, "latest"))
const txPages = Number(a["tx-pages"] ?? "3")
const logPages = Number(a["log-pages"] ?? "30")
const rounds = Number(a.rounds ?? "3")
const dir = arg(a, "dir")

type FileFormat = "csv" | "jsonl"
/** What a case exports: a data set, or the log bodies decoded as events. */
type Exported = Dataset | "events"
type ExportFormat = FileFormat | "parquet"

/** The heavy contract's Swap event (the simulator's pool emits it): what the `events` cases decode by. */
const SWAP = "Swap(address indexed sender,address indexed recipient,int256 amount0,int256 amount1,uint160 sqrtPriceX96,uint128 liquidity,int24 tick)"

const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const t0 = performance.now()
    const value = yield* effect
    return { value, seconds: (performance.now() - t0) / 1000 }
  })

/** The baseline: JSON.parse, then csv-stringify of the raw records or JSON.stringify per line, to a file. */
const baseline = (bodies: ReadonlyArray<Buffer>, format: FileFormat, out: string) => {
  const t0 = performance.now()
  const fd = openSync(out, "w")
  let rows = 0
  let first = true
  for (const body of bodies) {
    const result = (JSON.parse(body.toString("utf8")) as { result: ReadonlyArray<Record<string, unknown>> }).result
    let text: string
    if (format === "csv") {
      text = stringify(result as Array<Record<string, unknown>>, { header: first })
    } else {
      text = ""
      for (const r of result) text += JSON.stringify(r) + "\n"
    }
    first = false
    writeSync(fd, text)
    rows += result.length
  }
  closeSync(fd)
  return { rows, seconds: (performance.now() - t0) / 1000 }
}

const program = (captured: Record<Dataset, Captured>) => Effect.gen(function*() {
  const client = yield* Client.ExplorerClient
  const sources = {
    txs: yield* Sources.transactions({ chainId, address: arg(a, "tx-address"), fromBlock, toBlock: latest }),
    logs: yield* Sources.logs({ chainId, address: arg(a, "log-address"), fromBlock, toBlock: latest }),
    // A full signature needs no ABI; the replayed answers ignore the topic0 filter it adds (every log is a Swap).
    events: yield* Sources.events({ chainId, address: arg(a, "log-address"), abi: [], event: SWAP, fromBlock, toBlock: latest })
  }
  const explorer = (dataset: Exported, format: ExportFormat) =>
    Effect.gen(function*() {
      const out = path.join(dir, `cpu-${dataset}.${format}`)
      const source: Sources.Source<unknown, unknown> = sources[dataset] as unknown as Sources.Source<unknown, unknown>
      const { seconds, value } = yield* timed(Exports.toFile(source, { out, quiet: true, workers: 0, concurrency: 1 }))
      return { rows: value.rowsWritten, seconds }
    })

  const samples: Record<string, { explorer: Array<number>; baseline: Array<number>; strict: Array<number> }> = {}
  for (let r = 0; r < rounds; r++) {
    const only = a.only
    const cases = ([
      ["txs", "csv"], ["txs", "jsonl"], ["logs", "csv"], ["logs", "jsonl"],
      ["txs", "parquet"], ["logs", "parquet"], ["events", "csv"], ["events", "parquet"]
    ] as const).filter(
      ([d, f]) => only === undefined || only.split(",").includes(`${d}.${f}`)
    )
    for (const [dataset, format] of r % 2 === 0 ? cases : [...cases].reverse()) {
      const name = `${dataset}.${format}`
      const s = (samples[name] ??= { explorer: [], baseline: [], strict: [] })
      const runExplorer = Effect.map(explorer(dataset, format), (x) => void s.explorer.push(x.rows / x.seconds))
      const bodies = captured[dataset === "events" ? "logs" : dataset].list
      const runBaseline = Effect.sync(() => {
        const b = baseline(bodies, "csv", path.join(dir, `base-${dataset}.csv`))
        s.baseline.push(b.rows / b.seconds)
        if (format === "jsonl") {
          const j = baseline(bodies, "jsonl", path.join(dir, `base-${dataset}.jsonl`))
          s.strict.push(j.rows / j.seconds)
        }
      })
      // Alternate which goes first, so warm-up and GC debt do not always favour the same side.
      if ((r + (dataset === "txs" ? 0 : 1)) % 2 === 0) yield* Effect.zipRight(runExplorer, runBaseline)
      else yield* Effect.zipRight(runBaseline, runExplorer)
    }
  }

  // Stages on their own, on the same bodies: the best of three passes each (a stage is short, so one
  // pass is at the mercy of a GC or a neighbour).
  const PASSES = a.stages === "false" ? 0 : 3
  const best = (seconds: ReadonlyArray<number>): number => Math.min(...seconds)
  const stage = (f: () => void): number => {
    const t0 = performance.now()
    f()
    return (performance.now() - t0) / 1000
  }
  const stages: Record<string, Record<string, number>> = {}
  for (const dataset of ["txs", "logs"] as const) {
    const c = captured[dataset]
    const schema = sources[dataset].schema as Sources.Source<unknown, unknown>["schema"]
    const parse = () => c.list.map((b) => (JSON.parse(b.toString("utf8")) as { result: ReadonlyArray<Record<string, unknown>> }).result)
    const parsed = parse()
    const call = Effect.forEach(c.keys, ([start, page]): Effect.Effect<ReadonlyArray<unknown>, unknown> =>
      dataset === "txs"
        ? client.txlist({ chainId, address: arg(a, "tx-address"), startBlock: start, endBlock: latest, page, offset: 10_000, sort: "asc" })
        : client.getLogs({ chainId, address: arg(a, "log-address"), fromBlock: start, toBlock: latest, page, offset: 1_000 }))
    // What exports call: the records in the file's encoding, checked on the wire, never decoded.
    const fileCall = Effect.forEach(c.keys, ([start, page]): Effect.Effect<ReadonlyArray<unknown>, unknown> =>
      dataset === "txs"
        ? client.fileRecords("txlist", { chainId, address: arg(a, "tx-address"), startBlock: start, endBlock: latest, page, offset: 10_000, sort: "asc" }, Schemas.NormalTransaction)
        : client.fileRecords("getLogs", { chainId, address: arg(a, "log-address"), fromBlock: start, toBlock: latest, page, offset: 1_000 }, Schemas.LogFileRow))
    const decoded = yield* call
    const fileRows = yield* fileCall
    const csv = yield* Format.encoder(schema, { format: "csv" })
    const jsonl = yield* Format.encoder(schema, { format: "jsonl" })
    const csvEncoded = yield* Format.encodedEncoder(schema, { format: "csv" })
    const jsonlEncoded = yield* Format.encodedEncoder(schema, { format: "jsonl" })
    const encodeAll = (encoder: Format.RowEncoder<unknown>, pages: ReadonlyArray<ReadonlyArray<unknown>>) =>
      timed(Effect.forEach(pages, (page) => encoder.encode(page), { discard: true }))
    const seconds = {
      parse: [] as Array<number>,
      call: [] as Array<number>,
      fileCall: [] as Array<number>,
      csv: [] as Array<number>,
      jsonl: [] as Array<number>,
      csvEncoded: [] as Array<number>,
      jsonlEncoded: [] as Array<number>,
      stringify: [] as Array<number>,
      line: [] as Array<number>
    }
    for (let pass = 0; pass < PASSES; pass++) {
      seconds.parse.push(stage(() => void parse()))
      seconds.call.push((yield* timed(call)).seconds)
      seconds.fileCall.push((yield* timed(fileCall)).seconds)
      seconds.csv.push((yield* encodeAll(csv, decoded)).seconds)
      seconds.jsonl.push((yield* encodeAll(jsonl, decoded)).seconds)
      seconds.csvEncoded.push((yield* encodeAll(csvEncoded, fileRows)).seconds)
      seconds.jsonlEncoded.push((yield* encodeAll(jsonlEncoded, fileRows)).seconds)
      seconds.stringify.push(stage(() => {
        for (const p of parsed) stringify(p as Array<Record<string, unknown>>)
      }))
      seconds.line.push(stage(() => {
        for (const p of parsed) for (const r of p) JSON.stringify(r)
      }))
    }
    const rows = decoded.reduce((n, p) => n + p.length, 0)
    stages[dataset] = {
      rows,
      jsonParse: round(rows / best(seconds.parse)),
      clientCall: round(rows / best(seconds.call)),
      fileRecords: round(rows / best(seconds.fileCall)),
      encodeCsv: round(rows / best(seconds.csv)),
      encodeJsonl: round(rows / best(seconds.jsonl)),
      writeCsv: round(rows / best(seconds.csvEncoded)),
      writeJsonl: round(rows / best(seconds.jsonlEncoded)),
      csvStringify: round(rows / best(seconds.stringify)),
      jsonStringify: round(rows / best(seconds.line))
    }
  }
  rmSync(path.join(dir, "cpu-txs.csv"), { force: true })

  const cases = Object.fromEntries(
    Object.entries(samples).map(([name, s]) => {
      const explorerRate = median(s.explorer)
      const baselineRate = median(s.baseline)
      const strictRate = s.strict.length === 0 ? undefined : median(s.strict)
      // Each round runs both sides back to back: the ratio is the median of the rounds' own ratios, so a
      // slow spell of the machine (CPU steal on a shared VM) weighs on both sides of a ratio at once.
      const paired = (other: ReadonlyArray<number>) => median(s.explorer.map((x, i) => x / (other[i] as number)))
      // Parquet and decoded events against explorer-etl's own CSV path of the same bodies, round by round.
      const [dataset, format] = name.split(".") as [Exported, ExportFormat]
      const csvPath = samples[`${dataset === "events" ? "logs" : dataset}.csv`]?.explorer
      const vsCsv = (format === "parquet" || dataset === "events") && csvPath !== undefined ? round(paired(csvPath), 2) : undefined
      return [name, {
        explorer: round(explorerRate),
        baseline: round(baselineRate),
        ratio: round(paired(s.baseline), 2),
        ...(vsCsv === undefined ? {} : { vsCsv }),
        ...(strictRate === undefined ? {} : { strict: round(strictRate), strictRatio: round(paired(s.strict), 2) }),
        explorerSamples: s.explorer.map((x) => round(x)),
        baselineSamples: s.baseline.map((x) => round(x)),
        ...(strictRate === undefined ? {} : { strictSamples: s.strict.map((x) => round(x)) })
      }]
    })
  )
  return {
    captured: {
      txs: { pages: captured.txs.list.length, rows: captured.txs.rows, bytes: captured.txs.bytes },
      logs: { pages: captured.logs.list.length, rows: captured.logs.rows, bytes: captured.logs.bytes }
    },
    rounds,
    cases,
    stages,
    peakRssMb: round(peakRssMb())
  }
})

const at = { baseUrl, key, chainId, fromBlock, latest }

const main = Effect.gen(function*() {
  const captured: Record<Dataset, Captured> = {
    txs: yield* Effect.promise(() => capture(at, "txs", arg(a, "tx-address"), txPages, 10_000)),
    logs: yield* Effect.promise(() => capture(at, "logs", arg(a, "log-address"), logPages, 1_000))
  }
  const ClientLive = Client.layer({
    apiKey: Redacted.make(key),
    baseUrl: REPLAY_ORIGIN,
    plan: "standard",
    // The limiter is not what is measured here.
    rate: { callsPerSecond: 1_000_000, throttledPerSecond: 1_000_000 }
  }).pipe(Layer.provide(replay(captured, latest)))
  return yield* program(captured).pipe(Effect.provide(Layer.merge(ClientLive, NodeContext.layer)))
})

Effect.runPromise(main).then(emit, (error: unknown) => {
  process.stderr.write(`${String(error)}\n`)
  process.exit(1)
})
