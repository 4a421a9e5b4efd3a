// A consumer's plain ESM script: one real export through the installed package, against the local
// explorer it ships (explorer-etl/simulator). Prints a JSON line the test reads.
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer, Redacted } from "effect"
import { ExplorerClient, Exports, Sources } from "explorer-etl"
import * as Simulator from "explorer-etl/simulator"

const out = process.argv[2]

const program = Effect.gen(function*() {
  const sim = yield* Simulator.Simulator
  const token = sim.dataset.chain(1).erc20[0].address
  const expected = yield* sim.oracle({ chainId: 1, module: "account", action: "tokentx", params: { contractaddress: token } })
  const client = ExplorerClient.layer({ baseUrl: sim.baseUrl, apiKey: Redacted.make(sim.demoKeys.standard), plan: "standard" })
  const summary = yield* Effect.gen(function*() {
    const source = yield* Sources.erc20Transfers({ chainId: 1, contractAddress: token })
    return yield* Exports.toFile(source, { out, quiet: true })
  }).pipe(Effect.provide(Layer.provideMerge(client, NodeHttpClient.layerUndici)))
  return { rows: summary.manifest.rows, expected: expected.length, out: summary.out }
})

const result = await Effect.runPromise(
  program.pipe(Effect.provide(Simulator.layer({ seed: 7 })), Effect.provide(NodeContext.layer), Effect.scoped)
)
console.log(JSON.stringify(result))
