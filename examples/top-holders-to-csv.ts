/**
 * The largest holders of a token, printed and saved to CSV.
 *
 *     npx tsx examples/top-holders-to-csv.ts [outDir]
 *
 * Without an API key it runs on the embedded simulator, on its airdropped token (1,200+ holders).
 * With EXPLORER_API_KEY (or ETHERSCAN_API_KEY) it runs on the real API — topholders needs a PRO plan,
 * set EXPLORER_PLAN (e.g. `standard`) — on EXAMPLE_TOKEN (default USDC) of EXAMPLE_CHAIN (default 1),
 * keeping EXAMPLE_LIMIT holders (1..1000, default 100).
 *
 * Writes `<outDir>/top-holders.csv` and its manifest (default outDir `out/examples`). Columns:
 * TokenHolderAddress, TokenHolderQuantity (already divided by the token's decimals, exact),
 * TokenHolderAddressType (C contract, E externally owned).
 */
import { Chunk, Effect, Option, Stream } from "effect"
import { ExplorerClient, Exports, Schemas, Sources, Streams } from "explorer-etl"
import * as Pipeline from "explorer-etl/pipeline"

const USDC = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"

const program = Effect.gen(function*() {
  const outDir = process.argv[2] ?? "out/examples"
  const client = yield* ExplorerClient.ExplorerClient
  const demo = yield* Pipeline.DemoData
  const chainId = Option.isSome(demo) ? 1 : Number(process.env.EXAMPLE_CHAIN ?? 1)
  const token = Option.match(demo, {
    onSome: (data) => data.chain(1).airdropToken.address,
    onNone: () => process.env.EXAMPLE_TOKEN ?? USDC
  })
  const limit = Number(process.env.EXAMPLE_LIMIT ?? 100)

  const holders = Chunk.toReadonlyArray(
    yield* Stream.runCollect(Streams.topHolders({ chainId, contractAddress: token, limit }))
  )

  console.log(`Top ${holders.length} holders of ${token} (chain ${chainId}); the first 10:`)
  const width = Math.max(...holders.slice(0, 10).map((h) => h.TokenHolderQuantity.length))
  holders.slice(0, 10).forEach((h, i) => {
    const kind = h.TokenHolderAddressType === "C" ? "contract" : "wallet"
    console.log(`${String(i + 1).padStart(3)}. ${h.TokenHolderAddress}  ${h.TokenHolderQuantity.padStart(width)}  ${kind}`)
  })
  const contracts = holders.filter((h) => h.TokenHolderAddressType === "C").length
  console.log(`${contracts} of the ${holders.length} are contracts.`)

  // The rows read above, already in memory, go into the file as a source of their own (not read twice).
  const source = Sources.fromStream({
    dataset: "topHolders",
    chainId,
    plan: client.plan,
    query: { contractAddress: token, limit },
    schema: Schemas.TopHolder,
    rows: Stream.fromIterable(holders)
  })
  const summary = yield* Exports.toFile(source, { out: `${outDir}/top-holders.csv`, quiet: true })
  console.log(`wrote ${summary.manifest.rows} holders to ${summary.out}`)
})

Pipeline.runScript(program.pipe(Effect.provide(Pipeline.scriptLayer())))
