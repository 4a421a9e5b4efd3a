/** The `addressTags` data set: every name tag of a label (exportaddresstags, Pro Plus), the downloaded file's rows. */
import * as Effect from "effect/Effect"
import * as Schemas from "../../schemas/index.js"
import * as Dataset from "../Dataset.js"
import { listSource } from "../Datasets.js"

export const addressTags = Dataset.make({
  name: "addressTags",
  command: "address-tags",
  operation: "exportaddresstags",
  paging: "one request",
  schema: Schemas.AddressTag,
  description: "name tags of a label (exportaddresstags, Pro Plus)",
  flags: { label: Dataset.text("label", "label slug from the label master list, or all") },
  source: (query: { readonly chainId?: number | undefined; readonly label: string }) =>
    listSource("exportaddresstags", "addressTags", Schemas.AddressTag, query, { label: query.label }, "one request"),
  query: (v, { chainId }) => Effect.succeed({ chainId, label: v.label })
})
