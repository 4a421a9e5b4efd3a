/**
 * The `internalTransactions` data set: internal transactions of an address, or of a block range when
 * no address is given (PRO) (txlistinternal), in block order.
 */
import * as Effect from "effect/Effect"
import * as Schemas from "../../schemas/index.js"
import * as Dataset from "../Dataset.js"
import { accountPage, accountRange, blockSource, type InternalQuery, prepare } from "../Datasets.js"

export const internalTransactions = Dataset.make({
  name: "internalTransactions",
  command: "internal-txs",
  operation: "txlistinternal",
  paging: "blocks",
  schema: Schemas.InternalTransaction,
  description: "internal transactions of an address, or of a block range without --address (PRO) (txlistinternal)",
  flags: { address: Dataset.flags.optionalAddress },
  source: (query: InternalQuery) =>
    Effect.gen(function*() {
      const address = query.address === undefined ? {} : { address: query.address }
      const { chainId, client } = yield* prepare("txlistinternal", query.chainId, { ...address, ...accountRange(query) })
      return blockSource(client, {
        dataset: "internalTransactions",
        name: "txlistinternal",
        chainId,
        query,
        schema: Schemas.InternalTransaction,
        params: (r) => ({ chainId, ...address, ...accountPage(r) })
      })
    }),
  query: (v, { chainId, range }): Effect.Effect<InternalQuery> => Effect.succeed({ chainId, ...range, address: v.address })
})
