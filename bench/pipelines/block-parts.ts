/**
 * block-parts — the cluster bench's pipeline (bench/cluster.ts): one address's logs or transactions
 * over several block ranges, each range a file of its own (`part-<i>.csv`), so a run has as many
 * independent exports as ranges for the runners of a cluster to share.
 *
 * Config: `{ chainId, dataset: "logs" | "txs", address, ranges: [[fromBlock, toBlock], …], format? }`
 * (`format`: "csv", the default, "jsonl" or "parquet": the files are `part-<i>.<format>`).
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Schemas, Sources } from "explorer-etl"
import * as Pipeline from "explorer-etl/pipeline"

const Block = Schema.NonNegativeInt

/** The ranges and what to export in them. */
export const BlockPartsConfig = Schema.Struct({
  chainId: Schema.Int.pipe(Schema.positive()),
  dataset: Schema.Literal("logs", "txs"),
  address: Schemas.Address,
  ranges: Schema.Array(Schema.Tuple(Block, Block)).pipe(Schema.minItems(1)),
  format: Schema.optional(Schema.Literal("csv", "jsonl", "parquet"))
})

const pipeline = Pipeline.make({
  name: "block-parts",
  description: "an address's logs or transactions over several block ranges, a file per range",
  config: BlockPartsConfig,
  configFile: new URL("./block-parts.config.json", import.meta.url),
  // The heavy contract's logs in four equal stretches of the chain's activity.
  demoConfig: (data) => {
    const chain = data.chain(1)
    const { fromBlock, toBlock } = chain.activity
    const step = Math.ceil((toBlock - fromBlock + 1) / 4)
    return {
      chainId: 1,
      dataset: "logs" as const,
      address: chain.heavyContract.address,
      ranges: [0, 1, 2, 3].map((i) => [fromBlock + i * step, Math.min(toBlock, fromBlock + (i + 1) * step - 1)] as const)
    }
  },
  run: (config, context) =>
    Effect.forEach(config.ranges, ([fromBlock, toBlock], i) => {
      const query = { chainId: config.chainId, address: config.address, fromBlock, toBlock }
      const file = `part-${i}.${config.format ?? "csv"}`
      return config.dataset === "logs"
        ? context.export(file, Sources.logs(query))
        : context.export(file, Sources.transactions(query))
    }, { concurrency: context.concurrency })
})

export default pipeline
