/**
 * Writes `dist/cli/help-texts.json`: the help of every command path rendered from the command tree at
 * 80 columns, for main.ts to answer a plain `--help` without loading the commands. Run by the build
 * (`npm run build`) after tsc, and by bin/explorer-etl.js in a checkout when dist/ was rebuilt.
 */
import { writeFileSync } from "node:fs"
import { renderedWidth, type Texts, textsFile, version } from "./HelpTexts.js"
import { help } from "./Tree.js"

const paths: Array<ReadonlyArray<string>> = [[]]
for (const name of help.namesAt([]) ?? []) {
  paths.push([name])
  for (const child of help.namesAt([name]) ?? []) paths.push([name, child])
}
const texts: Texts = {
  width: renderedWidth,
  version,
  help: Object.fromEntries(paths.map((path) => [path.join(" "), help.render(path, renderedWidth)]))
}
writeFileSync(textsFile, JSON.stringify(texts))
