/**
 * What the durable-run suites share: a throwaway PostgreSQL per test file (a database per test), and
 * the data files a run leaves in a pipeline's folder.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import { afterAll, beforeAll, beforeEach } from "@effect/vitest"
import { Effect, Redacted, type Scope } from "effect"
import { readdirSync } from "node:fs"
import * as path from "node:path"
import { exited, spawnCli, type Transcript, until } from "../cli/helpers.js"
import * as Postgres from "./postgres.js"

/**
 * A throwaway PostgreSQL (`Postgres.startPostgres`) for the tests of this file: started before them,
 * stopped after, with a database of its own for each test. Returns the URL of the running test's
 * database: a test that fails or times out leaves its run, its schedules and its key's row in its own
 * database, never in the next test's, whose runners would otherwise take them up.
 */
export const postgresForFile = (): (() => string) => {
  let pg: Awaited<ReturnType<typeof Postgres.startPostgres>> | undefined
  let current: string | undefined
  let tests = 0
  beforeAll(async () => {
    pg = await Postgres.startPostgres()
  }, 120_000)
  beforeEach(async () => {
    if (pg === undefined) throw new Error("PostgreSQL starts before the file's tests")
    current = await Effect.runPromise(pg.createDatabase(`test_${++tests}`))
  }, 60_000)
  afterAll(async () => {
    await pg?.stop()
  })
  return () => {
    if (current === undefined) throw new Error("a test's database is created before the test")
    return current
  }
}

/** Runs `query` on the database at `url` (a failure is the test's defect). */
export const onDatabase = <A, E>(url: string, query: (sql: PgClient.PgClient) => Effect.Effect<A, E>): Effect.Effect<A> =>
  Effect.flatMap(PgClient.PgClient, query).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url) })), Effect.orDie)

/** Every data file under `dir` (relative paths, sorted): manifests, checkpoints and the journal's folder left out. */
export const dataFiles = (dir: string): ReadonlyArray<string> =>
  filesUnder(dir).filter((f) => !f.endsWith(".manifest.json") && !f.endsWith(".state.json"))

/**
 * Every file under `dir` (relative paths, sorted), the journal's folders (`.durable`) not entered: a
 * run still going may be removing its stage folders there.
 */
export const filesUnder = (dir: string): ReadonlyArray<string> => {
  const walk = (rel: string): Array<string> =>
    readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((entry) =>
      entry.name === ".durable"
        ? []
        : entry.isDirectory()
        ? walk(path.join(rel, entry.name))
        : entry.isFile()
        ? [path.join(rel, entry.name)]
        : []
    )
  return walk("").sort()
}

/**
 * A runner process of a cluster: `explorer-etl runner <pipelineFile> --cluster <database> --port <a
 * free port> …args`, ready (it printed so) when this succeeds; SIGTERM at the end of the scope, its
 * output then kept in `transcript` (checked for keys).
 */
export const startRunner = (
  transcript: Transcript,
  pipelineFile: string,
  database: string,
  args: ReadonlyArray<string>
): Effect.Effect<ReturnType<typeof spawnCli> & { readonly port: number }, never, Scope.Scope> =>
  Effect.gen(function*() {
    const port = yield* Effect.orDie(Postgres.freePort)
    const process = yield* Effect.acquireRelease(
      Effect.sync(() => spawnCli(["runner", pipelineFile, "--cluster", database, "--port", String(port), ...args])),
      (r) =>
        Effect.gen(function*() {
          r.child.kill("SIGTERM")
          yield* exited(r.child)
          transcript.record({ args: ["runner"], code: r.child.exitCode, signal: r.child.signalCode, ...r.output })
        })
    )
    const name = path.basename(pipelineFile, ".ts")
    yield* until(() => process.output.stdout.includes(`runner 127.0.0.1:${port} of ${name} ready`), 60_000).pipe(
      Effect.catchAllDefect(() => Effect.dieMessage(`runner on ${port} did not start:\n${process.output.stderr}`))
    )
    return { ...process, port }
  })
