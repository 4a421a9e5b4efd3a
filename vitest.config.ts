import { defineConfig } from "vitest/config"

// CI asks for a JSON report beside the console one, to print its "N passed, N failed" line.
const jsonReport = process.env.EXPLORER_ETL_VITEST_JSON

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    ...(jsonReport ? { reporters: ["default", "json"], outputFile: { json: jsonReport } } : {})
  }
})
