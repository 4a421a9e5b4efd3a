/**
 * `--decimals` through the CLI against an in-process simulator: ERC-20 transfers of tokens of 0, 6,
 * 18 and 24 decimals get `valueScaled` (checked against the oracle with the test's own string
 * arithmetic) and `timeStampIso`; holders, top holders and balances get their scaled quantity; a token
 * whose decimals are unknown gets empty cells and a manifest that says so; an export with `--decimals`
 * extends with `--resume`, and refuses to resume without it (its columns differ).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import type { Plan } from "../../src/Plan.js"
import type * as Simulator from "../../src/simulator/index.js"
import {
  failureOf,
  madeUpKey,
  makeTempDir,
  type Manifest,
  readCsv,
  readJsonl,
  removeDir,
  startSimulator,
  succeeded,
  Transcript
} from "./helpers.js"

/** A token whose holders are planted by a scenario: tokeninfo has no record of it. */
const UNKNOWN_TOKEN = "0x00000000000000000000000000000000deadd1c2"

const keyPlans: Record<string, Plan> = {}
const key = (name: string, plan: Plan): string => {
  const k = madeUpKey(`dec${name}`)
  keyPlans[k] = plan
  return k
}

const TIMEOUT = 240_000

const transcript = new Transcript()
let sim: Simulator.Simulator.Service
let close: () => Promise<void>
let dir: string

beforeAll(async () => {
  const started = await startSimulator({
    keys: keyPlans,
    dailyCaps: false,
    dataset: {
      chains: [1],
      busyWalletTransactions: 0,
      heavyContractLogs: 0,
      scenarios: [{ chainId: 1, kind: "tokenholderlist", address: UNKNOWN_TOKEN, rowsPerBlock: [[0, 12]] }]
    }
  })
  sim = started.sim
  close = started.close
  dir = await makeTempDir("cli-decimals-")
})

afterAll(async () => {
  await close?.()
  if (dir !== undefined) await removeDir(dir)
  expect(transcript.leaks(Object.keys(keyPlans))).toEqual([])
})

type Wire = Readonly<Record<string, unknown>>

const text = (path: string) => Effect.promise(() => readFile(path, "utf8"))
const manifestOf = (out: string) => Effect.map(text(`${out}.manifest.json`), (t) => JSON.parse(t) as Manifest & { readonly query: Wire })
const exportWith = (plan: Plan, apiKey: string, args: ReadonlyArray<string>) =>
  transcript.cli(["export", ...args, "--base-url", sim.baseUrl, "--api-key", apiKey, "--plan", plan])
const oracle = (module: string, action: string, params: Readonly<Record<string, string | number>>) =>
  Effect.map(Effect.orDie(sim.oracle({ chainId: 1, module, action, params })), (r) => r as ReadonlyArray<Wire>)

/** The test's own scaling: the digits, a point `decimals` from the right, zeros trimmed. */
const byHand = (raw: string, decimals: number): string => {
  const digits = raw.padStart(decimals + 1, "0")
  const whole = digits.slice(0, digits.length - decimals)
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "")
  return fraction === "" ? whole : `${whole}.${fraction}`
}

/** A CSV's rows as objects by column. */
const csvObjects = (csv: string) => {
  const { header, rows } = readCsv(csv)
  return { header, rows: rows.map((row) => Object.fromEntries(header.map((h, i) => [h, row[i] as string]))) }
}

describe("export --decimals", () => {
  const transfersKey = key("transfers", "free")
  it.live("erc20-transfers of tokens of 0, 6, 18 and 24 decimals: valueScaled and timeStampIso beside the raw columns", () =>
    Effect.gen(function*() {
      const chain = sim.dataset.chain(1)
      for (const token of [chain.wholeToken, chain.erc20[0], chain.erc20[2], chain.proxyToken]) {
        const address = token?.address as string
        const out = join(dir, `transfers-${token?.symbol}.csv`)
        succeeded(yield* exportWith("free", transfersKey, ["erc20-transfers", "--contract", address, "--decimals", "--out", out]))
        const { header, rows } = csvObjects(yield* text(out))
        expect(header.slice(header.indexOf("timeStamp"), header.indexOf("timeStamp") + 2)).toEqual(["timeStamp", "timeStampIso"])
        expect(header.slice(header.indexOf("value"), header.indexOf("value") + 2)).toEqual(["value", "valueScaled"])
        const expected = yield* oracle("account", "tokentx", { contractaddress: address })
        expect(rows.length).toBe(expected.length)
        rows.forEach((row, i) => {
          const record = expected[i] as Wire
          expect(row.value).toBe(record.value)
          expect(row.tokenDecimal).toBe(String(token?.decimals))
          expect(row.valueScaled).toBe(byHand(String(record.value), token?.decimals as number))
          expect(Date.parse(row.timeStampIso as string) / 1000).toBe(Number(record.timeStamp))
          expect(row.timeStampIso).toMatch(/Z$/)
        })
        expect((yield* manifestOf(out)).query).toMatchObject({ decimals: { from: "tokenDecimal" } })
      }
    }), TIMEOUT)

  const listsKey = key("lists", "professional")
  it.live("holders, top-holders and token-balances: quantities scaled by tokeninfo's or the row's decimals", () =>
    Effect.gen(function*() {
      const chain = sim.dataset.chain(1)
      const yocto = chain.proxyToken.address
      const holdersOut = join(dir, "holders.jsonl")
      succeeded(yield* exportWith("professional", listsKey, ["holders", "--contract", yocto, "--decimals", "--out", holdersOut]))
      const holders = readJsonl(yield* text(holdersOut))
      const expected = yield* oracle("token", "tokenholderlist", { contractaddress: yocto })
      expect(holders.map((h) => [h.TokenHolderAddress, h.TokenHolderQuantityScaled])).toEqual(
        expected.map((h) => [h.TokenHolderAddress, byHand(String(h.TokenHolderQuantity), 24)])
      )
      expect((yield* manifestOf(holdersOut)).query).toMatchObject({ decimals: { from: "tokeninfo", value: 24 } })

      const topOut = join(dir, "top.csv")
      succeeded(yield* exportWith("professional", listsKey, ["top-holders", "--contract", chain.erc20[0]?.address as string, "--limit", "5", "--decimals", "--out", topOut]))
      const top = csvObjects(yield* text(topOut)).rows
      expect(top).toHaveLength(5)
      // topholders divides by the decimals itself: the same amounts as the raw holder list scaled by 6.
      const raw = yield* oracle("token", "tokenholderlist", { contractaddress: chain.erc20[0]?.address as string })
      expect(top.map((h) => [h.TokenHolderAddress, h.TokenHolderQuantityScaled])).toEqual(
        raw.slice(0, 5).map((h) => [h.TokenHolderAddress, byHand(String(h.TokenHolderQuantity), 6)])
      )

      const balancesOut = join(dir, "balances.csv")
      succeeded(yield* exportWith("professional", listsKey, ["token-balances", "--address", chain.wallets[0]?.address as string, "--decimals", "--out", balancesOut]))
      const balances = csvObjects(yield* text(balancesOut)).rows
      expect(new Set(balances.map((b) => b.TokenDivisor))).toEqual(new Set(["0", "6", "18", "24"]))
      for (const b of balances) expect(b.TokenQuantityScaled).toBe(byHand(b.TokenQuantity as string, Number(b.TokenDivisor)))
    }), TIMEOUT)

  const unknownKey = key("unknown", "professional")
  it.live("a token whose decimals are unknown: empty scaled cells, and the manifest says decimals null", () =>
    Effect.gen(function*() {
      const out = join(dir, "unknown.csv")
      succeeded(yield* exportWith("professional", unknownKey, ["holders", "--contract", UNKNOWN_TOKEN, "--decimals", "--out", out]))
      const rows = csvObjects(yield* text(out)).rows
      expect(rows).toHaveLength(12)
      expect(rows.every((r) => r.TokenHolderQuantityScaled === "" && r.TokenHolderQuantity !== "")).toBe(true)
      expect((yield* manifestOf(out)).query).toMatchObject({ decimals: { from: "tokeninfo", value: null } })
    }), TIMEOUT)

  const resumeKey = key("resume", "free")
  it.live("--decimals extends with --resume to the oracle's rows; resuming without --decimals is refused", () =>
    Effect.gen(function*() {
      const chain = sim.dataset.chain(1)
      const token = chain.erc20[0]?.address as string
      const out = join(dir, "resume.csv")
      const confirmations = 100_000
      const args = ["erc20-transfers", "--contract", token, "--decimals", "--out", out]
      succeeded(yield* exportWith("free", resumeKey, [...args, "--confirmations", String(confirmations)]))
      const early = yield* oracle("account", "tokentx", { contractaddress: token, endblock: chain.latestBlock - confirmations })
      expect(csvObjects(yield* text(out)).rows.length).toBe(early.length)

      const refused = yield* exportWith("free", resumeKey, ["erc20-transfers", "--contract", token, "--out", out, "--resume"])
      expect(failureOf(refused, "SinkError")).toContain("another export")

      succeeded(yield* exportWith("free", resumeKey, [...args, "--resume"]))
      const all = yield* oracle("account", "tokentx", { contractaddress: token })
      expect(all.length).toBeGreaterThan(early.length)
      const rows = csvObjects(yield* text(out)).rows
      expect(rows.map((r) => [r.hash, r.valueScaled])).toEqual(all.map((r) => [r.hash, byHand(String(r.value), 6)]))
      expect(yield* manifestOf(out)).toMatchObject({ rows: all.length, run: { mode: "extended" } })
    }), TIMEOUT)
})
