/**
 * chain-daily-stats — a chain's activity per UTC day (gas used, transaction count) over a date
 * range, and its native coin supply on the day of the run.
 *
 * Files, in `<outDir>/chain-daily-stats/`, each with its `<file>.manifest.json`:
 * - `daily-gas-used.csv`  one row per day: UTCDate, unixTimeStamp, gasUsed (dailygasused, PRO);
 * - `daily-tx-count.csv`  one row per day: UTCDate, unixTimeStamp, transactionCount (dailytx, PRO);
 * - `native-supply.jsonl` one row: the UTC date of the run, the chain, and the native supply in wei
 *                         (ethsupply gives one value, not a list: a one-row JSONL export keeps it with
 *                         its date and a manifest like the other files).
 * The three files are rewritten at every run (a daily series is one call, re-read whole); with
 * `endDate: "yesterday"` a daily run extends the series by one day.
 *
 * Config (`pipelines/chain-daily-stats.config.json`, or `--config <file>`):
 * - `chainId`    the chain (default 1);
 * - `startDate`  first day, `yyyy-MM-dd`;
 * - `endDate`    last day, `yyyy-MM-dd`, or `"yesterday"` (the last complete UTC day at run time;
 *                default).
 *
 * Run once (embedded simulator without a key; the real API with EXPLORER_API_KEY or ETHERSCAN_API_KEY,
 * plan from EXPLORER_PLAN — the daily statistics need a PRO plan):
 *     npx tsx pipelines/chain-daily-stats.ts [outDir]
 *     explorer-etl run pipelines/chain-daily-stats.ts --plan standard [--out-dir out]
 * Run every day at 00:30 UTC:
 *     explorer-etl run pipelines/chain-daily-stats.ts --plan standard --every "30 0 * * *"
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Schemas, Sources } from "explorer-etl"
import * as Pipeline from "explorer-etl/pipeline"

const DAY_MS = 86_400_000

/** `yyyy-MM-dd` of a time (UTC). */
const utcDate = (millis: number): string => new Date(millis).toISOString().slice(0, 10)

/** The targets of chain-daily-stats. */
export const ChainDailyStatsConfig = Schema.Struct({
  chainId: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { default: () => 1 }),
  startDate: Schemas.IsoDate,
  endDate: Schema.optionalWith(Schema.Union(Schemas.IsoDate, Schema.Literal("yesterday")), {
    default: () => "yesterday" as const
  })
})
/** @see ChainDailyStatsConfig */
export type ChainDailyStatsConfig = typeof ChainDailyStatsConfig.Type

/** The row of `native-supply.jsonl`. */
export const NativeSupply = Schema.Struct({
  /** The UTC day the supply was read, `yyyy-MM-dd`. */
  UTCDate: Schema.String,
  chainId: Schema.Number,
  /** The native coin's supply in wei (stats/ethsupply). */
  supplyWei: Schemas.EtherSupply
})
/** @see NativeSupply */
export type NativeSupply = typeof NativeSupply.Type

/** The chain-daily-stats pipeline. */
const pipeline = Pipeline.make({
  name: "chain-daily-stats",
  description: "daily gas used and transaction count over a date range, and the native supply",
  config: ChainDailyStatsConfig,
  configFile: new URL("./chain-daily-stats.config.json", import.meta.url),
  // The simulator answers the days between its first block and the day before its latest block
  // (2025-09-30): the last 30 of them.
  demoConfig: (data) => {
    const chain = data.chain(1)
    const lastDay = Math.floor(chain.timestampOf(chain.latestBlock) / 86_400) - 1
    return {
      chainId: 1,
      startDate: utcDate((lastDay - 29) * DAY_MS),
      endDate: utcDate(lastDay * DAY_MS)
    }
  },
  run: (config, context) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const days = {
        chainId: config.chainId,
        startDate: config.startDate,
        endDate: config.endDate === "yesterday" ? utcDate(now - DAY_MS) : config.endDate
      }
      return yield* Effect.all([
        context.export("daily-gas-used.csv", Sources.dailyGasUsed(days)),
        context.export("daily-tx-count.csv", Sources.dailyTxCount(days)),
        context.export(
          "native-supply.jsonl",
          Pipeline.oneCall({
            dataset: "nativeSupply",
            operation: "ethsupply",
            chainId: config.chainId,
            query: {},
            schema: NativeSupply,
            fetch: (client, chainId) =>
              Effect.map(client.ethsupply({ chainId }), (supplyWei) => [{ UTCDate: utcDate(now), chainId, supplyWei }])
          })
        )
      ])
    })
})

export default pipeline

Pipeline.main(pipeline, import.meta.url)
