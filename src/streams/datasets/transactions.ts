/** The `transactions` data set: normal transactions of an address (txlist), in block order. */
import * as Effect from "effect/Effect"
import * as Schemas from "../../schemas/index.js"
import * as Dataset from "../Dataset.js"
import { accountPage, accountRange, type AddressQuery, blockSource, prepare } from "../Datasets.js"

export const transactions = Dataset.make({
  name: "transactions",
  command: "txs",
  operation: "txlist",
  paging: "blocks",
  schema: Schemas.NormalTransaction,
  description: "normal transactions of an address (txlist)",
  flags: { address: Dataset.flags.address },
  source: (query: AddressQuery) =>
    Effect.gen(function*() {
      const { chainId, client } = yield* prepare("txlist", query.chainId, { address: query.address, ...accountRange(query) })
      return blockSource(client, {
        dataset: "transactions",
        name: "txlist",
        chainId,
        query,
        schema: Schemas.NormalTransaction,
        params: (r) => ({ chainId, address: query.address, ...accountPage(r) })
      })
    }),
  query: (v, { chainId, range }) => Effect.succeed({ chainId, ...range, address: v.address })
})
