/**
 * Runners started together on a fresh database: both create the cluster's tables at once, and
 * PostgreSQL refuses one of the two `CREATE TABLE IF NOT EXISTS` (a catalog unique violation). The
 * runner that lost the race builds again once the other's tables exist: both start, neither exits. Two
 * real runner processes per round, on a database of its own (a fresh one per test), several rounds.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { cliSuite } from "../cli/helpers.js"
import { postgresForFile, startRunner } from "./helpers.js"

const suite = cliSuite("clusterstart")
const key = suite.key("start", "proplus")
const database = postgresForFile()

const api = ["--base-url", "", "--api-key", key, "--plan", "proplus", "--quiet"]

describe("cluster runners started together", () => {
  for (const round of [1, 2, 3, 4, 5]) {
    it.scopedLive(`round ${round}: two runners on a fresh database both start`, () =>
      Effect.gen(function*() {
        const args = api.map((a) => a === "" ? suite.sim.baseUrl : a)
        const url = database()
        const runners = yield* Effect.all(
          [0, 1].map(() => startRunner(suite.transcript, "pipelines/wallet-history.ts", url, args)),
          { concurrency: "unbounded" }
        )
        for (const r of runners) {
          expect(r.child.exitCode, r.output.stderr).toBeNull()
          expect(r.output.stderr).not.toMatch(/SqlError/)
        }
      }), 120_000)
  }
})
