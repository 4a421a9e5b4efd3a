/** The `dailyGasUsed` data set: Gas used per day between two dates (dailygasused, PRO), in one request. */
import * as Effect from "effect/Effect"
import * as Schemas from "../../schemas/index.js"
import * as Dataset from "../Dataset.js"
import { type DailyQuery, dailyParams, listSource } from "../Datasets.js"

export const dailyGasUsed = Dataset.make({
  name: "dailyGasUsed",
  command: "daily-gas",
  operation: "dailygasused",
  paging: "one request",
  schema: Schemas.DailyGasUsed,
  description: "gas used per day (dailygasused, PRO)",
  flags: Dataset.flags.daily,
  source: (query: DailyQuery) => listSource("dailygasused", "dailyGasUsed", Schemas.DailyGasUsed, query, dailyParams(query), "one request"),
  query: (v, { chainId }) => Effect.succeed({ chainId, startDate: v.startDate, endDate: v.endDate, sort: v.sort })
})
