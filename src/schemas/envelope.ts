/**
 * The bodies every answer comes in: the {@link Envelope} of the explorer's own modules (and of gateway
 * errors on proxy calls), and the JSON-RPC bodies of `module=proxy`. The client classifies a body
 * (internal/classify.ts) and then decodes its `result` with the operation's record schema.
 *
 * @example
 * import { Schema } from "effect"
 * import { Schemas } from "explorer-etl"
 * Schema.decodeUnknownSync(Schemas.Envelope)({ status: "0", message: "NOTOK", result: "Invalid API Key" })
 */
import * as Schema from "effect/Schema"

/**
 * The envelope of every non-proxy answer (and of gateway errors on proxy calls): `status` `"1"`/`"0"`,
 * `message` (`"OK"`, `"NOTOK"`, `"No transactions found"` …) and `result`, whose shape depends on the
 * operation and on success (records, a string, an error text, `[]`, `null`). The client classifies it and
 * then decodes `result` with the operation's record schema.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Envelope = Schema.Struct({
  status: Schema.String,
  message: Schema.String,
  result: Schema.Unknown
}).annotations({ identifier: "Envelope" })
/**
 * The type of the values of the `Envelope` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type Envelope = typeof Envelope.Type

/**
 * The `id` of a JSON-RPC body (the server sends numbers such as 1, 73, 83).
 *
 * @since 0.1.0
 * @category schemas
 */
export const JsonRpcId = Schema.Union(Schema.Number, Schema.String, Schema.Null).annotations({ identifier: "JsonRpcId" })
/**
 * The type of the values of the `JsonRpcId` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type JsonRpcId = typeof JsonRpcId.Type

/**
 * The `error` object of a failed JSON-RPC answer; `code` is a JSON number, `data` the revert bytes if any.
 *
 * @since 0.1.0
 * @category schemas
 */
export const JsonRpcError = Schema.Struct({
  code: Schema.Number,
  message: Schema.String,
  data: Schema.optional(Schema.String)
}).annotations({ identifier: "JsonRpcError" })
/**
 * The type of the values of the `JsonRpcError` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type JsonRpcError = typeof JsonRpcError.Type

/**
 * A successful `module=proxy` answer: `{ jsonrpc, id, result }`. `result` is usually a hex string or an
 * object, and `null` for a missing object (unknown transaction hash).
 *
 * @since 0.1.0
 * @category schemas
 */
export const JsonRpcSuccess = Schema.Struct({
  jsonrpc: Schema.String,
  id: JsonRpcId,
  result: Schema.Unknown
}).annotations({ identifier: "JsonRpcSuccess" })
/**
 * The type of the values of the `JsonRpcSuccess` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type JsonRpcSuccess = typeof JsonRpcSuccess.Type

/**
 * A failed `module=proxy` answer: `{ jsonrpc, id, error: { code, message, data? } }`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const JsonRpcFailure = Schema.Struct({
  jsonrpc: Schema.String,
  id: JsonRpcId,
  error: JsonRpcError
}).annotations({ identifier: "JsonRpcFailure" })
/**
 * The type of the values of the `JsonRpcFailure` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type JsonRpcFailure = typeof JsonRpcFailure.Type

/**
 * Either JSON-RPC form (the failure is tried first, as it is the one with a required `error` key). A proxy
 * call can also be answered with an {@link Envelope} (rate limit, key, chain errors): tell them apart by
 * the presence of `jsonrpc`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const JsonRpcResponse = Schema.Union(JsonRpcFailure, JsonRpcSuccess).annotations({ identifier: "JsonRpcResponse" })
/**
 * The type of the values of the `JsonRpcResponse` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type JsonRpcResponse = typeof JsonRpcResponse.Type

/**
 * One chain of `GET /v2/chainlist`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ChainListEntry = Schema.Struct({
  chainname: Schema.String,
  /** The chain id as decimal text. */
  chainid: Schema.String,
  blockexplorer: Schema.String,
  apiurl: Schema.String,
  /** 0 offline, 1 ok, 2 degraded (a JSON number). */
  status: Schema.Number,
  comment: Schema.String
}).annotations({ identifier: "ChainListEntry" })
/**
 * The type of the values of the `ChainListEntry` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type ChainListEntry = typeof ChainListEntry.Type

/**
 * The whole body of `GET /v2/chainlist` (no status/message envelope).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ChainList = Schema.Struct({
  comments: Schema.String,
  totalcount: Schema.Number,
  result: Schema.Array(ChainListEntry)
}).annotations({ identifier: "ChainList" })
/**
 * The type of the values of the `ChainList` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type ChainList = typeof ChainList.Type
