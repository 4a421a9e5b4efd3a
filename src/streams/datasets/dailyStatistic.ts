/**
 * The `dailyStatistic` data set: one of the daily statistics beside dailytx and dailygasused, named by
 * its action (PRO), between two dates, in one request.
 */
import * as Effect from "effect/Effect"
import type * as Schema from "effect/Schema"
import type { RecordOf } from "../../ExplorerClient.js"
import * as Dataset from "../Dataset.js"
import { type DailyQuery, dailyParams, type DailyStatistic, dailyStatistics, listSource } from "../Datasets.js"

const statistics = Object.keys(dailyStatistics) as ReadonlyArray<DailyStatistic>

/** One daily statistic between two dates (`Sources.dailyStatistic`). */
export const statisticSource = <K extends DailyStatistic>(stat: K, query: DailyQuery) =>
  listSource(
    stat,
    stat,
    dailyStatistics[stat] as unknown as Schema.Schema<RecordOf<K>, Schema.Schema.Encoded<(typeof dailyStatistics)[K]>>,
    query,
    dailyParams(query),
    "one request"
  )

export const dailyStatistic = Dataset.make({
  name: "dailyStatistic",
  command: "daily-stats",
  operation: statistics,
  paging: "one request",
  schema: dailyStatistics,
  description: "any other daily statistic: --stat dailyavggasprice, ethdailyprice, … (PRO)",
  flags: {
    stat: {
      _tag: "Choice",
      name: "stat",
      description: `the daily statistic, by its API action: ${statistics.join(", ")}`,
      values: statistics,
      pseudoName: "action"
    } satisfies Dataset.ChoiceFlag<DailyStatistic>,
    ...Dataset.flags.daily
  },
  source: (query: DailyQuery & { readonly stat: DailyStatistic }) => {
    const { stat, ...days } = query
    return statisticSource(stat, days)
  },
  query: (v, { chainId }) => Effect.succeed({ stat: v.stat, chainId, startDate: v.startDate, endDate: v.endDate, sort: v.sort })
})
