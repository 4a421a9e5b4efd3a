/**
 * The ready pipelines, in the order the demo runs them (`explorer-etl demo`): each also runs on its
 * own with `npx tsx pipelines/<name>.ts` or `explorer-etl run pipelines/<name>.ts`.
 */
import * as Pipeline from "explorer-etl/pipeline"
import chainDailyStats from "./chain-daily-stats.js"
import contractEvents from "./contract-events.js"
import tokenActivity from "./token-activity.js"
import walletHistory from "./wallet-history.js"

/** Every ready pipeline, config types erased (`Pipeline.any`), in demo order. */
export const pipelines: ReadonlyArray<Pipeline.AnyPipeline> = [
  Pipeline.any(tokenActivity),
  Pipeline.any(contractEvents),
  Pipeline.any(walletHistory),
  Pipeline.any(chainDailyStats)
]
