/** The `beaconWithdrawals` data set: consensus-layer withdrawals to an address (txsBeaconWithdrawal), in block order. */
import * as Effect from "effect/Effect"
import * as Schemas from "../../schemas/index.js"
import * as Dataset from "../Dataset.js"
import { accountPage, accountRange, type AddressQuery, blockSource, prepare } from "../Datasets.js"

export const beaconWithdrawals = Dataset.make({
  name: "beaconWithdrawals",
  command: "beacon-withdrawals",
  operation: "txsBeaconWithdrawal",
  paging: "blocks",
  schema: Schemas.BeaconWithdrawal,
  description: "consensus-layer withdrawals to an address, amounts in gwei (txsBeaconWithdrawal)",
  flags: { address: Dataset.flags.address },
  source: (query: AddressQuery) =>
    Effect.gen(function*() {
      const { chainId, client } = yield* prepare("txsBeaconWithdrawal", query.chainId, { address: query.address, ...accountRange(query) })
      return blockSource(client, {
        dataset: "beaconWithdrawals",
        name: "txsBeaconWithdrawal",
        chainId,
        query,
        schema: Schemas.BeaconWithdrawal,
        params: (r) => ({ chainId, address: query.address, ...accountPage(r) })
      })
    }),
  query: (v, { chainId, range }) => Effect.succeed({ chainId, ...range, address: v.address })
})
