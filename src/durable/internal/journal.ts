/**
 * The embedded engine's journal: a SQLite file opened with libSQL (`@effect/sql-libsql`), whose
 * native library ships prebuilt in npm packages for each platform, so `npm install` alone gives a
 * durable run (no compiler, no download from elsewhere). The file is plain SQLite, as it was when
 * better-sqlite3 wrote it.
 */
import * as LibsqlClient from "@effect/sql-libsql/LibsqlClient"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { pathToFileURL } from "node:url"

/**
 * The journal at `filename` as the `SqlClient` of `@effect/cluster`'s SQL storage, in WAL mode (a
 * reader such as `explorer-etl status` does not wait on the run's writes) and waiting up to 5 s on
 * another connection's lock instead of failing at once. Integers are read as `bigint`: the engine's
 * ids are 64-bit snowflakes, past JavaScript's safe integers (its storage reads `string | bigint`).
 */
export const layer = (filename: string): Layer.Layer<SqlClient.SqlClient> =>
  Layer.effectDiscard(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe("PRAGMA busy_timeout = 5000")
      yield* sql.unsafe("PRAGMA journal_mode = WAL")
    }).pipe(Effect.orDie)
  ).pipe(Layer.provideMerge(LibsqlClient.layer({ url: pathToFileURL(filename), intMode: "bigint" })))
