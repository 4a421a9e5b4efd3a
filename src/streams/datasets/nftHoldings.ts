/** The `nftHoldings` data set: the NFT holdings of an address (addresstokennftbalance, PRO), page by page. */
import * as Effect from "effect/Effect"
import * as Schemas from "../../schemas/index.js"
import * as Dataset from "../Dataset.js"
import { listSource } from "../Datasets.js"

export const nftHoldings = Dataset.make({
  name: "nftHoldings",
  command: "nft-holdings",
  operation: "addresstokennftbalance",
  paging: "pages",
  schema: Schemas.NftBalance,
  description: "NFT holdings of an address (addresstokennftbalance, PRO)",
  flags: { address: Dataset.flags.address },
  source: (query: { readonly chainId?: number | undefined; readonly address: string }) =>
    listSource("addresstokennftbalance", "nftHoldings", Schemas.NftBalance, query, { address: query.address }, "pages"),
  query: (v, { chainId }) => Effect.succeed({ chainId, address: v.address })
})
