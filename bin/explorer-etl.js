#!/usr/bin/env node
// explorer-etl's command line. `npm install` compiles the sources to dist/ (the `prepare` script);
// the compiled CLI starts in about a third of the time. When dist/ is missing or older than a
// source file (a source edited since the last build), the sources run through tsx instead, so the
// CLI never runs stale code.
// First of all, before the CLI's modules load: the V8 settings that keep a long export's memory flat.
import "./v8-settings.js"
import { existsSync, readdirSync, statSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const compiled = join(root, "dist", "src", "cli", "main.js")
// tsc rewrites its build info at every build, and only the files that changed: the build's time.
const buildInfo = join(root, "dist", ".tsbuildinfo")

const newestSource = (folder) => {
  let newest = 0
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path))
    else if (entry.name.endsWith(".ts")) newest = Math.max(newest, statSync(path).mtimeMs)
  }
  return newest
}

const fresh = existsSync(compiled) && existsSync(buildInfo) &&
  statSync(buildInfo).mtimeMs >= Math.max(newestSource(join(root, "src")), newestSource(join(root, "pipelines")))

if (fresh) {
  await import(pathToFileURL(compiled).href)
} else {
  const { register } = await import("tsx/esm/api")
  register()
  globalThis.__explorerEtlTsx = true
  await import(pathToFileURL(join(root, "src", "cli", "main.ts")).href)
}
