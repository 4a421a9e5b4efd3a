/** The `dailyTxCount` data set: Transactions per day between two dates (dailytx, PRO), in one request. */
import * as Effect from "effect/Effect"
import * as Schemas from "../../schemas/index.js"
import * as Dataset from "../Dataset.js"
import { type DailyQuery, dailyParams, listSource } from "../Datasets.js"

export const dailyTxCount = Dataset.make({
  name: "dailyTxCount",
  command: "daily-tx",
  operation: "dailytx",
  paging: "one request",
  schema: Schemas.DailyTxCount,
  description: "transactions per day (dailytx, PRO)",
  flags: Dataset.flags.daily,
  source: (query: DailyQuery) => listSource("dailytx", "dailyTxCount", Schemas.DailyTxCount, query, dailyParams(query), "one request"),
  query: (v, { chainId }) => Effect.succeed({ chainId, startDate: v.startDate, endDate: v.endDate, sort: v.sort })
})
