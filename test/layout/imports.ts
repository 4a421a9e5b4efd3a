/**
 * The module specifiers a source file names, read with TypeScript's parser: imports, re-exports,
 * `import("…")` types and dynamic imports. Shared by the tests that hold the rooms' walls.
 */
import ts from "typescript"

/** Every module specifier of `text` (the file `file`), in the order they appear. */
export const specifiersOf = (file: string, text: string): ReadonlyArray<string> => {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true)
  const out: Array<string> = []
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)) {
      out.push(node.moduleSpecifier.text)
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      out.push(node.argument.literal.text)
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0]
      if (arg !== undefined && ts.isStringLiteralLike(arg)) out.push(arg.text)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return out
}
