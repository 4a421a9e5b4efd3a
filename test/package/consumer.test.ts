/**
 * The package as a registry user gets it: `npm pack` of this repository (dist/ must be built: the test
 * command builds it first), installed into a scratch project beside its peers, then (a) imported with
 * plain node — the root entry loading no CLI, simulator or Node platform —, (b) one real export through
 * the library against `explorer-etl/simulator` from a plain .mjs file, (c) a consumer .ts type-checked
 * with tsc under `moduleResolution` nodenext and bundler, and (d) the installed `explorer-etl` bin.
 * And in a fresh `npm init -y` project, the README's own lines, read from the README: its install line
 * (its footprint within the figures the README states), its demo command, its notebook, and its
 * TypeScript snippets run against a simulator.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { startSimulator } from "../cli/helpers.js"
import { expectPrinted, prepared, simulatorEnv, snippets } from "../docs/snippets.js"

const repoRoot = fileURLToPath(new URL("../../", import.meta.url))
const here = fileURLToPath(new URL("./consumer/", import.meta.url))
const tsc = path.join(repoRoot, "node_modules", "typescript", "bin", "tsc")
const npm = process.platform === "win32" ? "npm.cmd" : "npm"
const npx = process.platform === "win32" ? "npx.cmd" : "npx"

/** The dev copies of the peers, so the scratch project installs what this repository was tested with. */
const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
  readonly version: string
  readonly peerDependencies: Readonly<Record<string, string>>
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional?: boolean }>>
  readonly devDependencies: Readonly<Record<string, string>>
}
const installed = (name: string): string =>
  (JSON.parse(fs.readFileSync(path.join(repoRoot, "node_modules", name, "package.json"), "utf8")) as { version: string }).version

/** Every package folder under a node_modules (nested ones too) and the bytes of all its files. */
const footprint = (nodeModules: string): { readonly packages: ReadonlyArray<{ readonly name: string }>; readonly bytes: number } => {
  const packages: Array<{ name: string }> = []
  let bytes = 0
  const size = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const at = path.join(dir, entry.name)
      if (entry.isDirectory()) size(at)
      else if (entry.isFile()) bytes += fs.statSync(at).size
    }
  }
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith(".")) continue
      if (entry.name.startsWith("@")) {
        for (const scoped of fs.readdirSync(path.join(dir, entry.name), { withFileTypes: true })) {
          if (scoped.isDirectory()) packages.push({ name: `${entry.name}/${scoped.name}` })
        }
      } else {
        packages.push({ name: entry.name })
      }
    }
  }
  // Nested node_modules folders (a second version of a package) count too.
  const nested = (dir: string): void => {
    walk(dir)
    for (const p of fs.readdirSync(dir, { recursive: true, withFileTypes: false }) as Array<string>) {
      if (p.endsWith(`${path.sep}node_modules`)) walk(path.join(dir, p))
    }
  }
  nested(nodeModules)
  size(nodeModules)
  return { packages, bytes }
}

/** Runs a command to its end without blocking the test worker (npm install takes a while). */
const run = (command: string, args: ReadonlyArray<string>, cwd: string, env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" }) =>
  new Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resolve) => {
    const child = execFile(command, args, {
      cwd,
      encoding: "utf8",
      env,
      timeout: 240_000,
      maxBuffer: 64 * 1024 * 1024
    }, (_error, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }))
  })

describe("the packed package in a consumer project", () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "explorer-etl-consumer-"))
  const project = path.join(work, "app")
  let tarball = ""
  let files: ReadonlyArray<string> = []

  afterAll(() => fs.rmSync(work, { recursive: true, force: true }), 120_000)

  it("packs dist/ with types and no tests, bench, CI or fixtures", async () => {
    // --ignore-scripts: dist/ was built by the test command; packing must not rebuild it under our feet.
    const packed = await run(npm, ["pack", "--ignore-scripts", "--json", "--pack-destination", work], repoRoot)
    expect(packed.code).toBe(0)
    const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>
    tarball = path.join(work, info?.filename ?? "")
    files = (info?.files ?? []).map((f) => f.path)
    expect(fs.existsSync(tarball)).toBe(true)
    for (const file of ["dist/index.js", "dist/index.d.ts", "dist/index.js.map", "dist/simulator/index.js",
      "dist/simulator/index.d.ts", "dist/Pipeline.js", "dist/cli/main.js", "dist/cli/help-texts.json", "bin/explorer-etl.js",
      "package.json"]) {
      expect(files).toContain(file)
    }
    expect(files.filter((f) => /^(test|bench|\.ci)\//.test(f) || f.includes("fixtures") || f.endsWith(".tsbuildinfo")))
      .toEqual([])
    // Of the examples, the notebook a user copies into a project of their own; the demo's pipelines compiled.
    expect(files.filter((f) => f.startsWith("examples/"))).toEqual(["examples/notebook.mts"])
    expect(files).toContain("dist/pipelines/index.js")
  })

  it("installs from the tarball beside its peers", async () => {
    fs.mkdirSync(project, { recursive: true })
    // The peers npm installs for a user: not the optional ones (tsx, the SQLite and PostgreSQL drivers,
    // which a user adds when using them, as the README says).
    const peers = Object.keys(pkg.peerDependencies)
      .filter((name) => pkg.peerDependenciesMeta?.[name]?.optional !== true)
      .map((name) => `${name}@${installed(name)}`)
    fs.writeFileSync(
      path.join(project, "package.json"),
      JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module" }, null, 2)
    )
    const result = await run(npm, ["install", "--prefer-offline", "--no-audit", "--no-fund", tarball, ...peers,
      `@types/node@${installed("@types/node")}`], project)
    expect(result.stderr).not.toMatch(/ERR!/)
    expect(result.code).toBe(0)
    for (const file of fs.readdirSync(here)) fs.copyFileSync(path.join(here, file), path.join(project, file))
  }, 300_000)

  /** The fenced `sh` blocks of the README's "Installing the package" section, as a user reads them. */
  const installSection = (): ReadonlyArray<string> => {
    const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8")
    const start = readme.indexOf("## Installing the package")
    const end = readme.indexOf("\n## ", start + 1)
    const section = readme.slice(start, end === -1 ? undefined : end)
    return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? "")
  }
  /** The one line of the section's blocks that starts with `prefix`. */
  const readmeLine = (prefix: string): string => {
    const lines = installSection().flatMap((block) => block.split("\n")).filter((l) => l.startsWith(prefix))
    expect(lines, `one line starting "${prefix}" in the README's "Installing the package"`).toHaveLength(1)
    return lines[0] ?? ""
  }
  const fresh = path.join(work, "fresh")

  it("the README's own install line, run verbatim in a fresh `npm init -y` project, resolves", async () => {
    // The line as a user copies it from "Installing the package", with the package's name swapped for the
    // tarball (the name is not on the registry here): peers named there must resolve against npm's tags.
    const line = readmeLine("npm install explorer-etl")
    const words = line.split(/\s+/).slice(2).map((word) => word === "explorer-etl" ? tarball : word)
    fs.mkdirSync(fresh, { recursive: true })
    expect((await run(npm, ["init", "-y"], fresh)).code).toBe(0)
    const result = await run(npm, ["install", "--no-audit", "--no-fund", ...words], fresh)
    expect(result.stderr).not.toMatch(/ERESOLVE|ERR!/)
    expect(result.code).toBe(0)
    const effect = JSON.parse(fs.readFileSync(path.join(fresh, "node_modules", "effect", "package.json"), "utf8")) as {
      version: string
    }
    expect(effect.version).toMatch(/^3\./)
    const imported = await run(process.execPath, ["--input-type=module", "-e",
      "const m = await import('explorer-etl'); console.log(typeof m.Streams)"], fresh)
    expect(imported.stdout.trim()).toBe("object")
  }, 300_000)

  it("the README's install line stays lean: no tsx, esbuild or libSQL, and within the footprint the README states", () => {
    const { packages, bytes } = footprint(path.join(fresh, "node_modules"))
    const names = new Set(packages.map((p) => p.name))
    for (const heavy of ["tsx", "esbuild", "@effect/sql-libsql", "@libsql/client", "@effect/sql-pg", "pg"]) {
      expect(names.has(heavy), heavy).toBe(false)
    }
    // The figures the README gives for this line; the test fails when the install grows past them.
    const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8")
    const stated = /fails when it installs more than (\d+) packages \((\d+) MB\)/.exec(readme)
    expect(stated, "the README states the install line's footprint").not.toBeNull()
    const [, maxPackages = "0", maxMb = "0"] = stated ?? []
    const mb = bytes / 1_000_000
    expect(packages.length, packages.map((p) => p.name).sort().join(" ")).toBeLessThanOrEqual(Number(maxPackages))
    expect(mb).toBeLessThanOrEqual(Number(maxMb))
  })

  it("the README's demo command runs against the packed package after its install line, as written", async () => {
    const line = readmeLine("npx explorer-etl demo")
    const words = line.replace(/\s+#.*$/, "").trim().split(/\s+/)
    const result = await run(words[0] ?? "npx", words.slice(1), fresh)
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^explorer-etl demo: \d+ pipelines on the embedded simulator, writing to out\//)
    // Every pipeline wrote its files under ./out, each with its manifest.
    const written = result.stdout.split("\n").filter((l) => l.startsWith("out/"))
    expect(written.length).toBeGreaterThan(0)
    for (const entry of written) {
      const file = entry.split(/\s+/)[0] ?? ""
      expect(fs.existsSync(path.join(fresh, file)), file).toBe(true)
    }
  }, 300_000)

  it("the bin of the README's install line answers --help; a .ts pipeline or a durable run names the package to add", async () => {
    const help = await run("npx", ["explorer-etl", "--help"], fresh)
    expect(help.stderr).toBe("")
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("explorer-etl")
    // Answered from the shipped prerendered texts: the same text as through the whole command line.
    const full = await run("npx", ["explorer-etl", "--help", "--log-level", "none"], fresh)
    expect(help.stdout).toBe(full.stdout)
    const traced = await run(process.execPath, ["--import", path.join(here, "loaded.mjs"),
      path.join(fresh, "node_modules", "explorer-etl", "bin", "explorer-etl.js"), "--help"], fresh)
    expect(traced.stdout).toBe(help.stdout)
    expect(traced.stderr.split("\n").filter((l) => l.startsWith("loaded ") && /\/node_modules\/(effect|@effect)\//.test(l))).toEqual([])
    const pipeline = path.join(fresh, "node_modules", "explorer-etl", "pipelines", "chain-daily-stats.ts")
    const ts = await run("npx", ["explorer-etl", "run", pipeline, "--simulator", "--no-durable", "--quiet"], fresh)
    expect(ts.code).not.toBe(0)
    expect(ts.stdout).toBe("")
    expect(ts.stderr.trim().split("\n")).toHaveLength(1)
    expect(ts.stderr).toMatch(/^error InvalidInputError: .*npm install tsx@4/)
    const js = path.join(fresh, "pipeline.mjs")
    fs.writeFileSync(js, `export { default } from ${JSON.stringify(pathToFileURL(path.join(fresh, "node_modules", "explorer-etl", "dist", "pipelines", "chain-daily-stats.js")).href)}\n`)
    const durable = await run("npx", ["explorer-etl", "run", js, "--simulator", "--quiet"], fresh)
    expect(durable.code).not.toBe(0)
    expect(durable.stdout).toBe("")
    expect(durable.stderr.trim().split("\n")).toHaveLength(1)
    expect(durable.stderr).toMatch(/^error InvalidInputError: .*npm install @effect\/sql-libsql@0\.42/)
  }, 180_000)

  it("the README's notebook runs as written in the project of its install line (`.mts`, top-level await)", async () => {
    const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8")
    const start = readme.indexOf("### A notebook in a project of your own")
    expect(start).toBeGreaterThan(-1)
    const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(start))?.[1] ?? ""
    const lines = block.split("\n").filter((l) => l.trim() !== "")
    expect(lines.at(-1)).toMatch(/^npx tsx \S+\.mts$/)
    // `npm init -y` wrote "type": "commonjs": the .mts name is what makes top-level await work.
    expect(JSON.parse(fs.readFileSync(path.join(fresh, "package.json"), "utf8")).type).toBe("commonjs")
    for (const line of lines) {
      const result = await run("sh", ["-c", line], fresh)
      expect(result.code, `${line}\n${result.stderr}`).toBe(0)
      if (line.startsWith("npx tsx")) {
        expect(result.stdout).toMatch(/^wallet 0x[0-9a-f]{40} \(simulator\)$/m)
        expect(result.stdout).toMatch(/^wrote \d+ transactions to out\/notebook\/wallet-txs\.csv$/m)
      }
    }
    const csv = fs.readFileSync(path.join(fresh, "out", "notebook", "wallet-txs.csv"), "utf8").trimEnd().split("\n")
    const manifest = JSON.parse(fs.readFileSync(path.join(fresh, "out", "notebook", "wallet-txs.csv.manifest.json"), "utf8")) as {
      rows: number
    }
    expect(csv.length).toBe(manifest.rows + 1)
    expect(manifest.rows).toBeGreaterThan(0)
  }, 300_000)

  it("the README's snippets run as written in the project of its install line, against a simulator", async () => {
    // After the notebook's test: the project has the README's install line and its `npm install tsx@4`.
    const all = snippets(fs.readFileSync(path.join(repoRoot, "README.md"), "utf8"))
    expect(all.filter((s) => s.section === "The library in five minutes").length).toBeGreaterThanOrEqual(3)
    const { sim, close } = await startSimulator({})
    try {
      for (const [i, { code }] of all.entries()) {
        const file = `readme-snippet-${i}.mts`
        fs.writeFileSync(path.join(fresh, file), prepared(sim, code))
        const result = await run(npx, ["tsx", file], fresh, simulatorEnv(sim))
        expect(result.stderr, `${file}: ${result.stderr}`).toBe("")
        expect(result.code).toBe(0)
        expectPrinted(code, result.stdout, fresh)
      }
    } finally {
      await close()
    }
  }, 300_000)

  it("imports with plain node; the root entry loads no CLI, simulator, Node platform or SQLite driver", async () => {
    const root = await run(process.execPath, ["--import", "./loaded.mjs", "-e",
      "const m = await import('explorer-etl'); console.log(Object.keys(m).sort().join(','))",
      "--input-type=module"], project)
    expect(root.code).toBe(0)
    expect(root.stdout.trim().split(",")).toEqual(expect.arrayContaining([
      "Chain", "Config", "ExplorerClient", "ExplorerError", "Exports", "Plan", "Schemas", "Sources", "Streams"
    ]))
    const loaded = root.stderr.split("\n").filter((l) => l.startsWith("loaded ")).map((l) => l.slice(7))
    expect(loaded.some((url) => url.includes("/node_modules/explorer-etl/dist/index.js"))).toBe(true)
    expect(loaded.filter((url) =>
      url.includes("@effect/cli") || url.includes("@effect/platform-node") || url.includes("/explorer-etl/dist/simulator/") ||
      url.includes("/explorer-etl/dist/cli/") || url.includes("/explorer-etl/dist/Pipeline.js") || url.includes("/explorer-etl/dist/runner/") ||
      url.includes("@effect/sql-libsql") || url.includes("/explorer-etl/dist/internal/machineBudget.js")
    )).toEqual([])
    for (const subpath of ["explorer-etl/simulator", "explorer-etl/pipeline"]) {
      const sub = await run(process.execPath, ["-e", `const m = await import('${subpath}'); console.log(Object.keys(m).length)`,
        "--input-type=module"], project)
      expect(sub.stderr).toBe("")
      expect(Number(sub.stdout.trim())).toBeGreaterThan(0)
    }
  })

  it("runs one real export through the library against explorer-etl/simulator from a plain .mjs file", async () => {
    const out = path.join(project, "out", "transfers.csv")
    const result = await run(process.execPath, ["export.mjs", out], project)
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    const summary = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "{}") as { rows: number; expected: number }
    expect(summary.rows).toBeGreaterThan(0)
    expect(summary.rows).toBe(summary.expected)
    const lines = fs.readFileSync(out, "utf8").trimEnd().split("\n")
    expect(lines.length).toBe(summary.expected + 1)
    expect(fs.existsSync(`${out}.manifest.json`)).toBe(true)
  })

  for (const moduleResolution of ["nodenext", "bundler"] as const) {
    it(`type-checks a consumer .ts with tsc --noEmit under moduleResolution ${moduleResolution}`, async () => {
      const config = path.join(project, `tsconfig.${moduleResolution}.json`)
      fs.writeFileSync(config, JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: moduleResolution === "bundler" ? "ESNext" : "NodeNext",
          moduleResolution,
          strict: true,
          exactOptionalPropertyTypes: true,
          noEmit: true,
          // As `tsc --init` writes it: @effect/platform-node's own declarations name `ws` without its types.
          skipLibCheck: true,
          types: ["node"]
        },
        files: ["check.ts"]
      }))
      const result = await run(process.execPath, [tsc, "-p", config], project)
      expect(result.stdout + result.stderr).toBe("")
      expect(result.code).toBe(0)
    })
  }

  it("the installed bin runs an export on its embedded simulator", async () => {
    const bin = path.join(project, "node_modules", ".bin", "explorer-etl")
    const version = await run(bin, ["--version"], project)
    expect(version.stdout).toContain(pkg.version)
    const out = path.join(project, "out", "cli-transfers.csv")
    const result = await run(bin, ["export", "erc20-transfers", "--simulator", "--plan", "standard", "--contract",
      "0x0000000000000000000000000000000000000000", "--out", out, "--quiet"], project)
    // The zero address holds no token on the simulator: an export of no rows is still a complete file.
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    expect(fs.readFileSync(out, "utf8").split("\n")[0]).toMatch(/^blockNumber,/)
  }, 180_000)

  it("with the optional peers the README names (tsx, @effect/sql-libsql), run of a .ts pipeline is durable: its journal (SQLite, a prebuilt driver) is written and status reads it", async () => {
    const added = await run(npm, ["install", "--prefer-offline", "--no-audit", "--no-fund", `tsx@${installed("tsx")}`,
      `@effect/sql-libsql@${installed("@effect/sql-libsql")}`], project)
    expect(added.stderr).not.toMatch(/ERR!/)
    expect(added.code).toBe(0)
    const bin = path.join(project, "node_modules", ".bin", "explorer-etl")
    const pipeline = path.join(project, "node_modules", "explorer-etl", "pipelines", "chain-daily-stats.ts")
    const result = await run(bin, ["run", pipeline, "--simulator", "--quiet", "--out-dir", "out-durable"], project)
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    expect(fs.existsSync(path.join(project, "out-durable", "chain-daily-stats", ".durable", "journal.sqlite"))).toBe(true)
    const status = await run(bin, ["status", "--out-dir", "out-durable"], project)
    expect(status.stderr).toBe("")
    expect(status.code).toBe(0)
    expect(status.stdout).toMatch(/^chain-daily-stats\t.*\tdone/m)
  }, 300_000)

  it("run --cluster and runner without the optional PostgreSQL driver say what to install, before any request", async () => {
    const bin = path.join(project, "node_modules", ".bin", "explorer-etl")
    const pipeline = path.join(project, "node_modules", "explorer-etl", "pipelines", "chain-daily-stats.ts")
    for (const args of [
      ["run", pipeline, "--simulator", "--cluster", "postgres://127.0.0.1:1/none", "--quiet", "--out-dir", "out-cluster"],
      ["runner", pipeline, "--simulator", "--cluster", "postgres://127.0.0.1:1/none"]
    ]) {
      const result = await run(bin, args, project)
      expect(result.code, args[0]).not.toBe(0)
      expect(result.stdout, args[0]).toBe("")
      expect(result.stderr, args[0]).toMatch(/^error InvalidInputError: .*--cluster.*npm install @effect\/sql-pg/)
    }
  })
})
