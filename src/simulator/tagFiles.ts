/**
 * The download files behind exportaddresstags and getlabelmasterlist, written as the service writes them
 * (facts §2.24–2.25, Part A.9): `;`-delimited CSV, the header first, every cell double-quoted (`""` for a
 * quote inside a cell), CRLF after every line.
 *
 * List cells (`labels`, `labels_slug`, `other_attributes`) hold the items joined with `,`, as the docs'
 * sample file shows (`"Phish / Hack";"phish-hack";"2";""`). A list that a `,` join would garble (an empty
 * item, an item holding a `,`, a first item starting with `[`) is written as JSON array text instead.
 *
 * The simulator's own writer: the client reads these files with its own parser (`schemas/nametag.ts`), so
 * a test of one against the other checks both instead of a shared module agreeing with itself.
 */
import type { AddressTag, LabelMaster } from "../schemas/nametag.js"

/** The header of the exportaddresstags file, as the docs give it (facts §2.24). */
export const ADDRESS_TAGS_HEADER = [
  "address", "nametag", "internal_nametag", "url", "shortdescription", "notes_1", "notes_2", "labels",
  "labels_slug", "reputation", "other_attributes", "lastupdatedtimestamp"
] as const satisfies ReadonlyArray<keyof AddressTag>

/** The header of the getlabelmasterlist file: the fields of its JSON records, in the docs' order (§2.25). */
export const LABEL_MASTER_HEADER = [
  "labelname", "labelslug", "shortdescription", "notes", "lastupdatedtimestamp"
] as const satisfies ReadonlyArray<keyof LabelMaster>

type Cell = string | number | ReadonlyArray<string>

const listCell = (items: ReadonlyArray<string>): string => {
  if (items.length === 0) return ""
  const joinable = !(items[0] ?? "").startsWith("[") && items.every((item) => item !== "" && !item.includes(","))
  return joinable ? items.join(",") : JSON.stringify(items)
}

const cellText = (value: Cell): string =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : listCell(value)

const line = (cells: ReadonlyArray<string>): string =>
  cells.map((cell) => "\"" + cell.replaceAll("\"", "\"\"") + "\"").join(";") + "\r\n"

const csvFile = <K extends string>(header: ReadonlyArray<K>, rows: ReadonlyArray<Readonly<Record<K, Cell>>>): string => {
  let out = line(header)
  for (const row of rows) out += line(header.map((column) => cellText(row[column])))
  return out
}

/** The exportaddresstags file of these records. */
export const addressTagsCsv = (rows: ReadonlyArray<AddressTag>): string => csvFile(ADDRESS_TAGS_HEADER, rows)

/** The getlabelmasterlist file of these records. */
export const labelMasterCsv = (rows: ReadonlyArray<LabelMaster>): string => csvFile(LABEL_MASTER_HEADER, rows)
