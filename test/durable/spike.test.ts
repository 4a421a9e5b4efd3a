/**
 * The durable engine of issue 18, proved on its own before pipelines use it: a `Workflow` of three
 * `Activity`s on `@effect/cluster`'s `SingleRunner` + `ClusterWorkflowEngine`, journal in SQLite
 * (test/durable/fixtures/spike-runner.ts). The runner process is killed with SIGKILL while activity 2
 * runs, then started again: the workflow completes, activity 1 (finished before the kill) is not run
 * again, activity 2 (in flight) runs again, activity 3 once; a third start replays the stored result
 * without running any activity.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { exited, until } from "../cli/helpers.js"

const repoRoot = fileURLToPath(new URL("../../", import.meta.url))
const runner = fileURLToPath(new URL("./fixtures/spike-runner.ts", import.meta.url))

const start = (dir: string) => {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", runner, dir], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"]
  })
  const output = { stdout: "", stderr: "" }
  child.stdout?.setEncoding("utf8").on("data", (d: string) => void (output.stdout += d))
  child.stderr?.setEncoding("utf8").on("data", (d: string) => void (output.stderr += d))
  return { child, output }
}

const effects = (dir: string): ReadonlyArray<string> => {
  const file = path.join(dir, "effects.log")
  return existsSync(file) ? readFileSync(file, "utf8").trimEnd().split("\n") : []
}
const count = (dir: string, line: string) => effects(dir).filter((l) => l === line).length

describe("SingleRunner + ClusterWorkflowEngine on SQLite", () => {
  it.live("a finished activity is not run again after the runner is killed with SIGKILL and restarted", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(path.join(tmpdir(), "explorer-etl-spike-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
      writeFileSync(path.join(dir, "hold"), "")

      const first = start(dir)
      yield* until(() => count(dir, "start 2") === 1, 120_000)
      expect(first.child.kill("SIGKILL")).toBe(true)
      const killed = yield* exited(first.child)
      expect(killed.signal).toBe("SIGKILL")
      expect(effects(dir)).toEqual(["start 1", "done 1", "start 2"])

      rmSync(path.join(dir, "hold"))
      const second = start(dir)
      const resumed = yield* exited(second.child)
      expect(resumed.code, second.output.stderr).toBe(0)
      expect(second.output.stdout.trim()).toBe("[10,20,30]")
      expect(effects(dir)).toEqual(["start 1", "done 1", "start 2", "start 2", "done 2", "start 3", "done 3"])

      const third = start(dir)
      expect((yield* exited(third.child)).code, third.output.stderr).toBe(0)
      expect(third.output.stdout.trim()).toBe("[10,20,30]")
      expect(count(dir, "start 1") + count(dir, "start 2") + count(dir, "start 3")).toBe(4)
    }).pipe(Effect.scoped), 300_000)
})
