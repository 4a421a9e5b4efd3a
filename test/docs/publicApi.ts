/**
 * The public surface of the package as the TypeScript compiler sees it: every export reachable from the
 * entry points of package.json's "exports", following `export * as X` into namespaces and declared
 * namespaces into their members. Used by the API reference test to name exports without `@since` or
 * `@category`.
 */
import * as path from "node:path"
import ts from "typescript"

/** The entry points of package.json "exports", as the sources they are built from. */
export const entryPoints = [
  { name: "explorer-etl", file: "src/index.ts" },
  { name: "explorer-etl/simulator", file: "src/simulator/index.ts" },
  { name: "explorer-etl/pipeline", file: "src/Pipeline.ts" }
] as const

/**
 * One public export: the path a user writes, where it is declared, the tags its doc comment has, and
 * whether that comment says something besides its tags.
 */
export interface PublicExport {
  readonly name: string
  readonly location: string
  readonly tags: ReadonlyArray<string>
  readonly described: boolean
}

const tagsOf = (nodes: ReadonlyArray<ts.Node>): Array<string> =>
  nodes.flatMap((node) => ts.getJSDocTags(node).map((tag) => tag.tagName.text))

const describedBy = (nodes: ReadonlyArray<ts.Node>): boolean =>
  nodes.some((node) =>
    ts.getJSDocCommentsAndTags(node).some((doc) =>
      ts.isJSDoc(doc) && (ts.getTextOfJSDocComment(doc.comment) ?? "").trim() !== ""
    )
  )

const locationOf = (root: string, node: ts.Node): string => {
  const file = node.getSourceFile()
  const { line } = file.getLineAndCharacterOfPosition(node.getStart())
  return `${path.relative(root, file.fileName)}:${line + 1}`
}

/**
 * The tags of a module's own doc comment: the first comment of the file when it says `@module` (what
 * typedoc shows for `export * as X from "./X.js"` when that line has no doc comment of its own).
 */
const moduleCommentOf = (file: ts.SourceFile): { readonly tags: Array<string>; readonly described: boolean } => {
  const first = ts.getLeadingCommentRanges(file.text, 0)?.find((range) => file.text.startsWith("/**", range.pos))
  if (first === undefined) return { tags: [], described: false }
  const text = file.text.slice(first.pos, first.end)
  const tags = Array.from(text.matchAll(/^\s*\*\s*@(\w+)/gm), (m) => m[1]!)
  if (!tags.includes("module")) return { tags: [], described: false }
  const description = text.replace(/^\/\*\*/, "").split(/^\s*\*\s*@/m)[0]!.replace(/^\s*\*/gm, "").trim()
  return { tags, described: description !== "" }
}

const isTypeDeclaration = (node: ts.Node): boolean => ts.isTypeAliasDeclaration(node) || ts.isInterfaceDeclaration(node)

const isNamespaceModule = (symbol: ts.Symbol): boolean =>
  (symbol.flags & ts.SymbolFlags.Module) !== 0 &&
  (symbol.declarations ?? []).some((d) => ts.isSourceFile(d) || ts.isModuleDeclaration(d))

const compilerOptions = (root: string): ts.CompilerOptions => {
  const configPath = path.join(root, "tsconfig.build.json")
  if (!ts.sys.fileExists(configPath)) {
    return { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true }
  }
  const config = ts.getParsedCommandLineOfConfigFile(configPath, {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"))
    }
  })
  if (config === undefined) throw new Error(`cannot read ${configPath}`)
  return config.options
}

/**
 * Walks the entry points of the package in `root` (its tsconfig.build.json, if any, gives the compiler
 * options) and returns every public export once per path a user can write.
 */
export const publicExports = (
  root: string,
  entries: ReadonlyArray<{ readonly name: string; readonly file: string }> = entryPoints
): Array<PublicExport> => {
  const program = ts.createProgram({
    rootNames: entries.map((e) => path.join(root, e.file)),
    options: { ...compilerOptions(root), noEmit: true, incremental: false }
  })
  const checker = program.getTypeChecker()
  const found: Array<PublicExport> = []
  const seen = new Set<ts.Symbol>()

  const visitModule = (prefix: string, moduleSymbol: ts.Symbol) => {
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      if (exported.name === "default" || exported.name === "__esModule") continue
      const name = `${prefix}.${exported.name}`
      const aliasDeclarations = (exported.flags & ts.SymbolFlags.Alias) !== 0 ? exported.declarations ?? [] : []
      const target = (exported.flags & ts.SymbolFlags.Alias) !== 0 ? checker.getAliasedSymbol(exported) : exported
      const sourceFile = (target.declarations ?? []).find(ts.isSourceFile)
      if (sourceFile !== undefined) {
        // `export * as X from "./X.js"`: documented above that line, or by the module's own comment.
        const declarations = aliasDeclarations.map((d) => (ts.isNamespaceExport(d) ? d.parent : d))
        const header = moduleCommentOf(sourceFile)
        found.push({
          name,
          location: declarations[0] ? locationOf(root, declarations[0]) : "?",
          tags: [...tagsOf(declarations), ...header.tags],
          described: describedBy(declarations) || header.described
        })
        if (!seen.has(target)) {
          seen.add(target)
          visitModule(name, target)
        }
        continue
      }
      const declarations = (target.declarations ?? []).filter((d) => !ts.isSourceFile(d))
      if (declarations.length === 0) continue
      // A value, a type and a namespace of one name (`const X` + `type X`, a class + its namespace) are
      // listed apart in the reference: each carries its own comment.
      const groups = [
        { suffix: "", members: declarations.filter((d) => !isTypeDeclaration(d) && !ts.isModuleDeclaration(d)) },
        { suffix: " (type)", members: declarations.filter(isTypeDeclaration) },
        { suffix: " (namespace)", members: declarations.filter(ts.isModuleDeclaration) }
      ].filter((group) => group.members.length > 0)
      groups.forEach((group, i) => {
        // A doc comment on an `export { x }` specifier counts as well as one on the declaration.
        const aliases = i === 0 ? aliasDeclarations : []
        found.push({
          name: i === 0 ? name : `${name}${group.suffix}`,
          location: locationOf(root, group.members[0]!),
          tags: [...tagsOf(group.members), ...tagsOf(aliases)],
          described: describedBy(group.members) || describedBy(aliases)
        })
      })
      if (isNamespaceModule(target) && !seen.has(target)) {
        // `export declare namespace X { ... }` beside a class or a function: its members are public too.
        seen.add(target)
        visitModule(name, target)
      }
    }
  }

  for (const entry of entries) {
    const sourceFile = program.getSourceFile(path.join(root, entry.file))
    const moduleSymbol = sourceFile && checker.getSymbolAtLocation(sourceFile)
    if (moduleSymbol === undefined) throw new Error(`no module symbol for ${entry.file}`)
    visitModule(entry.name, moduleSymbol)
  }
  return found
}

/**
 * The exports (but `@internal` ones) whose doc comment lacks a description or one of `tags`, as lines
 * `name (file:line): missing description, @a, @b`.
 */
export const offenders = (
  exports: ReadonlyArray<PublicExport>,
  tags: ReadonlyArray<string> = ["since", "category"]
): Array<string> =>
  exports.flatMap((e) => {
    // `@internal`: reachable, but left out of the reference on purpose (typedoc's excludeInternal).
    if (e.tags.includes("internal")) return []
    const missing = [
      ...(e.described ? [] : ["description"]),
      ...tags.filter((tag) => !e.tags.includes(tag)).map((tag) => `@${tag}`)
    ]
    return missing.length === 0 ? [] : [`${e.name} (${e.location}): missing ${missing.join(", ")}`]
  })
