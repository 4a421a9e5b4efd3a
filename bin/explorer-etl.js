#!/usr/bin/env node
// explorer-etl's command line: the compiled CLI in dist/. In a checkout of the repository (src/ beside
// dist/), dist/ is rebuilt first when it is missing or older than a source file (src/, and pipelines/ for
// the demo's compiled copy in dist/pipelines), so the CLI never runs stale code; an installed package has
// no src/ and runs dist/ as shipped.
// First of all, before the CLI's modules load: the V8 settings that keep a long export's memory flat.
import "./v8-settings.js"
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, statSync, utimesSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const compiled = join(root, "dist", "cli", "main.js")
// tsc rewrites its build info at every build that changed anything: the build's time.
const buildInfo = join(root, "dist", ".tsbuildinfo")
const sources = join(root, "src")
const pipelines = join(root, "pipelines")
const pipelinesBuildInfo = join(root, "dist", "pipelines", ".tsbuildinfo")

const newestSource = (folder) => {
  let newest = 0
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path))
    else if (entry.name.endsWith(".ts")) newest = Math.max(newest, statSync(path).mtimeMs)
  }
  return newest
}

const checkout = existsSync(sources) && existsSync(join(root, "tsconfig.build.json"))
const fresh = (info, newest) => existsSync(info) && statSync(info).mtimeMs >= newest
if (checkout) {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
  const newestOfSources = newestSource(sources)
  // The pipelines import "explorer-etl" (dist/'s declarations): built after dist/, and again when it was.
  const builds = [
    { config: "tsconfig.build.json", info: buildInfo, newest: newestOfSources, output: compiled },
    { config: "tsconfig.pipelines.json", info: pipelinesBuildInfo, newest: Math.max(newestOfSources, newestSource(pipelines)), output: join(root, "dist", "pipelines", "index.js") }
  ]
  for (const build of builds) {
    if (existsSync(build.output) && fresh(build.info, build.newest)) continue
    const started = new Date()
    const built = spawnSync(process.execPath, [tsc, "-p", join(root, build.config)], { stdio: ["ignore", "ignore", "inherit"] })
    if (!existsSync(build.output)) {
      process.stderr.write("error BuildError: dist/ could not be built (run `npm run build` to see why)\n")
      process.exit(built.status || 1)
    }
    // tsc leaves its build info alone when no output changed (a source touched, not edited): mark the check
    // done, as of the build's start — a source saved while tsc ran may not be in dist/, and is newer.
    if (existsSync(build.info)) utimesSync(build.info, started, started)
  }
  // The prerendered help (dist/cli/help-texts.json) is rendered from the commands dist/ now holds.
  const texts = join(root, "dist", "cli", "help-texts.json")
  if (!fresh(texts, statSync(buildInfo).mtimeMs)) {
    spawnSync(process.execPath, [join(root, "dist", "cli", "writeHelpTexts.js")], { stdio: ["ignore", "ignore", "inherit"] })
  }
}
await import(pathToFileURL(compiled).href)
