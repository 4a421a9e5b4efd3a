/**
 * contract-events — the event logs of chosen contracts, one file per (contract, event) target: e.g. a
 * pool's Swap events, a token's Transfer events. Kept up to date run after run.
 *
 * Files, in `<outDir>/contract-events/`, each with its `<file>.manifest.json` and `<file>.state.json`:
 * - one file per target, named by its `file` field (`.csv` or `.jsonl`): every log the contract
 *   emitted with that topic0 from `fromBlock` on (getLogs), in block order, each exactly once.
 *   CSV columns: address, topic0..topic3, data, blockNumber, blockHash, timeStamp, gasPrice, gasUsed,
 *   logIndex, transactionHash, transactionIndex (numbers in decimal). JSONL keeps `topics` as an array.
 *   Incremental: a later run appends only the blocks that are new since.
 * - with a target's `decoded`, also `decoded.file` (`.csv`, `.jsonl` or `.parquet`): the same logs
 *   decoded by the contract's ABI (the `events` data set, see docs/behaviour.md): the log's block, time,
 *   transaction hash, log index and address, `event`, then one typed column per argument of the ABI's
 *   event with the target's topic0 (uint/int exact); a log the ABI cannot decode (the same topic0
 *   with other indexed arguments) is kept raw with an empty `event`, and the manifest counts
 *   `decodedRows` and `undecodedRows`. Incremental too. The raw file is written as before (the decoded
 *   file reads the logs with getLogs requests of its own).
 *
 * Config (`pipelines/contract-events.config.json`, or `--config <file>`):
 * - `chainId`    the chain (default 1);
 * - `fromBlock`  first block of every file (default 0);
 * - `targets`    a list of `{ file, address, topic0, fromBlock? }`: the output file name (letters,
 *                digits, `.`, `_`, `-`, ending in .csv/.jsonl/.ndjson; unique), the emitting contract,
 *                the event's topic0 (keccak-256 of its signature, e.g. Transfer(address,address,uint256)
 *                = 0xddf252ad…), and a first block of its own. A target's file name, address, topic and
 *                first block make its file's identity: change one and run without the old file.
 *                `decoded` (optional) `{ file, abi? }`: also write the decoded events into `file`;
 *                `abi` is `"auto"` (the default: getsourcecode, a proxy followed to its
 *                implementation, cached in `<outDir>/contract-events/.abi/<chainId>/<address>.json`;
 *                delete that file to fetch it again) or the ABI itself (a JSON array of items).
 *
 * Run once (embedded simulator without a key; the real API with EXPLORER_API_KEY or ETHERSCAN_API_KEY):
 *     npx tsx pipelines/contract-events.ts [outDir]
 *     explorer-etl run pipelines/contract-events.ts [--out-dir out]
 * Run every hour, each run incremental (keep the last 12 blocks out until final):
 *     explorer-etl run pipelines/contract-events.ts --every "0 * * * *" --confirmations 12
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Events, Schemas, Sources } from "explorer-etl"
import * as Pipeline from "explorer-etl/pipeline"

/** topic0 of `Transfer(address,address,uint256)` (ERC-20 and ERC-721). */
const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"

/** An output file name in the pipeline's folder: no path, a .csv/.jsonl/.ndjson extension. */
const FileName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9._-]*\.(csv|jsonl|ndjson)$/i, {
    message: () => "must be a file name (letters, digits, . _ -) ending in .csv, .jsonl or .ndjson"
  })
)

/** The file of a target's decoded events: .csv, .jsonl/.ndjson or .parquet. */
const DecodedFileName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9._-]*\.(csv|jsonl|ndjson|parquet)$/i, {
    message: () => "must be a file name (letters, digits, . _ -) ending in .csv, .jsonl, .ndjson or .parquet"
  })
)

/** A target's decoded events: where they go, and the ABI that decodes them. */
export const DecodedOutput = Schema.Struct({
  file: DecodedFileName,
  abi: Schema.optionalWith(Schema.Union(Schema.Literal("auto"), Schema.Array(Schema.Unknown)), { default: () => "auto" as const })
})

/** One (contract, event) target: its logs go to `file`, and decoded to `decoded.file` when asked. */
export const EventTarget = Schema.Struct({
  file: FileName,
  address: Schemas.Address,
  topic0: Schemas.Topic,
  fromBlock: Schema.optional(Schema.NonNegativeInt),
  decoded: Schema.optional(DecodedOutput)
})
/** @see EventTarget */
export type EventTarget = typeof EventTarget.Type

/** The targets of contract-events. */
export const ContractEventsConfig = Schema.Struct({
  chainId: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { default: () => 1 }),
  fromBlock: Schema.optionalWith(Schema.NonNegativeInt, { default: () => 0 }),
  targets: Schema.Array(EventTarget).pipe(
    Schema.minItems(1),
    Schema.filter((targets) => {
      const files = targets.flatMap((t) => (t.decoded === undefined ? [t.file] : [t.file, t.decoded.file]))
      return new Set(files.map((f) => f.toLowerCase())).size === files.length || "every target needs its own file (and its decoded file too)"
    })
  )
})
/** @see ContractEventsConfig */
export type ContractEventsConfig = typeof ContractEventsConfig.Type

/** The contract-events pipeline. */
const pipeline = Pipeline.make({
  name: "contract-events",
  description: "event logs of chosen contracts by topic0, one file per target",
  config: ContractEventsConfig,
  configFile: new URL("./contract-events.config.json", import.meta.url),
  // The heavy pool's 20,000 Swap logs (with a block of 1,500 logs, more than one page) and the
  // Transfer logs of the first ERC-20, also decoded (its verified ABI) into Parquet.
  demoConfig: (data) => {
    const chain = data.chain(1)
    const token = chain.erc20[0]?.address ?? chain.airdropToken.address
    return {
      chainId: 1,
      fromBlock: chain.activity.fromBlock,
      targets: [
        { file: "pool-swaps.csv", address: chain.heavyContract.address, topic0: chain.heavyContract.topic0 },
        { file: "token-transfers.jsonl", address: token, topic0: TRANSFER_TOPIC, decoded: { file: "token-transfers.decoded.parquet", abi: "auto" as const } }
      ]
    }
  },
  run: (config, context) => {
    const { chainId } = config
    const exports = config.targets.flatMap((target) => {
      const fromBlock = target.fromBlock ?? config.fromBlock
      const raw = context.export(target.file, Sources.logs({ chainId, address: target.address, topic0: target.topic0, fromBlock }))
      const decoded = target.decoded
      if (decoded === undefined) return [raw]
      const events = Effect.gen(function*() {
        const abi = decoded.abi === "auto"
          ? (yield* Events.cachedAbi({ chainId, address: target.address, dir: `${context.outDir}/.abi` })).abi
          : decoded.abi
        // The ABI's event of the target's topic0: one column per argument.
        return yield* Sources.events({ chainId, address: target.address, abi, event: target.topic0, fromBlock })
      })
      return [raw, Effect.flatMap(events, (source) => context.export(decoded.file, source))]
    })
    return Effect.all(exports, { concurrency: context.concurrency })
  }
})

export default pipeline

Pipeline.main(pipeline, import.meta.url)
