/**
 * Addresses in any letter case are one export (issue 17): the manifest stores them in lower case, a
 * checkpoint made with one case resumes with another, and a checkpoint written before addresses were
 * lower-cased (its fingerprint over the address as typed) still resumes with the case it was made with.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import type { Plan } from "../../src/Plan.js"
import type * as Simulator from "../../src/simulator/index.js"
import { madeUpKey, makeTempDir, removeDir, startSimulator, succeeded, Transcript } from "./helpers.js"

const TIMEOUT = 240_000
const keyPlans: Record<string, Plan> = {}
const key = (name: string): string => {
  const k = madeUpKey(`a${name}`)
  keyPlans[k] = "free"
  return k
}
const keys = { other: key("othercase"), legacy: key("legacy") }

const transcript = new Transcript()
let sim: Simulator.Simulator.Service
let close: () => Promise<void>
let dir: string

beforeAll(async () => {
  const started = await startSimulator({ keys: keyPlans, dataset: { busyWalletTransactions: 0, heavyContractLogs: 0 } })
  sim = started.sim
  close = started.close
  dir = await makeTempDir("cli-address-case-")
})

afterAll(async () => {
  await close?.()
  if (dir !== undefined) await removeDir(dir)
})

/** `0xabcdef…` → `0xAbCdEf…`: the same address in mixed case. */
const mixedCase = (address: string): string =>
  "0x" + [...address.slice(2)].map((c, i) => (i % 2 === 0 ? c.toUpperCase() : c)).join("")

/** The export's fingerprint as explorer-etl computed it before addresses were lower-cased: keys sorted, values as given. */
const sorted = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sorted)
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sorted((value as Record<string, unknown>)[k])]))
  }
  return value
}
const fingerprintOf = (identity: unknown): string =>
  `sha256:${createHash("sha256").update(JSON.stringify(sorted(identity))).digest("hex")}`

const readJson = (path: string) =>
  Effect.promise(async () => JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>)

describe.concurrent("address case", () => {
  const confirmations = 100_000
  const exportArgs = (token: string, out: string, apiKey: string, extra: ReadonlyArray<string>) => [
    "export", "erc20-transfers", "--contract", token, "--out", out,
    "--base-url", sim.baseUrl, "--api-key", apiKey, "--plan", "free", "--quiet", ...extra
  ]

  it.live("a checkpoint made with mixed case resumes with lower case; the manifest holds lower case", () =>
    Effect.gen(function*() {
      const token = sim.dataset.chain(1).erc20[1]?.address.toLowerCase() ?? ""
      const out = join(dir, "other-case.csv")
      succeeded(yield* transcript.cli(exportArgs(mixedCase(token), out, keys.other, ["--confirmations", String(confirmations)])))
      const manifest = yield* readJson(`${out}.manifest.json`)
      expect(JSON.stringify(manifest.query)).toContain(token)
      expect(JSON.stringify(manifest.query)).not.toContain(mixedCase(token))
      const resumed = succeeded(yield* transcript.cli(exportArgs(token, out, keys.other, ["--resume"])))
      expect(resumed.stderr).toBe("")
      expect(yield* readJson(`${out}.manifest.json`)).toMatchObject({ run: { mode: "extended" } })
    }), TIMEOUT)

  it.live("a checkpoint written before lower-casing (fingerprint over the address as typed) still resumes", () =>
    Effect.gen(function*() {
      const token = sim.dataset.chain(1).erc20[2]?.address.toLowerCase() ?? ""
      const typed = mixedCase(token)
      const out = join(dir, "legacy.csv")
      succeeded(yield* transcript.cli(exportArgs(typed, out, keys.legacy, ["--confirmations", String(confirmations)])))
      const statePath = `${out}.state.json`
      const state = yield* readJson(statePath)
      const manifest = yield* readJson(`${out}.manifest.json`)
      const identity = (query: unknown) => ({
        version: 1,
        dataset: state.dataset,
        chainIds: state.chainIds,
        query,
        format: state.format,
        columns: manifest.columns,
        fromBlock: state.fromBlock,
        formulaGuard: true
      })
      // The identity is rebuilt right: it gives the fingerprint the state holds now.
      expect(fingerprintOf(identity(manifest.query))).toBe(state.fingerprint)
      const typedQuery = JSON.parse(JSON.stringify(manifest.query).split(token).join(typed)) as unknown
      const legacy = fingerprintOf(identity(typedQuery))
      expect(legacy).not.toBe(state.fingerprint)
      yield* Effect.promise(() => writeFile(statePath, JSON.stringify({ ...state, fingerprint: legacy }, null, 2)))
      const resumed = succeeded(yield* transcript.cli(exportArgs(typed, out, keys.legacy, ["--resume"])))
      expect(resumed.stderr).toBe("")
      expect(yield* readJson(`${out}.manifest.json`)).toMatchObject({ run: { mode: "extended" } })
    }), TIMEOUT)
})
