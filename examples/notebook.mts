/**
 * A notebook: one cell after another, each awaited at the top level, sharing one client.
 *
 *     npx tsx notebook.mts [outDir]
 *
 * `.mts` makes it an ES module whatever the project's package.json says (`npm init -y` writes
 * `"type": "commonjs"`, where a `.ts` file cannot await at the top level); a `.ts` file works too in a
 * project with `"type": "module"`.
 *
 * Without an API key it runs on the embedded simulator (its first wallet); with
 * EXPLORER_API_KEY (or ETHERSCAN_API_KEY) on the real API, on the wallet EXAMPLE_WALLET of chain 1.
 * Writes `<outDir>/wallet-txs.csv` and its manifest (default outDir `out/notebook`).
 */
import { NodeContext } from "@effect/platform-node"
import { Chunk, Effect, Layer, ManagedRuntime, Option, Stream } from "effect"
import { Exports, Sources, Streams } from "explorer-etl"
import * as Pipeline from "explorer-etl/pipeline"

// Cell 1 — one runtime for the whole notebook: one client, one rate limiter, (without a key) one
// simulator, and Node's file system for the files.
const runtime = ManagedRuntime.make(Layer.merge(Pipeline.scriptLayer(), NodeContext.layer))
const outDir = process.argv[2] ?? "out/notebook"

// Cell 2 — which wallet: the simulator's busy wallet, or yours.
const demo = await runtime.runPromise(Pipeline.DemoData)
const wallet = Option.match(demo, {
  onSome: (data) => data.chain(1).wallets[0]?.address ?? "",
  onNone: () => process.env.EXAMPLE_WALLET ?? ""
})
if (wallet === "") throw new Error("set EXAMPLE_WALLET to the wallet to read")
console.log(`wallet ${wallet} (${Option.isSome(demo) ? "simulator" : "real API"})`)

// Cell 3 — its first transactions, as typed records (bigint values, numbers, dates).
const first = await runtime.runPromise(
  Stream.runCollect(Streams.transactions({ chainId: 1, address: wallet }).pipe(Stream.take(5)))
)
for (const tx of Chunk.toReadonlyArray(first)) console.log(`block ${tx.blockNumber}  ${tx.hash}  ${tx.value} wei`)

// Cell 4 — all of them into a CSV file, exactly once, with a manifest beside it.
const summary = await runtime.runPromise(Effect.gen(function*() {
  const source = yield* Sources.transactions({ chainId: 1, address: wallet })
  return yield* Exports.toFile(source, { out: `${outDir}/wallet-txs.csv`, quiet: true })
}))
console.log(`wrote ${summary.manifest.rows} transactions to ${summary.out}`)

// Last cell — close the runtime (and the simulator it started).
await runtime.dispose()
