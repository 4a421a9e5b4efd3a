/**
 * The package as a registry user gets it: `npm pack` of this repository (dist/ must be built: the test
 * command builds it first), installed into a scratch project beside its peers, then (a) imported with
 * plain node — the root entry loading no CLI, simulator or Node platform —, (b) one real export through
 * the library against `explorer-etl/simulator` from a plain .mjs file, (c) a consumer .ts type-checked
 * with tsc under `moduleResolution` nodenext and bundler, and (d) the installed `explorer-etl` bin.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const repoRoot = fileURLToPath(new URL("../../", import.meta.url))
const here = fileURLToPath(new URL("./consumer/", import.meta.url))
const tsc = path.join(repoRoot, "node_modules", "typescript", "bin", "tsc")
const npm = process.platform === "win32" ? "npm.cmd" : "npm"

/** The dev copies of the peers, so the scratch project installs what this repository was tested with. */
const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
  readonly version: string
  readonly peerDependencies: Readonly<Record<string, string>>
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional?: boolean }>>
  readonly devDependencies: Readonly<Record<string, string>>
}
const installed = (name: string): string =>
  (JSON.parse(fs.readFileSync(path.join(repoRoot, "node_modules", name, "package.json"), "utf8")) as { version: string }).version

/** Runs a command to its end without blocking the test worker (npm install takes a while). */
const run = (command: string, args: ReadonlyArray<string>, cwd: string) =>
  new Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resolve) => {
    const child = execFile(command, args, {
      cwd,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
      timeout: 240_000,
      maxBuffer: 64 * 1024 * 1024
    }, (_error, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }))
  })

describe("the packed package in a consumer project", () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "explorer-etl-consumer-"))
  const project = path.join(work, "app")
  let tarball = ""
  let files: ReadonlyArray<string> = []

  afterAll(() => fs.rmSync(work, { recursive: true, force: true }))

  it("packs dist/ with types and no tests, bench, CI or fixtures", async () => {
    // --ignore-scripts: dist/ was built by the test command; packing must not rebuild it under our feet.
    const packed = await run(npm, ["pack", "--ignore-scripts", "--json", "--pack-destination", work], repoRoot)
    expect(packed.code).toBe(0)
    const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>
    tarball = path.join(work, info?.filename ?? "")
    files = (info?.files ?? []).map((f) => f.path)
    expect(fs.existsSync(tarball)).toBe(true)
    for (const file of ["dist/index.js", "dist/index.d.ts", "dist/index.js.map", "dist/simulator/index.js",
      "dist/simulator/index.d.ts", "dist/Pipeline.js", "dist/cli/main.js", "bin/explorer-etl.js", "package.json"]) {
      expect(files).toContain(file)
    }
    expect(files.filter((f) => /^(test|bench|\.ci|examples)\//.test(f) || f.includes("fixtures") || f.endsWith(".tsbuildinfo")))
      .toEqual([])
  })

  it("installs from the tarball beside its peers", async () => {
    fs.mkdirSync(project, { recursive: true })
    // The peers npm installs for a user: not the optional one (the PostgreSQL driver of cluster runs,
    // which a user adds when using them).
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
  })

  it("the README's own install line, run verbatim in a fresh `npm init -y` project, resolves", async () => {
    // The line as a user copies it from "Installing the package", with the package's name swapped for the
    // tarball (the name is not on the registry here): peers named there must resolve against npm's tags.
    const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8")
    const section = readme.slice(readme.indexOf("## Installing the package"))
    const line = /```sh\n(npm install explorer-etl[^\n]*)\n```/.exec(section)?.[1] ?? ""
    expect(line).toMatch(/^npm install explorer-etl /)
    const words = line.split(/\s+/).slice(2).map((word) => word === "explorer-etl" ? tarball : word)
    const fresh = path.join(work, "fresh")
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
  })

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
      url.includes("/explorer-etl/dist/cli/") || url.includes("/explorer-etl/dist/Pipeline.js") ||
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
  })

  it("run is durable from npm install alone: its journal (SQLite, a prebuilt driver) is written and status reads it", async () => {
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
  })

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
