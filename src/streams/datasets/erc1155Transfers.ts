/** The `erc1155Transfers` data set: ERC-1155 transfers of an address and/or a token contract (token1155tx), in block order. */
import * as Effect from "effect/Effect"
import * as Schemas from "../../schemas/index.js"
import * as Dataset from "../Dataset.js"
import { transfers, type TransfersQuery } from "../Datasets.js"

export const erc1155Transfers = Dataset.make({
  name: "erc1155Transfers",
  command: "erc1155-transfers",
  operation: "token1155tx",
  paging: "blocks",
  schema: Schemas.Erc1155Transfer,
  description: "ERC-1155 transfers by --address and/or --contract (token1155tx)",
  flags: { address: Dataset.flags.optionalAddress, contract: Dataset.flags.optionalContract },
  source: transfers("token1155tx", "erc1155Transfers", Schemas.Erc1155Transfer),
  query: (v, { chainId, range }): Effect.Effect<TransfersQuery> =>
    Effect.succeed({ chainId, ...range, address: v.address, contractAddress: v.contract })
})
