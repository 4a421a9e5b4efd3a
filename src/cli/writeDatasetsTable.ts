/**
 * Writes the table of data sets into docs/cli.md from the registry (`npm run docs:datasets`).
 */
import { readFileSync, writeFileSync } from "node:fs"
import { library } from "../streams/datasets/index.js"
import { render, replaceTable } from "./DatasetsTable.js"

const page = new URL("../../docs/cli.md", import.meta.url)
const updated = replaceTable(readFileSync(page, "utf8"), render(library))
if (updated === undefined) throw new Error("docs/cli.md has no datasets markers")
writeFileSync(page, updated)
