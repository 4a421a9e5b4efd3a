/**
 * The README as a front door and the docs/ pages behind it:
 * - the README stays short (at most 300 lines);
 * - every relative link of README.md and docs/*.md leads to a file that exists, and its `#anchor` to a
 *   heading of that file (GitHub's heading ids);
 * - no internal reference (an issue number, the facts file) reaches a reader;
 * - every ```ts snippet of the README is a whole program: extracted from the Markdown, type-checked
 *   with tsc as a consumer's file (nodenext, strict), and run with tsx against a simulator, the mainnet
 *   addresses it names swapped for the simulator's of the same role and the client pointed at the
 *   simulator through the environment (EXPLORER_BASE_URL, EXPLORER_API_KEY, EXPLORER_PLAN), as the
 *   README tells a reader to do.
 * The files run resolve "explorer-etl" through the package's own exports to dist/ (the test command
 * builds it first), as a user's project resolves the installed package.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import * as Simulator from "../../src/simulator/index.js"
import { repoRoot, startSimulator } from "../cli/helpers.js"
import { expectPrinted, prepared, simulatorEnv, snippets } from "./snippets.js"

const readme = join(repoRoot, "README.md")
const docsDir = join(repoRoot, "docs")
/** README.md and the pages of docs/ (docs/api/ is generated from the doc comments, by another step). */
const pages = [readme, ...readdirSync(docsDir).filter((f) => f.endsWith(".md")).map((f) => join(docsDir, f))]

/** The lines of a Markdown text outside its fenced code blocks. */
const prose = (text: string): Array<string> => {
  const lines: Array<string> = []
  let fenced = false
  for (const line of text.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced
    else if (!fenced) lines.push(line)
  }
  return lines
}

/** GitHub's id of a heading: lower case, punctuation dropped, spaces to dashes; repeats get -1, -2… */
const headingIds = (text: string): Set<string> => {
  const ids = new Set<string>()
  const seen = new Map<string, number>()
  for (const line of prose(text)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (m === null) continue
    const base = (m[1] ?? "").toLowerCase().replace(/<[^>]*>/g, "").replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-")
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    ids.add(n === 0 ? base : `${base}-${n}`)
  }
  return ids
}

/** Every Markdown link target of a page's prose, inline code left out. */
const linksOf = (text: string): Array<string> =>
  prose(text).flatMap((line) => [...line.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? ""))

describe("README and docs/", () => {
  it("the README is a front door of at most 300 lines", () => {
    const lines = readFileSync(readme, "utf8").trimEnd().split("\n")
    expect(lines.length).toBeLessThanOrEqual(300)
  })

  it("the README links every page of docs/", () => {
    const links = new Set(linksOf(readFileSync(readme, "utf8")).map((l) => l.split("#")[0]))
    for (const page of pages.slice(1)) expect(links, page).toContain(`docs/${page.slice(docsDir.length + 1)}`)
    expect(links).toContain("docs/api/")
    expect(links).toContain("bench/RESULTS.md")
  })

  it("every relative link resolves to a file, and its #anchor to a heading there", () => {
    const broken: Array<string> = []
    let checked = 0
    for (const page of pages) {
      for (const link of linksOf(readFileSync(page, "utf8"))) {
        if (/^[a-z]+:/i.test(link)) continue
        const [path = "", anchor] = link.split("#")
        const target = path === "" ? page : resolve(dirname(page), path)
        // The API reference is generated into docs/api/ by its own step: checked once it is there.
        if (target.startsWith(join(docsDir, "api")) && !existsSync(join(docsDir, "api"))) continue
        checked++
        if (!existsSync(target)) {
          broken.push(`${page}: ${link} (no such file)`)
          continue
        }
        if (anchor !== undefined && (statSync(target).isDirectory() || !headingIds(readFileSync(target, "utf8")).has(anchor))) {
          broken.push(`${page}: ${link} (no heading #${anchor})`)
        }
      }
    }
    expect(broken).toEqual([])
    expect(checked).toBeGreaterThan(20)
  })

  it("the heading ids are GitHub's", () => {
    expect(headingIds("## Output safety\n## Decoded events (`events`, `Sources.events`)\n## Help\n## Help\n```sh\n# not a heading\n```"))
      .toEqual(new Set(["output-safety", "decoded-events-events-sourcesevents", "help", "help-1"]))
  })

  it("no internal reference (issue numbers, the facts file) in README.md, docs/*.md or the bench results they link", () => {
    for (const page of [...pages, join(repoRoot, "bench", "RESULTS.md")]) {
      const text = readFileSync(page, "utf8")
      expect(text.match(/issue \d+|facts §|facts file|the tracker/gi), page).toBeNull()
    }
  })
})

// ---------------------------------------------------------------------------------------------------
// The README's TypeScript snippets, run as whole programs against a simulator.

const readmeSnippets = snippets(readFileSync(readme, "utf8"))
const TIMEOUT = 180_000

/** Runs a command to its end without blocking the worker. */
const run = (args: ReadonlyArray<string>, cwd: string, env: NodeJS.ProcessEnv) =>
  new Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((done) => {
    const child = execFile(process.execPath, args, { cwd, env, encoding: "utf8", timeout: 150_000, maxBuffer: 16 * 1024 * 1024 },
      (_error, stdout, stderr) => done({ code: child.exitCode, stdout, stderr }))
  })

describe("the README's TypeScript snippets", () => {
  // Inside the repository (the .tmp- folders are ignored by git), so that "explorer-etl" resolves to
  // this package as an installed one does.
  let dir = ""
  let sim: Simulator.Simulator.Service
  let close: (() => Promise<void>) | undefined
  let env: NodeJS.ProcessEnv = {}

  beforeAll(async () => {
    dir = mkdtempSync(join(repoRoot, ".tmp-readme-snippets-"))
    const started = await startSimulator({})
    sim = started.sim
    close = started.close
    env = simulatorEnv(sim)
  })
  afterAll(async () => {
    await close?.()
    if (dir !== "") rmSync(dir, { recursive: true, force: true })
  })

  const fileOf = (i: number) => join(dir, `snippet-${i}.mts`)

  it("the five-minute section has its snippets, each a whole file with its imports", () => {
    const fiveMinutes = readmeSnippets.filter((s) => s.section === "The library in five minutes")
    expect(fiveMinutes.length).toBeGreaterThanOrEqual(3)
    expect(readmeSnippets.some((s) => s.section === "Pointing a client or script at the simulator")).toBe(true)
    for (const { code } of readmeSnippets) {
      expect(code).toMatch(/^import .* from "explorer-etl"$/m)
      expect(code).toMatch(/^import .* from "effect"$/m)
      expect(code).toMatch(/runMain\(/)
    }
  })

  it("each type-checks as a consumer's file (strict, moduleResolution nodenext)", async () => {
    const files = readmeSnippets.map((_, i) => fileOf(i))
    readmeSnippets.forEach(({ code }, i) => writeFileSync(fileOf(i), prepared(sim, code)))
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        exactOptionalPropertyTypes: true,
        noEmit: true,
        skipLibCheck: true,
        types: ["node"]
      },
      files: files.map((f) => f.slice(dir.length + 1))
    }))
    const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc")
    const result = await run([tsc, "-p", join(dir, "tsconfig.json")], dir, env)
    expect(result.stdout + result.stderr).toBe("")
    expect(result.code).toBe(0)
  }, TIMEOUT)

  describe.concurrent("each runs against the simulator", () => {
    readmeSnippets.forEach(({ section, code }, i) => {
      const first = code.split("\n").find((l) => l.startsWith("const ") || l.startsWith("// ")) ?? ""
      it(`${section} #${i}: ${first}`, async () => {
        const file = fileOf(i)
        writeFileSync(file, prepared(sim, code))
        const result = await run(["--import", "tsx", file], dir, env)
        expect(result.stderr, result.stderr).toBe("")
        expect(result.code).toBe(0)
        expectPrinted(code, result.stdout, dir)
      }, TIMEOUT)
    })
  })
})
