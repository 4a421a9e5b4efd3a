/**
 * `Lock.acquire` and the locks of another host: a process there cannot be asked whether it runs, so its
 * lock holds — unless a cluster runner took it and the cluster (`Lock.ClusterRunner`) says that runner
 * is gone. On real files; the cluster's answer is the test's (test/durable/cluster.test.ts asks a real
 * one).
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { hostname, tmpdir } from "node:os"
import * as path from "node:path"
import * as Lock from "../../src/sinks/Lock.js"

const withFolder = <A, E, R>(use: (dir: string) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => mkdtempSync(path.join(tmpdir(), "lock-"))),
    use,
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

/** A lock file as `holder` would have written it for `out`. */
const plant = (out: string, holder: Record<string, unknown>) =>
  writeFileSync(Lock.lockPath(out), JSON.stringify({ ...holder, startedAt: "2026-11-24T00:00:00.000Z" }) + "\n")

/** This process as runner `me` of a cluster in which only `alive` runners run; the runners asked about. */
const cluster = (me: string, alive: ReadonlyArray<string>) => {
  const asked: Array<string> = []
  const service = {
    runner: me,
    isAlive: (runner: string) => Effect.sync(() => (asked.push(runner), alive.includes(runner)))
  }
  return { asked, provide: Effect.provideService(Lock.ClusterRunner, service) }
}

/** Takes the lock of `out` and, while holding it, reads what it says. */
const takeAndRead = (out: string) =>
  Effect.scoped(Effect.zipRight(Lock.acquire(out), Effect.sync(() => JSON.parse(readFileSync(Lock.lockPath(out), "utf8")) as Record<string, unknown>)))

describe("Lock.acquire: another host's lock", () => {
  it.effect("a gone cluster runner's lock is taken over, and the new lock names this runner", () =>
    withFolder((dir) =>
      Effect.gen(function*() {
        const out = path.join(dir, "a.csv")
        plant(out, { pid: 4242, host: "another-machine", runner: "10.0.0.9:34431" })
        const c = cluster("10.0.0.1:34431", [])
        const held = yield* c.provide(takeAndRead(out))
        expect(held).toMatchObject({ pid: process.pid, host: hostname(), runner: "10.0.0.1:34431" })
        expect(c.asked).toEqual(["10.0.0.9:34431"])
        // Released with the scope.
        expect(existsSync(Lock.lockPath(out))).toBe(false)
      })
    ).pipe(Effect.provide(NodeContext.layer)))

  it.effect("a live cluster runner's lock holds: OutputLockedError names its pid and host, and the lock stays", () =>
    withFolder((dir) =>
      Effect.gen(function*() {
        const out = path.join(dir, "a.csv")
        plant(out, { pid: 4242, host: "another-machine", runner: "10.0.0.9:34431" })
        const exit = yield* Effect.exit(cluster("10.0.0.1:34431", ["10.0.0.9:34431"]).provide(takeAndRead(out)))
        expect(exit).toEqual(Exit.fail(new Lock.OutputLockedError({ path: out, pid: 4242, host: "another-machine" })))
        expect(existsSync(Lock.lockPath(out))).toBe(true)
      })
    ).pipe(Effect.provide(NodeContext.layer)))

  it.effect("a lock of another host that no cluster runner took holds, cluster or not; no runner is asked", () =>
    withFolder((dir) =>
      Effect.gen(function*() {
        const out = path.join(dir, "a.csv")
        plant(out, { pid: 4242, host: "another-machine" })
        const c = cluster("10.0.0.1:34431", [])
        expect(Exit.isFailure(yield* Effect.exit(c.provide(takeAndRead(out))))).toBe(true)
        expect(Exit.isFailure(yield* Effect.exit(takeAndRead(out)))).toBe(true)
        expect(c.asked).toEqual([])
        // Outside a cluster a runner's lock of another host holds too: nothing can say it is gone.
        plant(out, { pid: 4242, host: "another-machine", runner: "10.0.0.9:34431" })
        expect(Exit.isFailure(yield* Effect.exit(takeAndRead(out)))).toBe(true)
      })
    ).pipe(Effect.provide(NodeContext.layer)))

  it.effect("this host's lock of a process that is gone is taken over, as before; the cluster is not asked", () =>
    withFolder((dir) =>
      Effect.gen(function*() {
        const out = path.join(dir, "a.csv")
        // A pid that is not running: a process started and ended.
        const pid = 2 ** 22 + 12345
        plant(out, { pid, host: hostname(), runner: "10.0.0.9:34431" })
        const c = cluster("10.0.0.1:34431", ["10.0.0.9:34431"])
        const held = yield* c.provide(takeAndRead(out))
        expect(held).toMatchObject({ pid: process.pid })
        expect(c.asked).toEqual([])
      })
    ).pipe(Effect.provide(NodeContext.layer)))
})
