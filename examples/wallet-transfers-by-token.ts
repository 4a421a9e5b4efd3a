/**
 * A wallet's ERC-20 transfers summarised per token: how many transfers, how much came in and went
 * out, and the net — exact amounts (bigint arithmetic, divided by each token's decimals as text).
 *
 *     npx tsx examples/wallet-transfers-by-token.ts [outDir]
 *
 * Without an API key it runs on the embedded simulator, on one of its wallets, over its whole history.
 * With EXPLORER_API_KEY (or ETHERSCAN_API_KEY) it runs on the real API on EXAMPLE_WALLET (default
 * vitalik.eth) of EXAMPLE_CHAIN (default 1), from EXAMPLE_FROM_BLOCK (default: the last 50,000 blocks,
 * about a week on Ethereum).
 *
 * Writes `<outDir>/wallet-transfers-by-token.csv` and its manifest (default outDir `out/examples`):
 * one row per token, busiest first: contract, symbol, name, decimals, transfers, received, sent (the
 * net is only printed: a CSV text cell starting with "-" would get the formula guard's quote).
 */
import { Clock, Effect, Option, Schema, Stream } from "effect"
import { ExplorerClient, Exports, Sources, Streams } from "explorer-etl"
import type { Schemas } from "explorer-etl"
import * as Pipeline from "explorer-etl/pipeline"

const VITALIK = "0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045"

/** A raw token amount as an exact decimal text: `formatUnits(1234500n, 6)` = "1.2345". */
const formatUnits = (raw: bigint, decimals: number): string => {
  const sign = raw < 0n ? "-" : ""
  const abs = raw < 0n ? -raw : raw
  const unit = 10n ** BigInt(decimals)
  const fraction = decimals === 0 ? "" : (abs % unit).toString().padStart(decimals, "0").replace(/0+$/, "")
  return `${sign}${abs / unit}${fraction === "" ? "" : `.${fraction}`}`
}

/** One row of the summary. */
const TokenSummary = Schema.Struct({
  contractAddress: Schema.String,
  tokenSymbol: Schema.String,
  tokenName: Schema.String,
  tokenDecimal: Schema.Number,
  transfers: Schema.Number,
  /** Received, in whole tokens (exact). */
  received: Schema.String,
  /** Sent, in whole tokens (exact). */
  sent: Schema.String
})

interface Totals {
  readonly first: Schemas.Erc20Transfer
  transfers: number
  received: bigint
  sent: bigint
}

const program = Effect.gen(function*() {
  const outDir = process.argv[2] ?? "out/examples"
  const client = yield* ExplorerClient.ExplorerClient
  const demo = yield* Pipeline.DemoData
  const { chainId, fromBlock, wallet } = Option.isSome(demo)
    ? { chainId: 1, fromBlock: 0, wallet: (demo.value.chain(1).wallets[0] ?? demo.value.chain(1).funder).address }
    : yield* Effect.gen(function*() {
      const chainId = Number(process.env.EXAMPLE_CHAIN ?? 1)
      const fromEnv = process.env.EXAMPLE_FROM_BLOCK
      const now = yield* Clock.currentTimeMillis
      const fromBlock = fromEnv !== undefined
        ? Number(fromEnv)
        : Math.max(0, (yield* client.getblocknobytime({ chainId, timestamp: Math.floor(now / 1000), closest: "before" })) - 50_000)
      return { chainId, fromBlock, wallet: process.env.EXAMPLE_WALLET ?? VITALIK }
    })
  const self = wallet.toLowerCase()

  // Every ERC-20 transfer in or out of the wallet, folded into per-token totals as it streams.
  const byToken = yield* Streams.erc20Transfers({ chainId, address: wallet, fromBlock }).pipe(
    Stream.runFold(new Map<string, Totals>(), (totals, t) => {
      const entry = totals.get(t.contractAddress) ?? { first: t, transfers: 0, received: 0n, sent: 0n }
      entry.transfers++
      if (t.to.toLowerCase() === self) entry.received += t.value
      if (t.from.toLowerCase() === self) entry.sent += t.value
      totals.set(t.contractAddress, entry)
      return totals
    })
  )
  const rows = [...byToken.values()]
    .sort((a, b) => b.transfers - a.transfers)
    .map((t): typeof TokenSummary.Type => ({
      contractAddress: t.first.contractAddress,
      tokenSymbol: t.first.tokenSymbol,
      tokenName: t.first.tokenName,
      tokenDecimal: t.first.tokenDecimal,
      transfers: t.transfers,
      received: formatUnits(t.received, t.first.tokenDecimal),
      sent: formatUnits(t.sent, t.first.tokenDecimal)
    }))

  const total = rows.reduce((n, r) => n + r.transfers, 0)
  console.log(`ERC-20 transfers of ${wallet} (chain ${chainId}, from block ${fromBlock}): ${total} in ${rows.length} tokens\n`)
  const table = [
    ["token", "transfers", "in", "out", "net"],
    ...rows.map((r) => {
      const totals = byToken.get(r.contractAddress)
      const net = totals === undefined ? "" : formatUnits(totals.received - totals.sent, r.tokenDecimal)
      return [r.tokenSymbol.slice(0, 12), String(r.transfers), r.received, r.sent, net]
    })
  ]
  const widths = table[0]?.map((_, c) => Math.max(...table.map((row) => (row[c] ?? "").length))) ?? []
  for (const row of table) {
    console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0))).join("  "))
  }

  // Rows of our own making go into a file as the library's data sets do: as a source.
  const source = Sources.fromStream({
    dataset: "erc20TransfersByToken",
    chainId,
    plan: client.plan,
    query: { address: wallet, fromBlock },
    schema: TokenSummary,
    rows: Stream.fromIterable(rows)
  })
  const summary = yield* Exports.toFile(source, { out: `${outDir}/wallet-transfers-by-token.csv`, quiet: true })
  console.log(`\nwrote ${summary.manifest.rows} token rows to ${summary.out}`)
})

Pipeline.runScript(program.pipe(Effect.provide(Pipeline.scriptLayer())))
