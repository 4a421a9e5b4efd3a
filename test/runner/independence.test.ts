/**
 * The rooms' walls, held by reading imports: the runner (src/runner/, and src/Pipeline.ts, the
 * `explorer-etl/pipeline` entry that gathers it) reaches nothing of the CLI, so a library user running a
 * pipeline pays for no command line and the CLI can change its wording freely; and the root entry
 * (src/index.ts) reaches nothing of the simulator, the runner or the CLI — not even a type, so its
 * published declarations name none of them; and the sinks read no plan rules (an export's rate is
 * its source's to say). Every import counts: values, types, `import("…")` types
 * and dynamic imports, followed from file to file.
 */
import { describe, expect, it } from "@effect/vitest"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { specifiersOf } from "../layout/imports.js"

const SRC = fileURLToPath(new URL("../../src/", import.meta.url))

/** The relative specifiers of one file: imports, re-exports, `import("…")` types, dynamic imports. */
const relativeSpecifiersOf = (file: string, text: string): ReadonlyArray<string> =>
  specifiersOf(file, text).filter((s) => s.startsWith("./") || s.startsWith("../"))

/** A `.js` specifier as the `.ts` file it names. */
const fileOf = (from: string, specifier: string): string => resolve(dirname(from), specifier).replace(/\.js$/, ".ts")

/**
 * Every file reachable from `entries`, each with the chain of imports that reaches it first
 * (`src/index.ts → src/streams/Sources.ts → …`), read with `read` (none: not a source file).
 */
const reachable = (entries: ReadonlyArray<string>, read: (file: string) => string | undefined): Map<string, ReadonlyArray<string>> => {
  const seen = new Map<string, ReadonlyArray<string>>()
  const queue: Array<readonly [string, ReadonlyArray<string>]> = entries.map((e) => [e, [e]] as const)
  while (queue.length > 0) {
    const [file, chain] = queue.shift() as readonly [string, ReadonlyArray<string>]
    if (seen.has(file)) continue
    const text = read(file)
    if (text === undefined) continue
    seen.set(file, chain)
    for (const s of relativeSpecifiersOf(file, text)) {
      const next = fileOf(file, s)
      if (!seen.has(next)) queue.push([next, [...chain, next]])
    }
  }
  return seen
}

/** The files reached under one of `rooms` (paths relative to src/), as readable import chains. */
const trespasses = (
  entries: ReadonlyArray<string>,
  rooms: ReadonlyArray<string>,
  root: string,
  read: (file: string) => string | undefined
): ReadonlyArray<string> =>
  [...reachable(entries.map((e) => join(root, e)), read)]
    .filter(([file]) => rooms.some((room) => relative(root, file) === room || relative(root, file).startsWith(room)))
    .map(([, chain]) => chain.map((f) => relative(root, f)).join(" → "))

const readSource = (file: string): string | undefined => (existsSync(file) ? readFileSync(file, "utf8") : undefined)

const runnerFiles = readdirSync(join(SRC, "runner")).filter((f) => f.endsWith(".ts")).map((f) => `runner/${f}`)

describe("the runner imports no cli/", () => {
  it("nothing src/runner/ or the explorer-etl/pipeline entry reaches is under src/cli/", () => {
    expect(runnerFiles).toEqual(expect.arrayContaining(["runner/Pipeline.ts", "runner/NodeRunner.ts", "runner/ExplorerLayer.ts"]))
    expect(trespasses(["Pipeline.ts", ...runnerFiles], ["cli/"], SRC, readSource)).toEqual([])
  })
})

describe("the root entry names nothing of the simulator, the runner or the CLI", () => {
  it("nothing src/index.ts reaches, types included, is under src/simulator/, src/runner/, src/cli/ or is src/Pipeline.ts", () => {
    const reached = reachable([join(SRC, "index.ts")], readSource)
    // The walk does reach the library's rooms.
    expect(reached.has(join(SRC, "sinks", "Export.ts"))).toBe(true)
    expect(trespasses(["index.ts"], ["simulator/", "runner/", "cli/", "Pipeline.ts"], SRC, readSource)).toEqual([])
  })
})

describe("the sinks read no plan rules", () => {
  it("no file under src/sinks/ imports Plan.ts", () => {
    const sinks = readdirSync(join(SRC, "sinks"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"))
    expect(sinks).toContain("Export.ts")
    const offenders = sinks.filter((f) => {
      const file = join(SRC, "sinks", f)
      return relativeSpecifiersOf(file, readFileSync(file, "utf8")).some((s) => fileOf(file, s) === join(SRC, "Plan.ts"))
    })
    expect(offenders).toEqual([])
  })
})

describe("the walk", () => {
  const files: Record<string, string> = {
    "/p/index.ts": "export * as A from \"./A.js\"\nexport * as B from \"./B.js\"",
    "/p/A.ts": "import type { Thing } from \"./cli/Thing.js\"\nexport type T = Thing",
    "/p/B.ts": "export type U = import(\"./runner/X.js\").X\nexport const load = () => import(\"./simulator/index.js\")",
    "/p/cli/Thing.ts": "export interface Thing {}",
    "/p/runner/X.ts": "export interface X {}",
    "/p/simulator/index.ts": "export {}"
  }
  it("follows type-only imports, import() types and dynamic imports, and names the chain", () => {
    expect(trespasses(["index.ts"], ["cli/", "runner/", "simulator/"], "/p", (f) => files[f])).toEqual([
      "index.ts → A.ts → cli/Thing.ts",
      "index.ts → B.ts → runner/X.ts",
      "index.ts → B.ts → simulator/index.ts"
    ])
  })
})
