/** The `erc721Transfers` data set: ERC-721 transfers of an address and/or a token contract (tokennfttx), in block order. */
import * as Effect from "effect/Effect"
import * as Schemas from "../../schemas/index.js"
import * as Dataset from "../Dataset.js"
import { transfers, type TransfersQuery } from "../Datasets.js"

export const erc721Transfers = Dataset.make({
  name: "erc721Transfers",
  command: "erc721-transfers",
  operation: "tokennfttx",
  paging: "blocks",
  schema: Schemas.Erc721Transfer,
  description: "ERC-721 transfers by --address and/or --contract (tokennfttx)",
  flags: { address: Dataset.flags.optionalAddress, contract: Dataset.flags.optionalContract },
  source: transfers("tokennfttx", "erc721Transfers", Schemas.Erc721Transfer),
  query: (v, { chainId, range }): Effect.Effect<TransfersQuery> =>
    Effect.succeed({ chainId, ...range, address: v.address, contractAddress: v.contract })
})
