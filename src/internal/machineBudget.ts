/**
 * A key's budget shared by every process of the machine (`Config`'s `machineBudget`): a slot ledger in
 * a small SQLite file of the user's state directory (`$XDG_STATE_HOME/explorer-etl/`, else
 * `~/.local/state/explorer-etl/`), named by the key's fingerprint (`Throttle.fingerprint`, a SHA-256
 * prefix), never the key. It is `durable/KeyBudget`'s PostgreSQL row on one machine: one row per API
 * URL holds the key's next free slot, the throttled operations' next slot, a pause after a rate-limit
 * answer and the calls of the current UTC day. Each attempt reserves its slot in one `UPDATE … RETURNING`
 * (SQLite runs it under the file's write lock: two processes never get the same slot), then sleeps
 * until it and sends. Every process reads the same clock (the machine's), so no clock is sent along.
 * The row also keeps the sends of the last second's slots: a process tells when its request really left
 * (`SharedSlot.sent`), and the slot a second's calls later waits for a second after that send. On a busy
 * machine a process resumes late between its slot and the socket; without this, its request reached the
 * server among the next seconds' slots of the other processes, and the server refused one of them.
 *
 * A process holds at most one reservation at a time (its attempts reserve one after the other, each
 * once the previous one's slot has come): a process killed while it waits leaves one slot unused, the
 * others are never stalled for longer. A process killed inside the statement leaves nothing behind
 * (SQLite rolls it back; the OS drops the file's lock with the process).
 *
 * Loaded only when a client asks for it: a library user who never turns `machineBudget` on never loads
 * the SQLite driver.
 */
import * as LibsqlClient from "@effect/sql-libsql/LibsqlClient"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { globalValue } from "effect/GlobalValue"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import { mkdirSync } from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import * as Throttle from "../Throttle.js"

const DAY_MILLIS = 86_400_000

/**
 * A send this late after its slot is not written: the slots of a second's calls span 1,042 ms at the
 * 4 % margin against the 1,020 ms the window asks after a send, so a send up to ~20 ms late moves no later
 * slot (the hand-over comes 2–3 ms after the slot, undici's write ~10 ms): no write for nothing.
 */
const UNTOLD_LATENESS_MILLIS = 10

/** A slot's send as this process told it, to be written: the slot's number in each lane it took. */
interface Mark {
  readonly seq: number
  readonly tseq: number | null
  readonly at: number
}

/** As `durable/KeyBudget`: a slot reached this late is left unused and the call takes the next free one. */
const MISSED_SLOT_MILLIS = 20
/**
 * Slots missed in a row before the call is sent anyway. More than a cluster's runners allow themselves:
 * the processes of one machine share its cores, and on a busy machine a process wakes late several
 * times in a row; a call sent that late would reach the server among the others' slots.
 */
const MISSED_SLOT_RETRIES = 10

/**
 * The directory of the ledgers: `directory` when given, else `$XDG_STATE_HOME/explorer-etl`, else
 * `~/.local/state/explorer-etl` (the XDG base directory specification's default for state).
 */
export const directoryOf = (directory: string | undefined): string => {
  if (directory !== undefined) return directory
  const xdg = process.env.XDG_STATE_HOME
  // The specification: a relative path is invalid and ignored.
  const base = xdg !== undefined && xdg.startsWith("/") ? xdg : join(homedir(), ".local", "state")
  return join(base, "explorer-etl")
}

/** The ledger file of a key (its fingerprint: never the key). */
export const fileOf = (directory: string, keyFingerprint: string): string =>
  join(directory, `key-budget-${keyFingerprint}.sqlite`)

/**
 * Per ledger file, the one reservation a process may hold at a time (shared by every client of the
 * process on that key, however many layers were built).
 */
const reserving = globalValue(Symbol.for("explorer-etl/machineBudget/reserving"), () => new Map<string, Effect.Semaphore>())

const setup = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    // Another process's statement holds the write lock for well under a millisecond; wait for it.
    yield* sql.unsafe("PRAGMA busy_timeout = 10000")
    yield* sql.unsafe("PRAGMA journal_mode = WAL")
    // A slot lost in a power cut costs nothing: no sync on each commit.
    yield* sql.unsafe("PRAGMA synchronous = OFF")
    yield* sql.unsafe(`CREATE TABLE IF NOT EXISTS key_budget (
      api_url TEXT PRIMARY KEY,
      key_next REAL NOT NULL DEFAULT 0,
      throttled_next REAL NOT NULL DEFAULT 0,
      paused_until REAL NOT NULL DEFAULT 0,
      day INTEGER NOT NULL DEFAULT 0,
      day_calls INTEGER NOT NULL DEFAULT 0
    )`)
    // The sends of the last slots (a ledger of an earlier version lacks them: added, once; a process
    // adding them at the same moment makes the ALTER of the other fail, which is then done).
    const columns = new Set((yield* sql<{ readonly name: string }>`PRAGMA table_info(key_budget)`).map((c) => c.name))
    for (const [name, type] of SEND_COLUMNS) {
      if (!columns.has(name)) yield* Effect.ignore(sql.unsafe(`ALTER TABLE key_budget ADD COLUMN ${name} ${type}`))
    }
  })

/**
 * Per lane (the key's, the throttled operations'), the number of the next slot and the sends of the last
 * slots: a JSON object from `s<number>` to the moment (ms) the slot's request left, its slot until the
 * process says (`SharedSlot.sent`). A slot is given no sooner than the window's span after the send of
 * the slot `count` before it, as `Throttle`'s lanes do in a process: a request that left its slot late
 * (its process busy) holds back the call a second after it instead of reaching the server within the
 * same second as it.
 */
const SEND_COLUMNS = [
  ["key_seq", "INTEGER NOT NULL DEFAULT 0"],
  ["key_sends", "TEXT NOT NULL DEFAULT '{}'"],
  ["throttled_seq", "INTEGER NOT NULL DEFAULT 0"],
  ["throttled_sends", "TEXT NOT NULL DEFAULT '{}'"]
] as const

/** A lane without a send window (a caller that gave none): no slot waits for an earlier send. */
const NO_WINDOW = { count: 1, spanMillis: 0 }

/**
 * The machine's shared budget for a key, opened (and created) in `directory` for the client's scope;
 * `undefined` (after a warning) when the ledger cannot be opened, as a read-only home: the client then
 * keeps to its own process's limiter.
 */
export const make = (options: {
  readonly directory: string | undefined
  readonly keyFingerprint: string
}): Effect.Effect<Throttle.SharedBudget["Type"] | undefined, never, Scope.Scope> =>
  Effect.gen(function*() {
    const directory = directoryOf(options.directory)
    const file = fileOf(directory, options.keyFingerprint)
    const opened = yield* Effect.try(() => mkdirSync(directory, { recursive: true, mode: 0o700 })).pipe(
      Effect.zipRight(Layer.build(LibsqlClient.layer({ url: pathToFileURL(file) }))),
      Effect.map((context) => context.unsafeMap.get(SqlClient.SqlClient.key) as SqlClient.SqlClient),
      Effect.tap(setup),
      Effect.either
    )
    if (opened._tag === "Left") {
      yield* Effect.logWarning(
        `explorer-etl: the key's budget shared by this machine's processes cannot be kept in ${directory} ` +
          `(${String(opened.left)}); this process keeps to its own limiter`
      )
      return undefined
    }
    const sql = opened.right
    let semaphore = reserving.get(file)
    if (semaphore === undefined) {
      semaphore = Effect.unsafeMakeSemaphore(1)
      reserving.set(file, semaphore)
    }
    const one = semaphore
    const budget: Throttle.SharedBudget["Type"] = {
      lane: (lane) =>
        Effect.gen(function*() {
          // The row is the API URL's (with the key's fingerprint: `Throttle.sharedId`).
          const id = lane.id
          yield* sql`INSERT INTO key_budget (api_url) VALUES (${id}) ON CONFLICT DO NOTHING`
          const key = lane.sends?.key ?? NO_WINDOW
          const thr = lane.sends?.throttled ?? NO_WINDOW
          /**
           * Reserves the next slot: the later of the key's next slot, now, the pause's end, the span after
           * the send `count` slots before and (throttled) the throttled operations' next slot and span.
           * The slot is recorded as its send until the process says otherwise. Counted in the slot's UTC
           * day unless `counted` (a call that missed its slot takes another); no row back: that day's
           * calls are spent.
           */
          const reserve = (throttled: boolean, counted: boolean, now: number) => {
            const t = throttled ? 1 : 0
            return sql<{ readonly slot: number; readonly seq: number; readonly tseq: number | null }>`UPDATE key_budget SET
                key_next = s.slot + ${lane.intervalMillis},
                key_seq = key_seq + 1,
                key_sends = json_remove(json_set(key_sends, '$.s' || CAST(key_seq AS INTEGER), s.slot), '$.s' || CAST(key_seq - ${key.count} AS INTEGER)),
                throttled_next = CASE WHEN ${t} THEN s.slot + ${lane.throttledIntervalMillis} ELSE throttled_next END,
                throttled_seq = throttled_seq + ${t},
                throttled_sends = CASE WHEN ${t}
                  THEN json_remove(json_set(throttled_sends, '$.s' || CAST(throttled_seq AS INTEGER), s.slot), '$.s' || CAST(throttled_seq - ${thr.count} AS INTEGER))
                  ELSE throttled_sends END,
                day = CAST(s.slot / ${DAY_MILLIS} AS INTEGER),
                day_calls = CASE
                  WHEN day = CAST(s.slot / ${DAY_MILLIS} AS INTEGER) THEN day_calls + ${counted ? 0 : 1}
                  ELSE 1 END
              FROM (SELECT api_url AS id, max(key_next, ${now}, paused_until,
                      coalesce(json_extract(key_sends, '$.s' || CAST(key_seq - ${key.count} AS INTEGER)) + ${key.spanMillis}, 0),
                      CASE WHEN ${t} THEN max(throttled_next,
                        coalesce(json_extract(throttled_sends, '$.s' || CAST(throttled_seq - ${thr.count} AS INTEGER)) + ${thr.spanMillis}, 0))
                      ELSE 0 END) AS slot
                    FROM key_budget WHERE api_url = ${id}) AS s
              WHERE key_budget.api_url = s.id
                AND (${counted ? 1 : 0} OR day <> CAST(s.slot / ${DAY_MILLIS} AS INTEGER) OR day_calls < ${lane.callsPerDay})
              RETURNING key_next - ${lane.intervalMillis} AS slot, key_seq - 1 AS seq,
                CASE WHEN ${t} THEN throttled_seq - 1 ELSE NULL END AS tseq`
          }
          /** Moves a slot's send to `at` (an entry already dropped from the window, `count` slots on, stays so). */
          const markSent = (mark: Mark) =>
            sql`UPDATE key_budget SET
                key_sends = CASE WHEN json_extract(key_sends, '$.s' || CAST(${mark.seq} AS INTEGER)) < ${mark.at}
                  THEN json_set(key_sends, '$.s' || CAST(${mark.seq} AS INTEGER), ${mark.at}) ELSE key_sends END,
                throttled_sends = CASE WHEN ${mark.tseq} IS NOT NULL AND json_extract(throttled_sends, '$.s' || CAST(${mark.tseq} AS INTEGER)) < ${mark.at}
                  THEN json_set(throttled_sends, '$.s' || CAST(${mark.tseq} AS INTEGER), ${mark.at}) ELSE throttled_sends END
              WHERE api_url = ${id}`
          // Sends told but not yet written: written in the background as told, and by the next
          // reservation of this process before it reads the window (so its own late send is counted
          // even when it reserves again at once). One writer at a time: a reservation waits for a
          // write already under way, which has taken its marks from the list.
          const marks: Array<Mark> = []
          const writing = Effect.unsafeMakeSemaphore(1)
          const runtime = yield* Effect.runtime<never>()
          const flush = writing.withPermits(1)(Effect.suspend(() =>
            Effect.forEach(marks.splice(0), (mark) => Effect.ignore(markSent(mark)), { discard: true })
          ))
          const sharedLane: Throttle.SharedLane = {
            acquire: (throttled) =>
              one.withPermits(1)(Effect.gen(function*() {
                for (let attempt = 0;; attempt++) {
                  yield* flush
                  const now = yield* Clock.currentTimeMillis
                  const [row] = yield* Effect.orDie(reserve(throttled, attempt > 0, now))
                  if (row === undefined) return yield* new Throttle.DailyCapReached({ callsPerDay: lane.callsPerDay })
                  const slot = Number(row.slot)
                  const wait = slot - (yield* Clock.currentTimeMillis)
                  if (wait > 0) yield* Effect.sleep(Duration.millis(Math.ceil(wait)))
                  const late = (yield* Clock.currentTimeMillis) - slot
                  if (late <= MISSED_SLOT_MILLIS || attempt >= MISSED_SLOT_RETRIES) {
                    const seq = Number(row.seq)
                    const tseq = row.tseq === null ? null : Number(row.tseq)
                    let marked = slot
                    const given: Throttle.SharedSlot = {
                      sent: (at) => {
                        if (at - slot <= UNTOLD_LATENESS_MILLIS || at <= marked) return
                        marked = at
                        marks.push({ seq, tseq, at })
                        Runtime.runFork(runtime)(flush)
                      }
                    }
                    return given
                  }
                }
              })),
            pause: (duration) =>
              Effect.flatMap(Clock.currentTimeMillis, (now) =>
                sql`UPDATE key_budget SET paused_until = max(paused_until, ${now + Duration.toMillis(duration)}) WHERE api_url = ${id}`
              ).pipe(Effect.asVoid, Effect.orDie)
          }
          return sharedLane
        }).pipe(Effect.orDie)
    }
    return budget
  })
