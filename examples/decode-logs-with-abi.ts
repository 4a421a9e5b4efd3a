/**
 * Decode a contract's event logs with its verified ABI: getabi → the events' topic0 (keccak-256 of
 * the signature) → getLogs → every log's indexed topics and data words decoded into named values.
 *
 *     npx tsx examples/decode-logs-with-abi.ts [outDir]
 *
 * Without an API key it runs on the embedded simulator, on its verified pool contract (the Swap
 * events it emits match the ABI it serves; the simulator's `verifiedContract`, the router, has no
 * events). With EXPLORER_API_KEY (or ETHERSCAN_API_KEY) it runs on the real API: EXAMPLE_CONTRACT
 * (default: the Uniswap V3 USDC/WETH 0.05% pool), EXAMPLE_CHAIN (default 1), over the last
 * EXAMPLE_BLOCKS blocks (default 100).
 *
 * The decoder is small and handles static types only — address, bool, uint<N>, int<N>, bytes<N> —
 * which covers most events; an event with a dynamic non-indexed input (string, bytes, arrays,
 * tuples) is listed as not decodable. Indexed dynamic inputs are kept as their topic (a hash).
 * For a proxy, getabi gives the proxy's own ABI, which may not declare the events its
 * implementation emits: those logs are counted as not decoded.
 *
 * Writes `<outDir>/decoded-logs.jsonl` (default outDir `out/examples`): one line per log with its
 * block, log index, transaction, event name and decoded arguments (integers as decimal strings).
 */
import { Clock, Effect, Option, Schema, Stream } from "effect"
import { ExplorerClient, Exports, Sources, Streams } from "explorer-etl"
import * as Pipeline from "explorer-etl/pipeline"

const LOGS = 500

// ---- keccak-256 (the Ethereum hash; not the NIST SHA3-256 that node:crypto offers) -----------------

const MASK = (1n << 64n) - 1n
const rol = (x: bigint, n: number): bigint => (n === 0 ? x : ((x << BigInt(n)) | (x >> BigInt(64 - n))) & MASK)

/** keccak-f[1600] on 25 lanes (the compact reference form: lane (x, y) at x + 5y). */
const permute = (a: Array<bigint>): void => {
  let lfsr = 1
  const roundBit = (): boolean => {
    const bit = (lfsr & 1) !== 0
    lfsr = (lfsr & 0x80) !== 0 ? ((lfsr << 1) ^ 0x71) & 0xff : (lfsr << 1) & 0xff
    return bit
  }
  const at = (x: number, y: number): bigint => a[x + 5 * y] ?? 0n
  for (let round = 0; round < 24; round++) {
    const c = [0, 1, 2, 3, 4].map((x) => at(x, 0) ^ at(x, 1) ^ at(x, 2) ^ at(x, 3) ^ at(x, 4))
    for (let x = 0; x < 5; x++) {
      const d = (c[(x + 4) % 5] ?? 0n) ^ rol(c[(x + 1) % 5] ?? 0n, 1)
      for (let y = 0; y < 5; y++) a[x + 5 * y] = at(x, y) ^ d
    }
    let x = 1
    let y = 0
    let current = at(x, y)
    for (let t = 0; t < 24; t++) {
      const next = (2 * x + 3 * y) % 5
      x = y
      y = next
      const saved = at(x, y)
      a[x + 5 * y] = rol(current, ((t + 1) * (t + 2) / 2) % 64)
      current = saved
    }
    for (let y = 0; y < 5; y++) {
      const row = [0, 1, 2, 3, 4].map((x) => at(x, y))
      for (let x = 0; x < 5; x++) {
        a[x + 5 * y] = (row[x] ?? 0n) ^ (~(row[(x + 1) % 5] ?? 0n) & MASK & (row[(x + 2) % 5] ?? 0n))
      }
    }
    for (let j = 0; j < 7; j++) if (roundBit()) a[0] = at(0, 0) ^ (1n << BigInt((1 << j) - 1))
  }
}

/** keccak-256 of a UTF-8 text, as 0x-prefixed hex. */
const keccak256 = (text: string): string => {
  const input = new TextEncoder().encode(text)
  const rate = 136
  const padded = new Uint8Array((Math.floor(input.length / rate) + 1) * rate)
  padded.set(input)
  padded[input.length] = (padded[input.length] ?? 0) ^ 0x01
  padded[padded.length - 1] = (padded[padded.length - 1] ?? 0) ^ 0x80
  const state = new Array<bigint>(25).fill(0n)
  for (let offset = 0; offset < padded.length; offset += rate) {
    for (let i = 0; i < rate / 8; i++) {
      let lane = 0n
      for (let b = 7; b >= 0; b--) lane = (lane << 8n) | BigInt(padded[offset + 8 * i + b] ?? 0)
      state[i] = (state[i] ?? 0n) ^ lane
    }
    permute(state)
  }
  let hex = "0x"
  for (let i = 0; i < 4; i++) {
    for (let b = 0; b < 8; b++) hex += Number(((state[i] ?? 0n) >> BigInt(8 * b)) & 0xffn).toString(16).padStart(2, "0")
  }
  return hex
}

// ---- the ABI's events and a decoder for static types ---------------------------------------------

const AbiItem = Schema.Struct({
  type: Schema.String,
  name: Schema.optional(Schema.String),
  anonymous: Schema.optional(Schema.Boolean),
  inputs: Schema.optional(Schema.Array(Schema.Struct({
    name: Schema.String,
    type: Schema.String,
    indexed: Schema.optional(Schema.Boolean)
  })))
})
const Abi = Schema.parseJson(Schema.Array(AbiItem))

interface EventInput {
  readonly name: string
  readonly type: string
  readonly indexed: boolean
}
interface AbiEvent {
  readonly name: string
  readonly signature: string
  readonly topic0: string
  readonly inputs: ReadonlyArray<EventInput>
  /** Every non-indexed input is a static type this decoder reads. */
  readonly decodable: boolean
}

const isStatic = (type: string): boolean =>
  type === "address" || type === "bool" || /^u?int(\d+)?$/.test(type) || /^bytes([1-9]|[12]\d|3[0-2])$/.test(type)

/** One 32-byte word (64 hex digits) as a value of a static type. */
const decodeWord = (type: string, word: string): string | boolean => {
  if (type === "address") return "0x" + word.slice(24)
  if (type === "bool") return BigInt("0x" + word) !== 0n
  const bytes = /^bytes(\d+)$/.exec(type)
  if (bytes !== null) return "0x" + word.slice(0, 2 * Number(bytes[1]))
  const value = BigInt("0x" + word)
  // int<N> values are sign-extended to 256 bits in topics and data alike.
  if (type.startsWith("int") && value >= 1n << 255n) return (value - (1n << 256n)).toString()
  return value.toString()
}

const eventsOf = (abi: ReadonlyArray<typeof AbiItem.Type>): ReadonlyArray<AbiEvent> =>
  abi.flatMap((item) => {
    if (item.type !== "event" || item.anonymous === true || item.name === undefined) return []
    const inputs = (item.inputs ?? []).map((i, k) => ({ name: i.name || `arg${k}`, type: i.type, indexed: i.indexed === true }))
    const signature = `${item.name}(${inputs.map((i) => i.type).join(",")})`
    return [{
      name: item.name,
      signature,
      topic0: keccak256(signature),
      inputs,
      decodable: inputs.every((i) => i.indexed || isStatic(i.type))
    }]
  })

/** The arguments of a log of `event`, by name. */
const decodeLog = (event: AbiEvent, topics: ReadonlyArray<string>, data: string): Record<string, string | boolean> => {
  const args: Record<string, string | boolean> = {}
  let topic = 1
  let word = 0
  for (const input of event.inputs) {
    if (input.indexed) {
      const t = (topics[topic++] ?? "").slice(2)
      args[input.name] = isStatic(input.type) ? decodeWord(input.type, t) : "0x" + t
    } else {
      args[input.name] = decodeWord(input.type, data.slice(2 + 64 * word, 2 + 64 * (word + 1)))
      word++
    }
  }
  return args
}

/** A line of decoded-logs.jsonl. */
const DecodedLog = Schema.Struct({
  blockNumber: Schema.Number,
  logIndex: Schema.Number,
  transactionHash: Schema.String,
  event: Schema.String,
  args: Schema.Record({ key: Schema.String, value: Schema.Union(Schema.String, Schema.Boolean) })
})

// ---- the notebook ----------------------------------------------------------------------------------

const UNISWAP_V3_USDC_WETH = "0x88e6A0c2dDD26FEEb64F039a2c41296FcB3f5640"

const program = Effect.gen(function*() {
  const outDir = process.argv[2] ?? "out/examples"
  const client = yield* ExplorerClient.ExplorerClient
  const demo = yield* Pipeline.DemoData
  const target = Option.isSome(demo)
    ? { chainId: 1, contract: demo.value.chain(1).heavyContract.address, fromBlock: demo.value.chain(1).activity.fromBlock }
    : yield* Effect.gen(function*() {
      const chainId = Number(process.env.EXAMPLE_CHAIN ?? 1)
      const now = yield* Clock.currentTimeMillis
      const latest = yield* client.getblocknobytime({ chainId, timestamp: Math.floor(now / 1000), closest: "before" })
      const fromBlock = Math.max(0, latest - Number(process.env.EXAMPLE_BLOCKS ?? 100))
      return { chainId, contract: process.env.EXAMPLE_CONTRACT ?? UNISWAP_V3_USDC_WETH, fromBlock }
    })

  // 1. The ABI and its events.
  const abiJson = yield* client.getabi({ chainId: target.chainId, address: target.contract })
  const events = eventsOf(yield* Schema.decodeUnknown(Abi)(abiJson))
  const byTopic = new Map(events.map((e) => [e.topic0, e]))
  console.log(`ABI of ${target.contract} (chain ${target.chainId}): ${events.length} event${events.length === 1 ? "" : "s"}`)
  for (const e of events) console.log(`  ${e.topic0.slice(0, 10)}…  ${e.signature}${e.decodable ? "" : "  (dynamic data: not decoded)"}`)

  // 2. Its logs (the first LOGS of the range) decoded.
  const logs = yield* Streams.logs({ chainId: target.chainId, address: target.contract, fromBlock: target.fromBlock }).pipe(
    Stream.take(LOGS),
    Stream.runCollect
  )
  const decoded: Array<typeof DecodedLog.Type> = []
  const counts = new Map<string, number>()
  let undecoded = 0
  for (const log of logs) {
    const event = byTopic.get(log.topics[0] ?? "")
    if (event === undefined || !event.decodable) {
      undecoded++
      continue
    }
    counts.set(event.name, (counts.get(event.name) ?? 0) + 1)
    decoded.push({
      blockNumber: log.blockNumber,
      logIndex: log.logIndex,
      transactionHash: log.transactionHash,
      event: event.name,
      args: decodeLog(event, log.topics, log.data)
    })
  }
  console.log(`\nDecoded ${decoded.length} of ${logs.length} logs from block ${target.fromBlock}:` +
    [...counts].map(([name, n]) => ` ${name} ×${n}`).join(",") + (undecoded > 0 ? `; ${undecoded} not decoded` : ""))
  for (const d of decoded.slice(0, 3)) {
    console.log(`  block ${d.blockNumber} log ${d.logIndex} ${d.event}(` +
      Object.entries(d.args).map(([k, v]) => `${k}=${String(v)}`).join(", ") + ")")
  }

  // 3. Saved as JSONL (with a manifest beside it).
  // Rows of our own making go into a file as the library's data sets do: as a source.
  const source = Sources.fromStream({
    dataset: "decodedLogs",
    chainId: target.chainId,
    plan: client.plan,
    query: { address: target.contract, fromBlock: target.fromBlock, logs: LOGS },
    schema: DecodedLog,
    rows: Stream.fromIterable(decoded)
  })
  const summary = yield* Exports.toFile(source, { out: `${outDir}/decoded-logs.jsonl`, quiet: true })
  console.log(`\nwrote ${summary.manifest.rows} decoded logs to ${summary.out}`)
})

Pipeline.runScript(program.pipe(Effect.provide(Pipeline.scriptLayer())))
