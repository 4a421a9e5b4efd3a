/** The `erc20Transfers` data set: ERC-20 transfers of an address and/or a token contract (tokentx), in block order. */
import * as Effect from "effect/Effect"
import * as Schemas from "../../schemas/index.js"
import * as Dataset from "../Dataset.js"
import { transfers, type TransfersQuery } from "../Datasets.js"

export const erc20Transfers = Dataset.make({
  name: "erc20Transfers",
  command: "erc20-transfers",
  operation: "tokentx",
  paging: "blocks",
  schema: Schemas.Erc20Transfer,
  decimals: { amount: "value", decimals: { _tag: "Field", field: "tokenDecimal" }, time: "timeStamp" },
  description: "ERC-20 transfers by --address and/or --contract (tokentx)",
  flags: { address: Dataset.flags.optionalAddress, contract: Dataset.flags.optionalContract },
  source: transfers("tokentx", "erc20Transfers", Schemas.Erc20Transfer),
  query: (v, { chainId, range }): Effect.Effect<TransfersQuery> =>
    Effect.succeed({ chainId, ...range, address: v.address, contractAddress: v.contract })
})
