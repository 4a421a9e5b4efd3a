/**
 * The `logs` data set: event logs by emitting contract and/or topics (getLogs), every log exactly
 * once, in block order.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schemas from "../../schemas/index.js"
import * as Dataset from "../Dataset.js"
import { blockSource, type LogsQuery, prepare } from "../Datasets.js"

const source = (query: LogsQuery) =>
  Effect.gen(function*() {
    const { chainId: _, ...filters } = query
    const { chainId, client } = yield* prepare("getLogs", query.chainId, filters)
    const { fromBlock: _f, toBlock: _t, ...wanted } = filters
    return blockSource(client, {
      dataset: "logs",
      name: "getLogs",
      chainId,
      query,
      schema: Schemas.LogFileRow,
      params: (r) => ({ ...wanted, chainId, fromBlock: r.fromBlock, toBlock: r.toBlock, page: r.page, offset: r.offset })
    })
  })

/** The topic filters of `logs` and `events`: topic0..topic3 and the operators between them. */
export const topicFlags = {
  topic0: Dataset.flags.topic(0),
  topic1: Dataset.flags.topic(1),
  topic2: Dataset.flags.topic(2),
  topic3: Dataset.flags.topic(3),
  topicOp: Dataset.flags.topicOp
}

/** The topic filters of a query from the flags' values (a malformed `--topic-op` refused). */
export const topicQuery = (
  chainId: number,
  values: {
    readonly topic0: string | undefined
    readonly topic1: string | undefined
    readonly topic2: string | undefined
    readonly topic3: string | undefined
    readonly topicOp: ReadonlyArray<string>
  }
) =>
  Either.map(Dataset.topicOperatorsOf(chainId, values.topicOp), (topicOperators) => ({
    topic0: values.topic0,
    topic1: values.topic1,
    topic2: values.topic2,
    topic3: values.topic3,
    ...(Object.keys(topicOperators).length > 0 ? { topicOperators } : {})
  }))

export const logs = Dataset.make({
  name: "logs",
  command: "logs",
  operation: "getLogs",
  paging: "blocks",
  schema: Schemas.LogFileRow,
  description: "event logs by contract address and/or topics (getLogs)",
  flags: { address: Dataset.flags.optionalAddress, ...topicFlags },
  source,
  query: (v, { chainId, range }) =>
    Effect.map(topicQuery(chainId, v), (topics): LogsQuery => ({ chainId, ...range, address: v.address, ...topics }))
})
