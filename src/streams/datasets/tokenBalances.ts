/** The `tokenBalances` data set: the ERC-20 balances of an address (addresstokenbalance, PRO), page by page. */
import * as Effect from "effect/Effect"
import * as Schemas from "../../schemas/index.js"
import * as Dataset from "../Dataset.js"
import { listSource } from "../Datasets.js"

export const tokenBalances = Dataset.make({
  name: "tokenBalances",
  command: "token-balances",
  operation: "addresstokenbalance",
  paging: "pages",
  schema: Schemas.TokenBalance,
  parquet: { TokenPriceUSD: "decimalString" },
  decimals: { amount: "TokenQuantity", decimals: { _tag: "Field", field: "TokenDivisor" } },
  description: "ERC-20 balances of an address (addresstokenbalance, PRO)",
  flags: { address: Dataset.flags.address },
  source: (query: { readonly chainId?: number | undefined; readonly address: string }) =>
    listSource("addresstokenbalance", "tokenBalances", Schemas.TokenBalance, query, { address: query.address }, "pages"),
  query: (v, { chainId }) => Effect.succeed({ chainId, address: v.address })
})
