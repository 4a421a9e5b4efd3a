/**
 * Gas used per day over the last days, as a small text chart, saved to CSV.
 *
 *     npx tsx examples/gas-per-day.ts [outDir]
 *
 * Without an API key it runs on the embedded simulator (its last complete days, up to 2025-09-30).
 * With EXPLORER_API_KEY (or ETHERSCAN_API_KEY) it runs on the real API — dailygasused needs a PRO plan,
 * set EXPLORER_PLAN (e.g. `standard`) — on EXAMPLE_CHAIN (default 1), for the EXAMPLE_DAYS (default 14)
 * complete UTC days before today.
 *
 * Writes `<outDir>/gas-per-day.csv` and its manifest (default outDir `out/examples`): UTCDate,
 * unixTimeStamp, gasUsed.
 */
import { Chunk, Clock, Effect, Option, Stream } from "effect"
import { ExplorerClient, Exports, Schemas, Sources, Streams } from "explorer-etl"
import * as Pipeline from "explorer-etl/pipeline"

const DAY = 86_400
const BAR = 40

const utcDate = (unixSeconds: number): string => new Date(unixSeconds * 1000).toISOString().slice(0, 10)

const program = Effect.gen(function*() {
  const outDir = process.argv[2] ?? "out/examples"
  const client = yield* ExplorerClient.ExplorerClient
  const demo = yield* Pipeline.DemoData
  const days = Number(process.env.EXAMPLE_DAYS ?? 14)
  const chainId = Option.isSome(demo) ? 1 : Number(process.env.EXAMPLE_CHAIN ?? 1)
  // The last complete UTC day is the day before the simulator's latest block, or before today.
  const today = Option.isSome(demo)
    ? Math.floor(demo.value.chain(1).timestampOf(demo.value.chain(1).latestBlock) / DAY)
    : Math.floor((yield* Clock.currentTimeMillis) / 1000 / DAY)
  const startDate = utcDate((today - days) * DAY)
  const endDate = utcDate((today - 1) * DAY)

  const rows = Chunk.toReadonlyArray(yield* Stream.runCollect(Streams.dailyGasUsed({ chainId, startDate, endDate })))

  console.log(`Gas used per day on chain ${chainId}, ${startDate} .. ${endDate} (Ggas = 10^9 gas):\n`)
  const max = rows.reduce((m, r) => (r.gasUsed > m ? r.gasUsed : m), 0n)
  for (const r of rows) {
    const width = max === 0n ? 0 : Number((r.gasUsed * BigInt(BAR)) / max)
    const ggas = (Number(r.gasUsed / 1_000_000n) / 1000).toFixed(1)
    console.log(`${r.UTCDate}  ${"█".repeat(width).padEnd(BAR)}  ${ggas.padStart(7)} Ggas`)
  }
  const total = rows.reduce((sum, r) => sum + r.gasUsed, 0n)
  if (rows.length > 0) {
    console.log(`\naverage ${(Number(total / BigInt(rows.length) / 1_000_000n) / 1000).toFixed(1)} Ggas per day over ${rows.length} days`)
  }

  // The rows read above, already in memory, go into the file as a source of their own (not read twice).
  const source = Sources.fromStream({
    dataset: "dailyGasUsed",
    chainId,
    plan: client.plan,
    query: { startDate, endDate },
    schema: Schemas.DailyGasUsed,
    rows: Stream.fromIterable(rows)
  })
  const summary = yield* Exports.toFile(source, { out: `${outDir}/gas-per-day.csv`, quiet: true })
  console.log(`wrote ${summary.manifest.rows} days to ${summary.out}`)
})

Pipeline.runScript(program.pipe(Effect.provide(Pipeline.scriptLayer())))
