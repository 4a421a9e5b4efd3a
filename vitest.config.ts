import { availableParallelism } from "node:os"
import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

// CI asks for a JSON report beside the console one, to print its "N passed, N failed" line.
const jsonReport = process.env.EXPLORER_ETL_VITEST_JSON
const src = (file: string) => fileURLToPath(new URL(`./src/${file}`, import.meta.url))

export default defineConfig({
  // Pipelines and examples import the package by name, as users do; inside the test process that name
  // means the sources the tests import, so one copy of every module (and of the key's limiter) is loaded.
  // Subprocesses (the CLI, tsx scripts) resolve it through package.json's exports to dist/.
  resolve: {
    alias: [
      { find: /^explorer-etl$/, replacement: src("index.ts") },
      { find: /^explorer-etl\/simulator$/, replacement: src("simulator/index.ts") },
      { find: /^explorer-etl\/pipeline$/, replacement: src("Pipeline.ts") }
    ]
  },
  test: {
    include: ["test/**/*.test.ts"],
    // Most test files spend their time waiting (on subprocesses, PostgreSQL, cron ticks, the simulator's
    // latency) rather than on the CPU: three files at once even on 2 cores (vitest's default is one
    // fewer than the cores; two at once took CI to 22 of its 25 minutes).
    maxWorkers: Math.max(3, availableParallelism() - 1),
    testTimeout: 60_000,
    hookTimeout: 60_000,
    ...(jsonReport ? { reporters: ["default", "json"], outputFile: { json: jsonReport } } : {})
  }
})
