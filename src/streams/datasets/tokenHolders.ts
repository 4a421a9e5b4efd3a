/** The `tokenHolders` data set: every holder of a token with its raw quantity (tokenholderlist, PRO), page by page. */
import * as Effect from "effect/Effect"
import * as Schemas from "../../schemas/index.js"
import * as Dataset from "../Dataset.js"
import { listSource } from "../Datasets.js"

export const tokenHolders = Dataset.make({
  name: "tokenHolders",
  command: "holders",
  operation: "tokenholderlist",
  paging: "pages",
  schema: Schemas.TokenHolder,
  decimals: { amount: "TokenHolderQuantity", decimals: { _tag: "TokenInfo", tokenField: "contractAddress" } },
  description: "every holder of a token with its raw quantity (tokenholderlist, PRO)",
  flags: { contract: Dataset.flags.contract },
  source: (query: { readonly chainId?: number | undefined; readonly contractAddress: string }) =>
    listSource("tokenholderlist", "tokenHolders", Schemas.TokenHolder, query, { contractAddress: query.contractAddress }, "pages"),
  query: (v, { chainId }) => Effect.succeed({ chainId, contractAddress: v.contract })
})
