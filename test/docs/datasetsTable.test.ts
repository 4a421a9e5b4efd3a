/**
 * The table of data sets in docs/cli.md is the registry's (src/streams/datasets/): it is rendered from
 * it (`npm run docs:datasets`), and this fails when the page and the registry disagree — a data set
 * added, removed or renamed, a flag or a description changed — until the table is written again.
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import * as DatasetsTable from "../../src/cli/DatasetsTable.js"
import * as Dataset from "../../src/streams/Dataset.js"
import * as Registry from "../../src/streams/datasets/index.js"
import { repoRoot } from "../cli/helpers.js"
import { walletTransactions } from "../fixtures/datasets/walletTransactions.js"

const page = join(repoRoot, "docs", "cli.md")

describe("docs/cli.md's table of data sets", () => {
  it("is what the registry renders (npm run docs:datasets writes it)", () => {
    const text = readFileSync(page, "utf8")
    expect(DatasetsTable.tableIn(text)).toBe(DatasetsTable.render(Registry.library))
  })

  it("has a row for every data set, and no other", () => {
    const rows = (DatasetsTable.tableIn(readFileSync(page, "utf8")) ?? "").split("\n").slice(2)
    const commands = rows.map((row) => /^\s*\| `([\w-]+)`/.exec(row)?.[1])
    expect(commands).toEqual(Registry.list(Registry.library).map((d) => d.command))
  })

  it("would fail with a data set the page does not have", () => {
    const text = readFileSync(page, "utf8")
    const withFixture = { ...Registry.library, walletTransactions }
    expect(DatasetsTable.tableIn(text)).not.toBe(DatasetsTable.render(withFixture))
    // and writing the table again puts it in
    const written = DatasetsTable.replaceTable(text, DatasetsTable.render(withFixture)) ?? ""
    expect(DatasetsTable.tableIn(written)).toBe(DatasetsTable.render(withFixture))
    expect(written).toContain("`wallet-txs`")
  })
})

describe("docs/operations.md's CLI column", () => {
  it("names `export <command>` in the row of each operation a data set reads, and nowhere else", () => {
    const text = readFileSync(join(repoRoot, "docs", "operations.md"), "utf8")
    const named = new Set<string>()
    for (const line of text.split("\n")) {
      const cells = line.split(" | ")
      const action = /^\| [\w-]+\/(\w+)$/.exec(cells[0] ?? "")?.[1]
      if (action === undefined || cells[3] === undefined) continue
      for (const m of cells[3].matchAll(/`export ([\w-]+)[^`]*`/g)) named.add(`${action} ${m[1]}`)
    }
    const expected = Registry.list(Registry.library).flatMap((d) => Dataset.operationsOf(d).map((op) => `${op} ${d.command}`))
    expect([...named].sort()).toEqual(expected.sort())
  })
})
