/**
 * Decode a contract's event logs with its verified ABI: getabi → the library's decoder (ox's
 * `AbiEvent.decode` beneath, `Events.decoder`) → getLogs → every log's indexed topics and data decoded
 * into named values.
 *
 *     npx tsx examples/decode-logs-with-abi.ts [outDir]
 *
 * Without an API key it runs on the embedded simulator, on its verified pool contract (the Swap
 * events it emits match the ABI it serves; the simulator's `verifiedContract`, the router, has no
 * events). With EXPLORER_API_KEY (or ETHERSCAN_API_KEY) it runs on the real API: EXAMPLE_CONTRACT
 * (default: the Uniswap V3 USDC/WETH 0.05% pool), EXAMPLE_CHAIN (default 1), over the last
 * EXAMPLE_BLOCKS blocks (default 100).
 *
 * Every type the ABI can declare is decoded (integers as decimal strings, addresses lower-case, arrays
 * and tuples as JSON); a log whose topic0 the ABI does not declare, or whose indexed arguments do not
 * fit it, is counted as not decoded. For a proxy, getabi gives the proxy's own ABI, which may not
 * declare the events its implementation emits (`Events.fetchAbi` follows the proxy; the `events` data
 * set does it for you: `explorer-etl export events --abi auto`).
 *
 * Writes `<outDir>/decoded-logs.jsonl` (default outDir `out/examples`): one line per decoded log with
 * its block, log index, transaction, event name and decoded arguments.
 */
import { Clock, Effect, Option, Schema, Stream } from "effect"
import { Events, ExplorerClient, Exports, Sources, Streams } from "explorer-etl"
import * as Pipeline from "explorer-etl/pipeline"

const LOGS = 500

/** A line of decoded-logs.jsonl. */
const DecodedLog = Schema.Struct({
  blockNumber: Schema.Number,
  logIndex: Schema.Number,
  transactionHash: Schema.String,
  event: Schema.String,
  args: Schema.Record({ key: Schema.String, value: Schema.Unknown })
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

  // 1. The ABI and its events: one decoder for all of them, and one per event for its topic0.
  const abiJson = yield* client.getabi({ chainId: target.chainId, address: target.contract })
  const decoder = yield* Events.decoder(abiJson, { chainId: target.chainId })
  console.log(`ABI of ${target.contract} (chain ${target.chainId}): ${decoder.events.length} event${decoder.events.length === 1 ? "" : "s"}`)
  for (const event of decoder.events) {
    // A name the ABI overloads (two events of one name) is listed without its topic0.
    const one = yield* Effect.option(Events.decoder(abiJson, { event: event.name, chainId: target.chainId }))
    console.log(Option.match(one, {
      onNone: () => `  (overloaded)   ${event.name}`,
      onSome: (d) => `  ${(d.topic0 ?? "").slice(0, 10)}…  ${d.signature ?? event.name}`
    }))
  }

  // 2. Its logs (the first LOGS of the range) decoded.
  const rows = yield* Streams.logs({ chainId: target.chainId, address: target.contract, fromBlock: target.fromBlock }).pipe(
    Stream.take(LOGS),
    Events.decodeLogs(decoder),
    Stream.runCollect
  )
  const decoded: Array<typeof DecodedLog.Type> = []
  const counts = new Map<string, number>()
  let undecoded = 0
  for (const row of rows) {
    // A log the ABI cannot decode keeps its raw topics and data, with an empty event name.
    if (row.event === "") {
      undecoded++
      continue
    }
    counts.set(row.event, (counts.get(row.event) ?? 0) + 1)
    decoded.push({
      blockNumber: row.blockNumber,
      logIndex: row.logIndex,
      transactionHash: row.transactionHash,
      event: row.event,
      args: (row.args ?? {}) as Readonly<Record<string, unknown>>
    })
  }
  console.log(`\nDecoded ${decoded.length} of ${rows.length} logs from block ${target.fromBlock}:` +
    [...counts].map(([name, n]) => ` ${name} ×${n}`).join(",") + (undecoded > 0 ? `; ${undecoded} not decoded` : ""))
  for (const d of decoded.slice(0, 3)) {
    console.log(`  block ${d.blockNumber} log ${d.logIndex} ${d.event}(` +
      Object.entries(d.args).map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`).join(", ") + ")")
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
