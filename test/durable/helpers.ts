/**
 * What the durable-run suites share: a throwaway PostgreSQL per test file, and the data files a run
 * leaves in a pipeline's folder.
 */
import { afterAll, beforeAll } from "@effect/vitest"
import { readdirSync, statSync } from "node:fs"
import * as path from "node:path"
import * as Postgres from "./postgres.js"

/**
 * A throwaway PostgreSQL (`Postgres.startPostgres`) for the tests of this file: started before them,
 * stopped after. Returns the URL of its database (the server starts before the file's tests).
 */
export const postgresForFile = (): (() => string) => {
  let pg: Awaited<ReturnType<typeof Postgres.startPostgres>> | undefined
  beforeAll(async () => {
    pg = await Postgres.startPostgres()
  }, 120_000)
  afterAll(async () => {
    await pg?.stop()
  })
  return () => {
    if (pg === undefined) throw new Error("PostgreSQL starts before the file's tests")
    return pg.url
  }
}

/** Every data file under `dir` (relative paths, sorted): manifests, checkpoints and the journal's folder left out. */
export const dataFiles = (dir: string): ReadonlyArray<string> =>
  (readdirSync(dir, { recursive: true }) as Array<string>)
    .filter((f) => !f.split(path.sep).includes(".durable"))
    .filter((f) => statSync(path.join(dir, f)).isFile())
    .filter((f) => !f.endsWith(".manifest.json") && !f.endsWith(".state.json"))
    .sort()
