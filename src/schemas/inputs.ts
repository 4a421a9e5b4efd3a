/**
 * The validators of what a caller passes (Params.ts builds the operations' parameters from
 * them): addresses, hashes, topics, dates, block numbers, and the API's small enumerations. Stricter
 * than the record fields of common.ts, which also take the server's pseudo-values (`GENESIS`).
 *
 * @example
 * import { Schema } from "effect"
 * import { Schemas } from "explorer-etl"
 * Schema.is(Schemas.IsoDate)("2026-02-30") // false
 */
import * as Schema from "effect/Schema"
import { Hash32 } from "./common.js"

/**
 * Input validator: an address, `0x` + 40 hex digits (either case; the checksum is not verified).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Address = Schema.String.pipe(Schema.pattern(/^0x[0-9a-fA-F]{40}$/)).annotations({ identifier: "Address" })
/**
 * The type of the values of the `Address` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type Address = typeof Address.Type

/**
 * Input validator: a transaction hash (a {@link Hash32}).
 *
 * @since 0.1.0
 * @category schemas
 */
export const TxHash = Hash32.annotations({ identifier: "TxHash" })
/**
 * The type of the values of the `TxHash` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type TxHash = typeof TxHash.Type

/**
 * Input validator: a log topic (a {@link Hash32}).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Topic = Hash32.annotations({ identifier: "Topic" })
/**
 * The type of the values of the `Topic` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type Topic = typeof Topic.Type

const isLeapYear = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const

/**
 * Whether `s` is a real calendar date written `yyyy-MM-dd` (proleptic Gregorian, years 0001–9999).
 *
 * @since 0.1.0
 * @category guards
 */
export const isIsoDate = (s: string): boolean => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s)
  if (m === null) return false
  const year = Number(m[1])
  const month = Number(m[2])
  const day = Number(m[3])
  if (year < 1 || month < 1 || month > 12 || day < 1) return false
  const days = month === 2 && isLeapYear(year) ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0)
  return day <= days
}

/**
 * Input validator: a calendar date `yyyy-MM-dd` (startdate/enddate of the daily stats); `2026-02-30` fails.
 *
 * @since 0.1.0
 * @category schemas
 */
export const IsoDate = Schema.String.pipe(
  Schema.filter(isIsoDate, { description: "a real calendar date written yyyy-MM-dd" })
).annotations({
  identifier: "IsoDate",
  arbitrary: () => (fc) =>
    fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10))
})
/**
 * The type of the values of the `IsoDate` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type IsoDate = typeof IsoDate.Type

/**
 * Input validator: a block number the client may send (a non-negative safe integer).
 *
 * @since 0.1.0
 * @category schemas
 */
export const BlockNumberInput = Schema.NonNegativeInt.annotations({ identifier: "BlockNumberInput" })
/**
 * The type of the values of the `BlockNumberInput` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type BlockNumberInput = typeof BlockNumberInput.Type

/**
 * Input validator: the `sort` parameter of the list operations.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Sort = Schema.Literal("asc", "desc").annotations({ identifier: "Sort" })
/**
 * The type of the values of the `Sort` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type Sort = typeof Sort.Type

/**
 * Input validator: the `closest` parameter of getblocknobytime.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Closest = Schema.Literal("before", "after").annotations({ identifier: "Closest" })
/**
 * The type of the values of the `Closest` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type Closest = typeof Closest.Type

/**
 * Input validator: a getLogs topic operator (`topic0_1_opr` …).
 *
 * @since 0.1.0
 * @category schemas
 */
export const TopicOperator = Schema.Literal("and", "or").annotations({ identifier: "TopicOperator" })
/**
 * The type of the values of the `TopicOperator` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type TopicOperator = typeof TopicOperator.Type
