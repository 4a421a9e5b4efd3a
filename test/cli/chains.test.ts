/**
 * Chain names (issue 17): `explorer-etl chains` lists the table every chain error points at, `--chain`
 * takes a name beside an id, and a typo is refused before any request with a "did you mean".
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import type * as Simulator from "../../src/simulator/index.js"
import { failureOf, madeUpKey, makeTempDir, removeDir, requestsWith, startSimulator, succeeded, Transcript } from "./helpers.js"

const TIMEOUT = 240_000
const keyPlans: Record<string, "free"> = {}
const key = (name: string): string => {
  const k = madeUpKey(`c${name}`)
  keyPlans[k] = "free"
  return k
}
const keys = { byName: key("byname"), typo: key("typo") }

const transcript = new Transcript()
let sim: Simulator.Simulator.Service
let close: () => Promise<void>
let dir: string

beforeAll(async () => {
  const started = await startSimulator({ keys: keyPlans })
  sim = started.sim
  close = started.close
  dir = await makeTempDir("cli-chains-")
})

afterAll(async () => {
  await close?.()
  if (dir !== undefined) await removeDir(dir)
})

const api = (apiKey: string) => ["--base-url", sim.baseUrl, "--api-key", apiKey, "--plan", "free"]

describe.concurrent("chains", () => {
  it.live("explorer-etl chains lists every chain: id, --chain name, name, free plan", () =>
    Effect.gen(function*() {
      const result = succeeded(yield* transcript.cli(["chains"]))
      const lines = result.stdout.trimEnd().split("\n")
      expect(lines[0]).toMatch(/^id\s+--chain name\s+name\s+free plan$/)
      expect(lines).toContainEqual(expect.stringMatching(/^137\s+polygon\s+Polygon Mainnet\s+yes$/))
      expect(lines).toContainEqual(expect.stringMatching(/^8453\s+base\s+Base Mainnet\s+no$/))
      expect(result.stderr).toBe("")
    }), TIMEOUT)

  it.live("--chain polygon is chain 137", () =>
    Effect.gen(function*() {
      const wallet = sim.dataset.chain(137).wallets[0]?.address ?? ""
      const out = join(dir, "polygon.csv")
      succeeded(yield* transcript.cli(["export", "txs", "--address", wallet, "--out", out, "--chain", "polygon", ...api(keys.byName)]))
      const manifest = JSON.parse(yield* Effect.promise(() => readFile(`${out}.manifest.json`, "utf8"))) as { chainIds: Array<number> }
      expect(manifest.chainIds).toEqual([137])
    }), TIMEOUT)

  it.live("a typo of a chain name: refused before any request, with a suggestion", () =>
    Effect.gen(function*() {
      const wallet = sim.dataset.chain(137).wallets[0]?.address ?? ""
      const result = yield* transcript.cli(
        ["export", "txs", "--address", wallet, "--out", join(dir, "typo.csv"), "--chain", "polygn", ...api(keys.typo)]
      )
      expect(failureOf(result, "InvalidInputError")).toMatch(/unknown chain "polygn"; did you mean polygon\?.*explorer-etl chains/)
      expect(result.code).toBe(2)
      expect(yield* requestsWith(sim, keys.typo)).toBe(0)
    }), TIMEOUT)
})

describe("chains: secrets", () => {
  it("no API key appears in any output", () => {
    expect(transcript.leaks(Object.keys(keyPlans))).toEqual([])
  })
})
