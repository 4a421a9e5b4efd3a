/** The `topHolders` data set: the largest holders of a token (topholders, PRO), in one request. */
import * as Effect from "effect/Effect"
import * as Plan from "../../Plan.js"
import * as Schemas from "../../schemas/index.js"
import * as Dataset from "../Dataset.js"
import { listSource } from "../Datasets.js"

export const topHolders = Dataset.make({
  name: "topHolders",
  command: "top-holders",
  operation: "topholders",
  paging: "one request",
  schema: Schemas.TopHolder,
  // topholders answers its quantities already divided by the token's decimals, as decimal text.
  parquet: { TokenHolderQuantity: "decimalString" },
  decimals: { amount: "TokenHolderQuantity", decimals: { _tag: "Server" } },
  description: "the largest holders of a token, --limit ≤ 1000 (topholders, PRO)",
  flags: {
    contract: Dataset.flags.contract,
    limit: {
      _tag: "WholeNumber",
      name: "limit",
      description: "number of holders, ≤ 1000",
      min: 1,
      max: Plan.HARD_ROW_CAP,
      expected: "a whole number from 1 to 1000",
      default: Plan.HARD_ROW_CAP
    }
  },
  source: (
    query: { readonly chainId?: number | undefined; readonly contractAddress: string; readonly limit?: number | undefined }
  ) => {
    const limit = query.limit ?? Plan.HARD_ROW_CAP
    const params = { contractAddress: query.contractAddress, limit }
    return listSource("topholders", "topHolders", Schemas.TopHolder, { ...query, limit }, params, "one request")
  },
  query: (v, { chainId }) => Effect.succeed({ chainId, contractAddress: v.contract, limit: v.limit })
})
