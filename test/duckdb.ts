/**
 * A real DuckDB reading the files the tests write: each query on a fresh in-memory database (one
 * thread), its rows as JSON values.
 */
import { DuckDBInstance, type Json } from "@duckdb/node-api"
import * as Effect from "effect/Effect"

/** The rows of `sql` (e.g. over `read_parquet('…')`), as DuckDB reads them. */
export const duckdbRows = (sql: string): Effect.Effect<ReadonlyArray<Record<string, Json>>> =>
  Effect.promise(async () => {
    const db = await DuckDBInstance.create(":memory:", { threads: "1" })
    const connection = await db.connect()
    try {
      return (await connection.runAndReadAll(sql)).getRowObjectsJson()
    } finally {
      connection.closeSync()
    }
  })
