/**
 * `--log-level` output goes to stderr, whatever the level and wherever the flag stands: stdout keeps only
 * the command's own output (`call`'s JSON).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { cliSuite, succeeded } from "./helpers.js"

const suite = cliSuite("loglevel")
const key = suite.key("call", "free")

describe("--log-level", () => {
  it.live("debug lines on stderr, never in call's JSON on stdout", () =>
    Effect.gen(function*() {
      // A port nothing listens on: each transient failure is logged at debug level before its retry.
      const failed = yield* suite.transcript.cli([
        "--log-level", "debug", "call", "stats", "ethsupply", "--base-url", "http://127.0.0.1:1", "--api-key", key, "--retries", "1", "--quiet"
      ])
      expect(failed.code).toBe(1)
      expect(failed.stdout).toBe("")
      expect(failed.stderr).toMatch(/explorer-etl: TransportError on stats\/ethsupply/)
      expect(failed.stderr.trimEnd().split("\n").at(-1)).toMatch(/^error TransportError: /)
      const ok = succeeded(yield* suite.transcript.cli([
        "call", "stats", "ethsupply", "--base-url", suite.sim.baseUrl, "--api-key", key, "--log-level", "all"
      ]))
      expect(() => JSON.parse(ok.stdout)).not.toThrow()
    }), 120_000)
})
