/**
 * `explorer-etl status` over a journal a schedule filled (issue 18): a journal keeps a pipeline's last
 * 100 runs (`Status.keptRuns`; prune.test.ts), so by default `status` shows each pipeline's last 10
 * (`Status.recentRuns`), after a line counting the earlier ones, and `--all` shows every run kept. The
 * rule itself (`Status.recent`) on made-up runs, then the command on a real journal: `run --every`
 * each second against the simulator, until it has made more runs than are shown.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import * as path from "node:path"
import tokenActivity from "../../pipelines/token-activity.js"
import * as Status from "../../src/durable/Status.js"
import { cliSuite, exited, spawnCli, succeeded, until } from "../cli/helpers.js"

const suite = cliSuite("status")
const key = suite.key("every", "proplus")

const runOf = (pipeline: string, n: number): Status.RunStatus => ({
  executionId: `${pipeline}-${n}`,
  key: { pipeline, configHash: "c", runTime: new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString() },
  state: "done",
  activities: []
})

describe("Status.recent", () => {
  it("keeps each pipeline's last runs in order, after a line counting the others", () => {
    const a = Array.from({ length: 5 }, (_, i) => runOf("a", i))
    const b = Array.from({ length: 2 }, (_, i) => runOf("b", i))
    // Interleaved, as a cluster's database lists the runs of several pipelines.
    const runs = [a[0], b[0], a[1], a[2], b[1], a[3], a[4]] as ReadonlyArray<Status.RunStatus>
    expect(Status.recent(runs, 3)).toEqual([
      b[0],
      "(2 earlier runs of a not shown: --all shows every run)",
      a[2],
      b[1],
      a[3],
      a[4]
    ])
    expect(Status.recent(runs, 1)).toEqual([
      "(1 earlier run of b not shown: --all shows every run)",
      b[1],
      "(4 earlier runs of a not shown: --all shows every run)",
      a[4]
    ])
    expect(Status.recent(runs, 10)).toEqual(runs)
    expect(Status.recent([], 10)).toEqual([])
  })
})

describe("explorer-etl status", () => {
  it.live("shows each pipeline's last 10 runs after a line counting the earlier ones; --all shows every run", () =>
    Effect.gen(function*() {
      const config = path.join(suite.dir, "token-activity.config.json")
      writeFileSync(config, JSON.stringify(tokenActivity.demoConfig(suite.sim.dataset)))
      const out = path.join(suite.dir, "out")
      const every = spawnCli([
        "run", "pipelines/token-activity.ts", "--base-url", suite.sim.baseUrl, "--api-key", key, "--plan", "proplus",
        "--config", config, "--out-dir", out, "--quiet", "--every", "* * * * * *"
      ])
      // Each run prints a line per file; transfers.csv's is its last.
      const finished = () => every.output.stdout.split("\n").filter((line) => line.includes("transfers.csv\t")).length
      yield* until(() => finished() >= Status.recentRuns + 2, 90_000).pipe(
        Effect.catchAllDefect(() => Effect.dieMessage(`${finished()} runs:\n${every.output.stdout}${every.output.stderr}`))
      )
      every.child.kill("SIGINT")
      yield* exited(every.child)

      const runLine = /^token-activity\trun \S+\t/
      const lines = succeeded(yield* suite.transcript.cli(["status", "--out-dir", out])).stdout.trimEnd().split("\n")
      const everything = succeeded(yield* suite.transcript.cli(["status", "--out-dir", out, "--all"])).stdout.trimEnd().split("\n")
      const runs = everything.filter((line) => runLine.test(line))
      expect(runs.length).toBeGreaterThanOrEqual(Status.recentRuns + 2)
      const hidden = runs.length - Status.recentRuns
      expect(lines[0]).toBe(`(${hidden} earlier runs of token-activity not shown: --all shows every run)`)
      // The last 10, as --all shows them, each with its exports.
      expect(lines.filter((line) => runLine.test(line))).toEqual(runs.slice(hidden))
      expect(lines.slice(1)).toEqual(everything.slice(everything.indexOf(runs[hidden] as string)))
      expect(everything.some((line) => line.startsWith("("))).toBe(false)
    }), 120_000)
})
