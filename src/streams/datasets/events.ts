/**
 * The `events` data set: event logs of a contract decoded by its ABI (getLogs, and getsourcecode/getabi
 * for the ABI), undecodable logs kept with an empty `event`. Its source is `Events.events`.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import { homedir } from "node:os"
import { join } from "node:path"
import { count } from "../../sinks/Reporter.js"
import * as Dataset from "../Dataset.js"
import type { EventsQuery } from "../Events.js"
import * as Events from "../Events.js"
import { topicFlags, topicQuery } from "./logs.js"

/** Where `--abi auto` keeps the ABIs it fetched, unless `--abi-cache` says. */
const defaultAbiCache = (): string => {
  const base = process.env.XDG_CACHE_HOME
  return join(base !== undefined && base !== "" ? base : join(homedir(), ".cache"), "explorer-etl", "abi")
}

/** The ABI `--abi` names: fetched (auto, cached), or read from a JSON file; none for a full signature alone. */
const abiOf = (
  chainId: number,
  a: { readonly address: string; readonly abi: string | undefined; readonly event: string | undefined; readonly abiCache: string | undefined }
) =>
  Effect.gen(function*() {
    if (a.abi === undefined && a.event?.includes("(") === true) return [] as ReadonlyArray<unknown>
    if (a.abi === undefined || a.abi === "auto") {
      return (yield* Events.cachedAbi({ chainId, address: a.address, dir: a.abiCache ?? defaultAbiCache() })).abi
    }
    const given = a.abi
    const fs = yield* FileSystem.FileSystem
    return yield* fs.readFileString(given).pipe(
      Effect.mapError((e) => Dataset.refused("events", "--abi", `cannot read ${given}: ${e.message}`, chainId))
    )
  })

export const events = Dataset.make({
  name: "events",
  command: "events",
  // The rows are getLogs'; the ABI (getsourcecode/getabi) is fetched once, when the query is made.
  operation: "getLogs",
  paging: "blocks",
  // The columns are the ABI's events' (Events.decoder): made by the source from its query.
  schema: undefined,
  description: "event logs of a contract decoded by its ABI (getLogs + getsourcecode/getabi)",
  flags: {
    address: Dataset.flags.address,
    abi: Dataset.optionalText(
      "abi",
      "auto (getsourcecode/getabi, a proxy followed to its implementation, cached) or a JSON ABI file (default auto)"
    ),
    event: Dataset.optionalText(
      "event",
      "an event of the ABI by name or topic0, or a full signature \"Transfer(address indexed from,address indexed to,uint256 value)\" (default every event)"
    ),
    abiCache: Dataset.optionalText(
      "abi-cache",
      "folder of fetched ABIs (default $XDG_CACHE_HOME/explorer-etl/abi, else ~/.cache/explorer-etl/abi)"
    ),
    ...topicFlags
  },
  source: Events.events,
  query: (v, { chainId, range }) =>
    Effect.gen(function*() {
      const topics = yield* topicQuery(chainId, v)
      const abi = yield* abiOf(chainId, v)
      const query: EventsQuery = { chainId, ...range, address: v.address, abi, event: v.event, ...topics }
      return query
    }),
  report: (source) =>
    Effect.map(source.counts, (c) =>
      `events: ${count(c.decoded)} decoded, ${count(c.undecoded)} kept undecoded (empty event, raw topics and data)`)
})
