/**
 * `internal/` belongs to the module that fronts it, as in Effect's packages: src/internal/ is the
 * client's implementation (only ExplorerClient.ts and the files of src/internal/ import it), and a
 * folder's own internal folder (sinks/internal-parquet/, durable/internal/) is imported only from that
 * folder. What streams and the CLI need of the client's checks is a module of its own (Params.ts,
 * Suggest.ts). This scans every import of src/, static, re-exported, `import("…")` types and dynamic.
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve, sep } from "node:path"
import { fileURLToPath } from "node:url"
import { specifiersOf } from "./imports.js"

const SRC = fileURLToPath(new URL("../../src/", import.meta.url))

/** The modules that front src/internal/ (paths relative to src/). */
const CLIENT_FRONTS: ReadonlySet<string> = new Set(["ExplorerClient.ts"])

/** The internal folder a path (relative to src/, `/`-separated) lies in, and the folder that owns it. */
const internalOf = (path: string): { readonly folder: string; readonly owner: string } | undefined => {
  const parts = path.split("/")
  const at = parts.findIndex((p, i) => i < parts.length - 1 && /^internal(-|$)/.test(p))
  if (at === -1) return undefined
  return { folder: parts.slice(0, at + 1).join("/"), owner: parts.slice(0, at).join("/") }
}

/** The imports of one file (relative to src/) that reach into an internal folder not its own. */
export const violations = (file: string, text: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  const own = internalOf(file)
  for (const specifier of specifiersOf(file, text)) {
    if (!specifier.startsWith(".")) continue
    const target = relative(SRC, resolve(join(SRC, dirname(file)), specifier)).split(sep).join("/")
    const inside = internalOf(target)
    if (inside === undefined) continue
    if (own !== undefined && own.folder === inside.folder) continue
    if (inside.owner === "") {
      if (!CLIENT_FRONTS.has(file)) out.push(`${file}: "${specifier}": src/internal/ is the client's; only ${[...CLIENT_FRONTS].join(", ")} import it`)
    } else if (dirname(file) !== inside.owner) {
      out.push(`${file}: "${specifier}": ${inside.folder}/ is ${inside.owner}/'s own`)
    }
  }
  return out
}

const sourceFiles = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []
  )

describe("internal/ belongs to the module that fronts it", () => {
  it("only the client's modules import src/internal/, and a folder's internal folder only that folder", () => {
    const files = sourceFiles(SRC).map((f) => relative(SRC, f).split(sep).join("/"))
    const found = files.flatMap((file) => violations(file, readFileSync(join(SRC, file), "utf8")))
    expect(found).toEqual([])
    // Not vacuous: the scan sees the fronts and the internal folders being imported.
    const fronting = files.filter((file) =>
      specifiersOf(file, readFileSync(join(SRC, file), "utf8")).some((s) => s.includes("internal"))
    )
    expect(fronting).toEqual(expect.arrayContaining(["ExplorerClient.ts", "sinks/Checkpoint.ts", "durable/Status.ts"]))
  })

  // The imports that made src/internal/ a shared drawer: each must be caught.
  it("catches streams and the CLI reaching into the client's internals", () => {
    expect(violations("streams/Datasets.ts", "import * as CallChecks from \"../internal/callChecks.js\"")).toHaveLength(1)
    expect(violations("streams/Events.ts", "import { suggest } from \"../internal/suggest.js\"")).toHaveLength(1)
    expect(violations("cli/ExportCommand.ts", "export { TopicOperators } from \"../internal/params.js\"")).toHaveLength(1)
    expect(violations("cli/Help.ts", "type P = import(\"../internal/params.js\").Problem")).toHaveLength(1)
    expect(violations("Exports.ts", "const lazy = () => import(\"./internal/transport.js\")")).toHaveLength(1)
    expect(violations("cli/Status.ts", "import * as Journal from \"../durable/internal/journal.js\"")).toHaveLength(1)
  })

  it("lets the fronts and the internal files themselves through", () => {
    expect(violations("ExplorerClient.ts", "import * as Internal from \"./internal/explorerClient.js\"")).toEqual([])
    expect(violations("internal/transport.ts", "import type * as Classify from \"./classify.js\"")).toEqual([])
    expect(violations("internal/callChecks.ts", "import * as Params from \"../Params.js\"")).toEqual([])
    expect(violations("sinks/Checkpoint.ts", "import { State } from \"./internal-parquet/state.js\"")).toEqual([])
    expect(violations("sinks/internal-parquet/state.ts", "import * as C from \"./columns.js\"")).toEqual([])
  })
})
