/**
 * Results of the `module=proxy` operations (Ethereum JSON-RPC passed through the explorer). Their bodies are
 * JSON-RPC ({@link JsonRpcSuccess} / {@link JsonRpcFailure} in envelope.ts); gateway errors (key, rate,
 * chain) still come as an {@link Envelope}.
 *
 * @example
 * import { Schema } from "effect"
 * import { GasPriceResponse } from "explorer-etl"
 * Schema.decodeUnknownSync(GasPriceResponse)({ jsonrpc: "2.0", id: 73, result: "0x1d9d2db2" }).result // 496840114n
 */
import * as Schema from "effect/Schema"
import { HexQuantityBigInt } from "./common.js"
import { JsonRpcId } from "./envelope.js"

/** The `result` of `proxy/eth_gasPrice`: wei per gas as a JSON-RPC hex quantity, decoded to a `bigint`. */
export const GasPrice = HexQuantityBigInt.annotations({ identifier: "GasPrice" })
/** @see GasPrice */
export type GasPrice = typeof GasPrice.Type

/**
 * A successful JSON-RPC body whose `result` is decoded with `result` (a typed {@link JsonRpcSuccess}).
 */
export const JsonRpcResult = <A, I, R>(result: Schema.Schema<A, I, R>) =>
  Schema.Struct({
    jsonrpc: Schema.String,
    id: JsonRpcId,
    result
  })

/** The whole successful body of `proxy/eth_gasPrice`, `result` decoded with {@link GasPrice}. */
export const GasPriceResponse = JsonRpcResult(GasPrice).annotations({ identifier: "GasPriceResponse" })
/** @see GasPriceResponse */
export type GasPriceResponse = typeof GasPriceResponse.Type
