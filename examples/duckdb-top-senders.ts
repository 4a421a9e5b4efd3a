/**
 * Who sends the most of a token? Its Transfer events, decoded with the contract's ABI, go into a
 * Parquet file; one DuckDB query then ranks the senders by volume, scaled by the token's decimals.
 *
 *     npx tsx examples/duckdb-top-senders.ts [outDir]
 *
 * Needs `@duckdb/node-api` (a dev dependency of this repository: in a project of your own,
 * `npm install @duckdb/node-api`). Without an API key it runs on the embedded simulator, on its SUSD
 * token (6 decimals, ~580 transfers between a dozen wallets). With EXPLORER_API_KEY (or
 * ETHERSCAN_API_KEY) it runs on the real API: EXAMPLE_TOKEN (default USDC) of EXAMPLE_CHAIN
 * (default 1), over the last EXAMPLE_BLOCKS blocks (default 1,000).
 *
 * - The ABI comes from getsourcecode (a proxy's implementation followed: `Events.fetchAbi`), the
 *   decimals from the token's first ERC-20 transfer in the range (`tokenDecimal`).
 * - Writes `<outDir>/transfers.parquet` and its manifest (default outDir `out/examples`): one row per
 *   Transfer log, `from`/`to` lower-case, `value` an exact decimal string (uint256 fits no Parquet
 *   integer); a log the ABI could not decode is kept with an empty `event` and left out of the query.
 * - The query sums `value` as HUGEINT (exact to 2^127, ample for a token's supply) and scales it by
 *   integer division, so the volumes are exact decimal text, not floats. Mints (sent by the zero
 *   address) are not sends and are left out.
 */
import { DuckDBInstance } from "@duckdb/node-api"
import { Clock, Effect, Option, Stream } from "effect"
import { ExplorerClient, Events, Exports, Sources, Streams } from "explorer-etl"
import * as Pipeline from "explorer-etl/pipeline"

const USDC = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"
const ZERO = "0x0000000000000000000000000000000000000000"
const TOP = 10

/** Top senders by volume: one SQL query over the Parquet file, amounts scaled exactly by `decimals`. */
export const topSendersSql = (file: string, decimals: number, limit: number): string => {
  const unit = `${10n ** BigInt(decimals)}::HUGEINT`
  return `
    WITH sent AS (
      SELECT "from" AS sender, count(*) AS transfers, sum(CAST(value AS HUGEINT)) AS raw
      FROM read_parquet('${file.replace(/'/g, "''")}')
      WHERE event = 'Transfer' AND "from" <> '${ZERO}'
      GROUP BY "from"
    )
    SELECT sender, transfers::INTEGER AS transfers,
      (raw // ${unit})::VARCHAR ||
        rtrim(rtrim('.' || lpad((raw % ${unit})::VARCHAR, ${decimals}, '0'), '0'), '.') AS volume
    FROM sent
    ORDER BY raw DESC, sender
    LIMIT ${limit}`
}

const program = Effect.gen(function*() {
  const outDir = process.argv[2] ?? "out/examples"
  const client = yield* ExplorerClient.ExplorerClient
  const demo = yield* Pipeline.DemoData
  const target = Option.isSome(demo)
    ? { chainId: 1, token: demo.value.chain(1).erc20[0]?.address ?? "", fromBlock: 0 }
    : yield* Effect.gen(function*() {
      const chainId = Number(process.env.EXAMPLE_CHAIN ?? 1)
      const now = yield* Clock.currentTimeMillis
      const latest = yield* client.getblocknobytime({ chainId, timestamp: Math.floor(now / 1000), closest: "before" })
      return { chainId, token: process.env.EXAMPLE_TOKEN ?? USDC, fromBlock: Math.max(0, latest - Number(process.env.EXAMPLE_BLOCKS ?? 1_000)) }
    })
  const { chainId, token, fromBlock } = target

  // The decimals, from the token's first transfer in the range (tokeninfo would need a PRO plan).
  const first = yield* Streams.erc20Transfers({ chainId, contractAddress: token, fromBlock }).pipe(Stream.runHead)
  if (Option.isNone(first)) return console.log(`No transfer of ${token} on chain ${chainId} from block ${fromBlock}.`)
  const decimals = first.value.tokenDecimal

  // Decoded Transfer events into Parquet: a resumable export like any other.
  const { abi } = yield* Events.fetchAbi({ chainId, address: token })
  const source = yield* Sources.events({ chainId, address: token, abi, event: "Transfer", fromBlock })
  const file = `${outDir}/transfers.parquet`
  const summary = yield* Exports.toFile(source, { out: file, quiet: true })
  const { decodedRows, undecodedRows } = summary.manifest
  console.log(`wrote ${summary.manifest.rows} Transfer logs of ${token} (chain ${chainId}, ${decimals} decimals) to ${file}` +
    ` (${decodedRows ?? "?"} decoded, ${undecodedRows ?? "?"} kept raw)`)

  // One query answers the question.
  const rows = yield* Effect.promise(async () => {
    const db = await DuckDBInstance.create(":memory:")
    const connection = await db.connect()
    try {
      const reader = await connection.runAndReadAll(topSendersSql(file, decimals, TOP))
      return reader.getRowObjectsJson().map((r) => ({
        sender: String(r.sender),
        transfers: Number(r.transfers),
        volume: String(r.volume)
      }))
    } finally {
      connection.closeSync()
    }
  })
  console.log(`\nTop ${rows.length} senders by volume:`)
  const width = Math.max(6, ...rows.map((r) => r.volume.length))
  console.log(`  #  ${"sender".padEnd(42)}  ${"volume".padStart(width)}  transfers`)
  rows.forEach((r, i) => {
    console.log(`${String(i + 1).padStart(3)}  ${r.sender}  ${r.volume.padStart(width)}  ${String(r.transfers).padStart(9)}`)
  })
})

Pipeline.runScript(program.pipe(Effect.provide(Pipeline.scriptLayer())))
