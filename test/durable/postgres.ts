/**
 * A throwaway PostgreSQL server for the tests of `--cluster postgres://…` (issue 18): a real server,
 * started from the machine's own binaries, on a temporary folder and a free loopback port, and removed
 * after.
 *
 * - Binaries: `initdb`, `pg_ctl` and `createdb` from the folder of `pg_ctl` on PATH (links followed), else the newest
 *   `/usr/lib/postgresql/<version>/bin` (where Debian's `postgresql` package puts them, off PATH).
 *   None found: `start` fails with a message saying what to install (`.ci/run` installs Debian's
 *   `postgresql` when they are missing) — the tests that need PostgreSQL fail, they are not skipped.
 * - Root: PostgreSQL refuses to run as root (`initdb: cannot be run as root`). Run as root (CI, this
 *   machine), every server command goes through `runuser -u <user> --`, as `postgres` (the user
 *   Debian's package creates) or else `nobody`, and the temporary folder is handed to that user
 *   (`chown`). Run as anyone else, the commands run as that user.
 * - The server: `initdb` with trust authentication (loopback only, a throwaway cluster), fsync off; the
 *   unix socket in the temporary folder (never `/var/run/postgresql`, which may be absent or another
 *   server's); one database, `explorer_etl`, and more on demand (`createDatabase`); `pg_ctl stop -m
 *   immediate` then the folder removed at the end of the scope.
 */
import { Effect, Exit, Scope } from "effect"
import { execFile } from "node:child_process"
import { chownSync, existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import * as path from "node:path"

/** A running throwaway server. */
export interface Postgres {
  /** `postgres://postgres@127.0.0.1:<port>/explorer_etl` (no password: trust on loopback). */
  readonly url: string
  readonly port: number
  /** The temporary folder: data, socket, log. */
  readonly dir: string
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

/** The folder of the server's binaries, or undefined. */
export const binaries = (): string | undefined => {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    // The folder the real `pg_ctl` is in: a PATH entry may hold only links to some of the programs.
    if (dir !== "" && existsSync(path.join(dir, "pg_ctl"))) return path.dirname(realpathSync(path.join(dir, "pg_ctl")))
  }
  const root = "/usr/lib/postgresql"
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] === undefined ? undefined : path.join(root, versions[0], "bin")
}

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
  Effect.as(run("id", ["-u", "postgres"]), "postgres"),
  () => Effect.succeed("nobody")
)

/**
 * Starts a throwaway server, stopped and removed when the scope closes.
 *
 * @example
 * const pg = yield* Postgres.start // in a scope
 * // pg.url: postgres://postgres@127.0.0.1:<port>/explorer_etl
 */
export const start: Effect.Effect<Postgres, Error, Scope.Scope> = Effect.gen(function*() {
  const bin = binaries()
  if (bin === undefined) {
    return yield* Effect.fail(
      new Error(
        "PostgreSQL's server binaries (initdb, pg_ctl) were not found on PATH nor in /usr/lib/postgresql/*/bin: " +
          "install Debian's postgresql package (apt-get install --no-install-recommends postgresql; .ci/run does it)"
      )
    )
  }
  const asRoot = process.getuid?.() === 0
  const user = asRoot ? yield* serverUser : undefined
  // As root, through `runuser` as the unprivileged user; otherwise as this process's user.
  const server = (program: string, args: ReadonlyArray<string>) =>
    user === undefined
      ? run(path.join(bin, program), args)
      : run("runuser", ["-u", user, "--", path.join(bin, program), ...args])

  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(path.join(tmpdir(), "explorer-etl-pg-"))),
    (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true }))
  )
  if (user !== undefined) {
    const uid = Number((yield* run("id", ["-u", user])).trim())
    const gid = Number((yield* run("id", ["-g", user])).trim())
    chownSync(dir, uid, gid)
  }
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
  const createDatabase = (name: string) =>
    /^[a-z_][a-z0-9_]*$/.test(name)
      ? Effect.as(
        server("createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", name]),
        `postgres://postgres@127.0.0.1:${port}/${name}`
      )
      : Effect.fail(new Error(`not a database name for a test: ${JSON.stringify(name)}`))
  const url = yield* createDatabase("explorer_etl")
  return { url, port, dir, createDatabase }
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
