/**
 * Records of the `nametag` module: address metadata (`getaddresstag`, JSON), the bulk export of the same
 * records (`exportaddresstags`, a `;`-delimited CSV file behind a download URL) and the label master list.
 * The rows of the CSV files and their cells are described here; the files themselves are read and written
 * by TagFiles.ts (`Schemas.parseAddressTagsCsv`, `Schemas.formatAddressTagsCsv`). The column order is the
 * field order of {@link AddressTag}, which is the header of the docs.
 *
 * List cells (`labels`, `labels_slug`, `other_attributes`) hold, as the docs' sample file shows
 * (`"Phish / Hack";"phish-hack";"2";""`), the items joined with `,` (`""` for none). A list that cannot be
 * written that way without ambiguity (an item that is empty, contains a `,`, or a first item starting with
 * `[`) is written as JSON array text (`["a,b","c"]`); a cell starting with `[` that parses as a JSON array of
 * strings is read that way. So `parse(format(rows))` gives back `rows` exactly.
 */
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { AddressField, JsonInt } from "./common.js"

// ---------------------------------------------------------------------------------------------------------
// JSON records

/**
 * One row of `nametag/getaddresstag`: the public name tag and labels of an address. `labels`,
 * `labels_slug` and `other_attributes` are JSON arrays; `reputation` and `lastupdatedtimestamp` JSON numbers.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AddressTag = Schema.Struct({
  address: AddressField,
  /** Public name tag (`"Coinbase 10"`), `""` when none. */
  nametag: Schema.String,
  /** Etherscan's internal name tag, usually `""`. */
  internal_nametag: Schema.String,
  /** Website of the entity, `""` when none. */
  url: Schema.String,
  shortdescription: Schema.String,
  /** Free-text notes (warnings such as phishing reports). */
  notes_1: Schema.String,
  notes_2: Schema.String,
  /** Label names (`["Coinbase", "Exchange"]`). */
  labels: Schema.Array(Schema.String),
  /** Label slugs, same order as `labels` (`["coinbase", "exchange"]`). */
  labels_slug: Schema.Array(Schema.String),
  /** Reputation score (a JSON number; `0` neutral, `2` in phishing exports). */
  reputation: JsonInt,
  /** Extra attributes; the docs only show an empty array, items assumed to be strings. */
  other_attributes: Schema.Array(Schema.String),
  /** Last update, unix seconds (a JSON number). */
  lastupdatedtimestamp: JsonInt
}).annotations({ identifier: "AddressTag" })
/**
 * The type of the values of the `AddressTag` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type AddressTag = typeof AddressTag.Type
/**
 * Wire form of {@link AddressTag}.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace AddressTag {
  /**
   * The record exactly as the server sends it.
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof AddressTag.Encoded
}

/**
 * One row of `nametag/getlabelmasterlist`: a label (category) that addresses can carry.
 *
 * @since 0.1.0
 * @category schemas
 */
export const LabelMaster = Schema.Struct({
  /** Display name (`"Axelar"`). */
  labelname: Schema.String,
  /** Slug, the `label` parameter of exportaddresstags (`"axelar"`). */
  labelslug: Schema.String,
  shortdescription: Schema.String,
  notes: Schema.String,
  /** Last update, unix seconds (a JSON number). */
  lastupdatedtimestamp: JsonInt
}).annotations({ identifier: "LabelMaster" })
/**
 * The type of the values of the `LabelMaster` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type LabelMaster = typeof LabelMaster.Type
/**
 * Wire form of {@link LabelMaster}.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace LabelMaster {
  /**
   * The record exactly as the server sends it.
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof LabelMaster.Encoded
}

// ---------------------------------------------------------------------------------------------------------
// CSV cells

/**
 * Writes a list into one CSV cell (see the module comment for the rules).
 *
 * @since 0.1.0
 * @category csv
 */
export const formatListCell = (items: ReadonlyArray<string>): string => {
  if (items.length === 0) return ""
  const plain = !(items[0] ?? "").startsWith("[") && items.every((item) => item !== "" && !item.includes(","))
  return plain ? items.join(",") : JSON.stringify(items)
}

const parseJsonStringArray = (cell: string): ReadonlyArray<string> | undefined => {
  try {
    const value: unknown = JSON.parse(cell)
    return Array.isArray(value) && value.every((item): item is string => typeof item === "string") ? value : undefined
  } catch {
    return undefined
  }
}

/**
 * Reads a list from one CSV cell: `""` → `[]`, JSON array text → its items, otherwise split on `,`.
 *
 * @since 0.1.0
 * @category csv
 */
export const parseListCell = (cell: string): ReadonlyArray<string> =>
  cell === "" ? [] : (cell.startsWith("[") ? parseJsonStringArray(cell) : undefined) ?? cell.split(",")

/**
 * A CSV cell holding a list of strings (see the module comment).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListCell: Schema.Schema<ReadonlyArray<string>, string> = Schema.transform(
  Schema.String,
  Schema.Array(Schema.String),
  { strict: true, decode: parseListCell, encode: formatListCell }
).annotations({ identifier: "ListCell" })

const SIGNED_DECIMAL = /^-?(?:0|[1-9][0-9]*)$/

/**
 * A CSV cell holding an integer in decimal (`"2"`, `"1728292621"`), decoded to a safe integer.
 *
 * @since 0.1.0
 * @category schemas
 */
export const IntCell: Schema.Schema<number, string> = Schema.transformOrFail(Schema.String, Schema.Number, {
  strict: true,
  decode: (s, _, ast) => {
    const n = SIGNED_DECIMAL.test(s) && s.length <= 17 ? Number(s) : Number.NaN
    return Number.isSafeInteger(n)
      ? ParseResult.succeed(n)
      : ParseResult.fail(new ParseResult.Type(ast, s, `Expected a decimal integer, got ${JSON.stringify(s)}`))
  },
  encode: (n) => ParseResult.succeed(String(n))
}).annotations({
  identifier: "IntCell",
  arbitrary: () => (fc) => fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER })
})

/**
 * One row of the exportaddresstags CSV file: the same record as {@link AddressTag} (same decoded type, same
 * column order), with every cell a string on the encoded side.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AddressTagCsvRow = Schema.Struct({
  address: AddressField,
  nametag: Schema.String,
  internal_nametag: Schema.String,
  url: Schema.String,
  shortdescription: Schema.String,
  notes_1: Schema.String,
  notes_2: Schema.String,
  labels: ListCell,
  labels_slug: ListCell,
  reputation: IntCell,
  other_attributes: ListCell,
  lastupdatedtimestamp: IntCell
}).annotations({ identifier: "AddressTagCsvRow" })
/**
 * The type of the values of the `AddressTagCsvRow` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type AddressTagCsvRow = typeof AddressTagCsvRow.Type
/**
 * Wire form of {@link AddressTagCsvRow}: one object of CSV cells keyed by header name.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace AddressTagCsvRow {
  /**
   * The row's cells as written in the file.
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof AddressTagCsvRow.Encoded
}

/**
 * One row of the getlabelmasterlist CSV file: a {@link LabelMaster} with every cell a string.
 *
 * @since 0.1.0
 * @category schemas
 */
export const LabelMasterCsvRow = Schema.Struct({
  labelname: Schema.String,
  labelslug: Schema.String,
  shortdescription: Schema.String,
  notes: Schema.String,
  lastupdatedtimestamp: IntCell
}).annotations({ identifier: "LabelMasterCsvRow" })
/**
 * The type of the values of the `LabelMasterCsvRow` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type LabelMasterCsvRow = typeof LabelMasterCsvRow.Type
/**
 * Wire form of {@link LabelMasterCsvRow}.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace LabelMasterCsvRow {
  /**
   * The row's cells as written in the file.
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof LabelMasterCsvRow.Encoded
}

/**
 * The column order of the exportaddresstags file: the header of the docs, the fields of {@link AddressTag}.
 *
 * @since 0.1.0
 * @category constants
 */
export const addressTagColumns: ReadonlyArray<string> = Object.keys(AddressTagCsvRow.fields)

/**
 * The column order of the getlabelmasterlist file: the fields of {@link LabelMaster}.
 *
 * @since 0.1.0
 * @category constants
 */
export const labelMasterColumns: ReadonlyArray<string> = Object.keys(LabelMasterCsvRow.fields)
