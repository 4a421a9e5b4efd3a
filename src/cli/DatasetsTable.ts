/**
 * The table of data sets in docs/cli.md, rendered from the registry (streams/datasets/): one row per
 * data set with its command, its filters (its own flags, then the block range of a block-ordered one
 * and `--decimals` where its amounts can be made readable, as `ExportCommand.commandOf` adds them), the
 * operations it reads with the lowest plan of each, and its one line. `npm run docs:datasets` writes it
 * between the markers of docs/cli.md; test/docs checks that the page holds what the registry renders.
 */
import * as Plan from "../Plan.js"
import * as Dataset from "../streams/Dataset.js"
import * as Registry from "../streams/datasets/index.js"

/** The markers the table is written between. */
export const markers = { start: "<!-- datasets:start (generated from src/streams/datasets/ by npm run docs:datasets) -->", end: "<!-- datasets:end -->" }

/** A flag as a reader types it: `--topic-op` (repeatable), `--sort asc|desc`. */
const flagText = (flag: Dataset.Flag): string => {
  switch (flag._tag) {
    case "Repeated":
      return `\`--${flag.name}\` (repeatable)`
    case "Choice":
      return flag.values.length <= 3 ? `\`--${flag.name} ${flag.values.join("\\|")}\`` : `\`--${flag.name} <${flag.pseudoName}>\``
    case "Text":
      return flag.optional === true ? `\`--${flag.name}\` (optional)` : `\`--${flag.name}\``
    case "WholeNumber":
      return `\`--${flag.name} N\``
  }
}

/** The filters a data set's command takes, in the order of its help. */
export const filtersOf = (dataset: Dataset.Info): ReadonlyArray<string> => [
  ...Object.values(dataset.flags).map(flagText),
  ...(dataset.paging === "blocks" ? ["`--from-block N`", "`--to-block N\\|latest`"] : []),
  ...(dataset.decimals === undefined ? [] : ["`--decimals`"])
]

/** The operations a data set reads, each with the lowest plan that has it. */
const operationsText = (dataset: Dataset.Info): string => {
  const operations = Dataset.operationsOf(dataset)
  const shown = operations.length > 3 ? [operations[0] as Plan.OperationName, operations[operations.length - 1] as Plan.OperationName] : operations
  const text = shown.map((name) => `${name} (${Plan.operations[name].minimumPlan})`).join(operations.length > 3 ? " … " : ", ")
  return operations.length > 3 ? `${text}: ${operations.length} operations` : text
}

/** The Markdown table of a registry's data sets (indented as docs/cli.md's list item holds it). */
export const render = (registry: Registry.Registry, indent = "  "): string =>
  [
    "| dataset | library | filters | operations (lowest plan) | what |",
    "|---|---|---|---|---|",
    ...Registry.list(registry).map((dataset) =>
      `| \`${dataset.command}\` | \`Sources.${dataset.name}\` | ${filtersOf(dataset).join(", ")} | ${operationsText(dataset)} | ${dataset.description.replace(/\|/g, "\\|")} |`
    )
  ].map((line) => indent + line).join("\n")

/** `text` (a page) with the table between its markers replaced by `table`; undefined when it has no markers. */
export const replaceTable = (text: string, table: string): string | undefined => {
  const start = text.indexOf(markers.start)
  const end = text.indexOf(markers.end)
  if (start === -1 || end === -1 || end < start) return undefined
  const lineStart = text.lastIndexOf("\n", start) + 1
  const indent = text.slice(lineStart, start)
  return `${text.slice(0, start + markers.start.length)}\n${table}\n${indent}${text.slice(end)}`
}

/** The table of docs/cli.md as it is now, between its markers; undefined when it has no markers. */
export const tableIn = (text: string): string | undefined => {
  const start = text.indexOf(markers.start)
  const end = text.indexOf(markers.end)
  if (start === -1 || end === -1 || end < start) return undefined
  return text.slice(start + markers.start.length, text.lastIndexOf("\n", end)).replace(/^\n/, "")
}
