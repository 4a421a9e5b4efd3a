/**
 * Results of the `gastracker` module.
 *
 * @example
 * import { Schema } from "effect"
 * import { GasOracle } from "explorer-etl"
 * Schema.decodeUnknownSync(GasOracle)({ LastBlock: "13053741", SafeGasPrice: "20", ProposeGasPrice: "22", FastGasPrice: "24" })
 */
import * as Schema from "effect/Schema"
import { DecimalInt } from "./common.js"

/**
 * The `result` of `gastracker/gasoracle`. Prices are gwei as decimal strings ("119.9", "0.496839934"),
 * kept as sent so that nothing is rounded. `suggestBaseFee` and `gasUsedRatio` (five comma-separated
 * ratios) are absent from pre-London answers; `UsdPrice` appears on some chains (Polygon).
 *
 * @since 0.1.0
 * @category schemas
 */
export const GasOracle = Schema.Struct({
  LastBlock: DecimalInt,
  SafeGasPrice: Schema.String,
  ProposeGasPrice: Schema.String,
  FastGasPrice: Schema.String,
  suggestBaseFee: Schema.optional(Schema.String),
  gasUsedRatio: Schema.optional(Schema.String),
  UsdPrice: Schema.optional(Schema.String)
}).annotations({ identifier: "GasOracle" })
/**
 * The type of the values of the `GasOracle` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type GasOracle = typeof GasOracle.Type

/**
 * The `result` of `gastracker/gasestimate`: estimated seconds to confirmation, a decimal string.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ConfirmationSeconds = DecimalInt.annotations({ identifier: "ConfirmationSeconds" })
/**
 * The type of the values of the `ConfirmationSeconds` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type ConfirmationSeconds = typeof ConfirmationSeconds.Type
