/**
 * The `minedBlocks` data set: the blocks an address proposed (getminedblocks), with their rewards,
 * newest first as the server lists them, page by page (the server takes no block range for it).
 */
import * as Effect from "effect/Effect"
import * as Schemas from "../../schemas/index.js"
import * as Dataset from "../Dataset.js"
import { listSource } from "../Datasets.js"

export const minedBlocks = Dataset.make({
  name: "minedBlocks",
  command: "mined-blocks",
  operation: "getminedblocks",
  paging: "pages",
  schema: Schemas.MinedBlock,
  description: "blocks an address proposed, newest first, with their rewards (getminedblocks)",
  flags: { address: Dataset.flags.address },
  source: (query: { readonly chainId?: number | undefined; readonly address: string }) =>
    listSource("getminedblocks", "minedBlocks", Schemas.MinedBlock, query, { address: query.address }, "pages"),
  query: (v, { chainId }) => Effect.succeed({ chainId, address: v.address })
})
