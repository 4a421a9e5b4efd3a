/**
 * The simulator is a second, independent copy of the service: it may read domain data (chain ids and
 * names) and the record schemas' types, never a rule of the client (Plan.ts, the chain table's
 * free-tier flag, the client, its internals, its tag-file writer). Otherwise a wrong client rule would
 * be confirmed by every test run against the simulator. This scans every import of src/simulator/.
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const SIMULATOR_DIR = fileURLToPath(new URL("../../src/simulator/", import.meta.url))

/** What the simulator may take from Chain.ts: the table's ids and names, not its free-tier rule. */
const CHAIN_DATA: ReadonlySet<string> = new Set(["chains", "byId", "ChainId", "ChainInfo"])

/** Client modules that hold rules, each with the reason a test reader needs. */
const FORBIDDEN: ReadonlyArray<readonly [RegExp, string]> = [
  [/(^|\/)Plan\.js$/, "Plan.ts holds the client's rules; the simulator's are in simulator/rules.ts"],
  [/(^|\/)ExplorerClient\.js$/, "the simulator must not depend on the client"],
  [/(^|\/)internal\//, "the client's internals (classifier, transport) are its rules"],
  [/(^|\/)Params\.js$/, "Params.ts holds the client's parameter checks and plan rules"],
  [/(^|\/)ServerTexts\.js$/, "the server's texts are the simulator's own (simulator/texts.ts)"]
]

interface Binding {
  readonly name: string
  readonly typeOnly: boolean
}

interface ImportSite {
  readonly specifier: string
  /** Named bindings; a namespace import is `*` and its used members are checked separately. */
  readonly bindings: ReadonlyArray<Binding>
  /** The local name of a namespace import (`import * as Chain`). */
  readonly namespace: string | undefined
}

const importsOf = (file: string, text: string): { readonly sites: ReadonlyArray<ImportSite>; readonly source: ts.SourceFile } => {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true)
  const sites: Array<ImportSite> = []
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause
      const allTypes = clause?.isTypeOnly === true
      const bindings: Array<Binding> = []
      let namespace: string | undefined
      if (clause?.name !== undefined) bindings.push({ name: "default", typeOnly: allTypes })
      const named = clause?.namedBindings
      if (named !== undefined && ts.isNamespaceImport(named)) namespace = named.name.text
      if (named !== undefined && ts.isNamedImports(named)) {
        for (const e of named.elements) bindings.push({ name: (e.propertyName ?? e.name).text, typeOnly: allTypes || e.isTypeOnly })
      }
      sites.push({ specifier: node.moduleSpecifier.text, bindings, namespace })
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.exportClause
      const bindings = clause !== undefined && ts.isNamedExports(clause)
        ? clause.elements.map((e) => ({ name: (e.propertyName ?? e.name).text, typeOnly: node.isTypeOnly || e.isTypeOnly }))
        : [{ name: "*", typeOnly: node.isTypeOnly }]
      sites.push({ specifier: node.moduleSpecifier.text, bindings, namespace: undefined })
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      // `import("../Plan.js").Plan` in a type position
      const q = node.qualifier
      const name = q === undefined ? "*" : ts.isIdentifier(q) ? q.text : q.getText(source).split(".")[0] ?? "*"
      sites.push({ specifier: node.argument.literal.text, bindings: [{ name, typeOnly: true }], namespace: undefined })
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0]
      const specifier = arg !== undefined && ts.isStringLiteralLike(arg) ? arg.text : "<computed>"
      sites.push({ specifier, bindings: [{ name: "*", typeOnly: false }], namespace: undefined })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return { sites, source }
}

/** Members read off a namespace import: `Chain.isFreeTier` → "isFreeTier". */
const membersOf = (source: ts.SourceFile, namespace: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === namespace) {
      out.push(node.name.text)
    } else if (ts.isQualifiedName(node) && ts.isIdentifier(node.left) && node.left.text === namespace) {
      out.push(node.right.text)
    } else if (ts.isIdentifier(node) && node.text === namespace && !ts.isImportClause(node.parent) && !ts.isNamespaceImport(node.parent) &&
      !ts.isPropertyAccessExpression(node.parent) && !ts.isQualifiedName(node.parent)) {
      out.push("<the whole namespace>")
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return out
}

/** Reads of the chain table's free-tier flag (`c.freeTier`, `{ freeTier }`): a rule, whoever holds the row. */
const freeTierReads = (source: ts.SourceFile): number => {
  let n = 0
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && node.name.text === "freeTier") n++
    if (ts.isBindingElement(node) && (node.propertyName ?? node.name).getText(source) === "freeTier") n++
    if (ts.isElementAccessExpression(node) && ts.isStringLiteral(node.argumentExpression) && node.argumentExpression.text === "freeTier") n++
    ts.forEachChild(node, visit)
  }
  visit(source)
  return n
}

/** Every import of one simulator file that breaks the rule, as readable lines. */
const violations = (file: string, text: string): ReadonlyArray<string> => {
  const { sites, source } = importsOf(file, text)
  const out: Array<string> = []
  for (const site of sites) {
    const s = site.specifier
    const at = `${file}: "${s}"`
    const forbidden = FORBIDDEN.find(([pattern]) => pattern.test(s))
    if (forbidden !== undefined) {
      out.push(`${at}: ${forbidden[1]}`)
    } else if (s === "effect" || s.startsWith("effect/") || s.startsWith("@effect/") || s.startsWith("ox/") || s.startsWith("node:")) {
      continue
    } else if (s.startsWith("./")) {
      continue
    } else if (s === "../Chain.js") {
      const used = site.namespace === undefined ? site.bindings.map((b) => b.name) : membersOf(source, site.namespace)
      for (const name of new Set(used)) if (!CHAIN_DATA.has(name)) out.push(`${at}: ${name} is not chain data (allowed: ${[...CHAIN_DATA].join(", ")})`)
    } else if (/^\.\.\/schemas\/[A-Za-z]+\.js$/.test(s)) {
      // Types give the records' shapes; a value (a writer, a parser, a decoder) would be the client's code.
      if (site.namespace !== undefined) out.push(`${at}: import the schemas' types by name, not a namespace`)
      for (const b of site.bindings) if (!b.typeOnly) out.push(`${at}: ${b.name} is a value; only the schemas' types may be imported`)
    } else {
      out.push(`${at}: not a simulator file, a package, chain data or a schema type`)
    }
  }
  if (freeTierReads(source) > 0) out.push(`${file}: reads the chain table's freeTier flag; the paid-only chains are in simulator/rules.ts`)
  return out
}

const simulatorFiles = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? simulatorFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []
  )

describe("the simulator imports no rule of the client", () => {
  it("every file under src/simulator/ imports only packages, simulator files, chain data and schema types", () => {
    const files = simulatorFiles(SIMULATOR_DIR)
    const scanned = files.map((f) => ({ file: relative(SIMULATOR_DIR, f), text: readFileSync(f, "utf8") }))
    expect(scanned.flatMap(({ file, text }) => violations(file, text))).toEqual([])
    // Not vacuous: the scan sees the files and the allowed imports from outside the folder.
    expect(scanned.map((s) => s.file)).toEqual(expect.arrayContaining(["core.ts", "api.ts", "rules.ts", "server.ts", "tagFiles.ts"]))
    const outside = new Set(scanned.flatMap(({ file, text }) => importsOf(file, text).sites.map((s) => s.specifier)).filter((s) => s.startsWith("../")))
    expect([...outside].sort()).toEqual(["../Chain.js", "../schemas/nametag.js"])
  })

  // The lines the simulator had before it held its own rules: each must be caught.
  it("catches the client's rules, whichever way they are imported", () => {
    const old = [
      "import * as Chain from \"../Chain.js\"",
      "import * as Plan from \"../Plan.js\"",
      "import * as Texts from \"../ServerTexts.js\"",
      "import { type AddressTag, formatAddressTagsCsv, formatLabelMasterCsv, type LabelMaster } from \"../schemas/nametag.js\"",
      "const free = Chain.isFreeTier(1) && Chain.isSupported(1) && Chain.byId(1)?.name",
      "const hyper = Chain.HYPEREVM"
    ].join("\n")
    expect(violations("old.ts", old)).toEqual([
      "old.ts: \"../Chain.js\": isFreeTier is not chain data (allowed: chains, byId, ChainId, ChainInfo)",
      "old.ts: \"../Chain.js\": isSupported is not chain data (allowed: chains, byId, ChainId, ChainInfo)",
      "old.ts: \"../Chain.js\": HYPEREVM is not chain data (allowed: chains, byId, ChainId, ChainInfo)",
      "old.ts: \"../Plan.js\": Plan.ts holds the client's rules; the simulator's are in simulator/rules.ts",
      "old.ts: \"../ServerTexts.js\": the server's texts are the simulator's own (simulator/texts.ts)",
      "old.ts: \"../schemas/nametag.js\": formatAddressTagsCsv is a value; only the schemas' types may be imported",
      "old.ts: \"../schemas/nametag.js\": formatLabelMasterCsv is a value; only the schemas' types may be imported"
    ])
    const sneaky = [
      "import type { Plan } from \"../Plan.js\"",
      "export { requiredPlan } from \"../Plan.js\"",
      "type Op = import(\"../Plan.js\").Operation",
      "const lazy = () => import(\"../internal/params.js\")",
      "import { ExplorerClient } from \"../ExplorerClient.js\"",
      "import { isFreeTier } from \"../Chain.js\"",
      "import { parse } from \"csv-parse/sync\"",
      "const paidOnly = (c: { freeTier: boolean }) => !c.freeTier"
    ].join("\n")
    expect(violations("sneaky.ts", sneaky)).toHaveLength(8)
  })

  it("lets chain data and schema types through", () => {
    const fine = [
      "import * as Chain from \"../Chain.js\"",
      "import { type ChainId, chains } from \"../Chain.js\"",
      "import type { AddressTag } from \"../schemas/nametag.js\"",
      "import * as Effect from \"effect/Effect\"",
      "import { createServer } from \"node:http\"",
      "import * as Rules from \"./rules.js\"",
      "const name = Chain.byId(1)?.name ?? Chain.chains.length"
    ].join("\n")
    expect(violations("fine.ts", fine)).toEqual([])
  })
})
