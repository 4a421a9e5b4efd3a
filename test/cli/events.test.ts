/**
 * `explorer-etl export events …` as a subprocess against an in-process simulator: `--abi auto` (a proxy
 * followed to its implementation, the ABI cached on disk) with `--event Transfer` equals the oracle's
 * Transfer logs decoded by hand in the test; without `--event` every log of a contract mixing
 * decodable and undecodable events is kept; `--abi FILE` with an unknown event is refused before any
 * request; a SIGKILLed events export resumes to the bytes of an uninterrupted one.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, readdirSync } from "node:fs"
import { readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import type { Plan } from "../../src/Plan.js"
import * as Simulator from "../../src/simulator/index.js"
import {
  exited,
  failureOf,
  madeUpKey,
  makeTempDir,
  type Manifest,
  readCsv,
  readJsonl,
  removeDir,
  requestsWith,
  spawnCli,
  startSimulator,
  succeeded,
  Transcript
} from "./helpers.js"

/** A planted contract on Arbitrum (served to free keys, not populated): 16,000 ERC-20-shaped Transfer logs. */
const PLANTED_CHAIN = 42161
const PLANTED = "0x00000000000000000000000000000000e7e17c11"
const FROM = 5_000_000
const plantedBlocks: ReadonlyArray<readonly [number, number]> = Array.from({ length: 40 }, (_, i) => [FROM + 10 + i * 37, 400] as const)

const keyPlans: Record<string, Plan> = {}
const key = (name: string, plan: Plan): string => {
  const k = madeUpKey(`ev${name}`)
  keyPlans[k] = plan
  return k
}

const TIMEOUT = 240_000
const TRANSFER = "Transfer(address indexed from,address indexed to,uint256 value)"

const transcript = new Transcript()
let sim: Simulator.Simulator.Service
let close: () => Promise<void>
let dir: string

beforeAll(async () => {
  const started = await startSimulator({
    keys: keyPlans,
    dailyCaps: false,
    faults: { seed: 5, latency: { fixedMs: 10, jitterMs: 5 } },
    dataset: {
      chains: [1],
      busyWalletTransactions: 0,
      heavyContractLogs: 0,
      scenarios: [{ chainId: PLANTED_CHAIN, kind: "logs", address: PLANTED, rowsPerBlock: plantedBlocks }]
    }
  })
  sim = started.sim
  close = started.close
  dir = await makeTempDir("cli-events-")
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
  transcript.cli(["export", "events", ...args, "--base-url", sim.baseUrl, "--api-key", apiKey, "--plan", plan])
const logsOf = (chainId: number, address: string, topic0?: string) =>
  Effect.map(
    Effect.orDie(sim.oracle({ chainId, module: "logs", action: "getLogs", params: { address, fromBlock: 0, toBlock: 99_999_999, ...(topic0 === undefined ? {} : { topic0 }) } })),
    (records) => records as ReadonlyArray<Wire>
  )
const operationCount = (operation: string) => Effect.map(sim.stats, (s) => s.byOperation[operation] ?? 0)

const decimal = (hex: unknown): string => (hex === "0x" ? "0" : BigInt(hex as string).toString())
const topicAddress = (topic: string): string => `0x${topic.slice(26)}`.toLowerCase()

describe("export events", () => {
  const autoKey = key("auto", "standard")
  it.live("--abi auto --event Transfer on a token behind a proxy: the oracle's Transfer logs decoded by hand; the ERC-721-shaped Transfer kept raw", () =>
    Effect.gen(function*() {
      const token = sim.dataset.chain(1).proxyToken
      const out = join(dir, "transfers.csv")
      const cache = join(dir, "abi-cache")
      const result = succeeded(yield* exportWith("standard", autoKey, ["--address", token.address, "--abi", "auto", "--event", "Transfer", "--abi-cache", cache, "--out", out]))
      const expected = yield* logsOf(1, token.address, Simulator.TRANSFER_TOPIC)
      const decodable = expected.filter((l) => (l.topics as ReadonlyArray<string>).length === 3)
      expect(decodable.length).toBeGreaterThan(4)
      expect(expected.length).toBe(decodable.length + 1)
      expect(result.stderr).toContain(`events: ${decodable.length} decoded, 1 kept undecoded`)

      const { header, rows } = readCsv(yield* text(out))
      expect(header).toEqual([
        "blockNumber", "timeStamp", "transactionHash", "logIndex", "address", "event", "from", "to", "value",
        "topic0", "topic1", "topic2", "topic3", "data"
      ])
      const cells = rows.map((row) => Object.fromEntries(header.map((h, i) => [h, row[i]])))
      expect(cells.length).toBe(expected.length)
      cells.forEach((row, i) => {
        const log = expected[i] as Wire
        const topics = log.topics as ReadonlyArray<string>
        expect(row).toMatchObject({
          blockNumber: decimal(log.blockNumber),
          timeStamp: decimal(log.timeStamp),
          transactionHash: log.transactionHash,
          logIndex: decimal(log.logIndex),
          address: token.address.toLowerCase()
        })
        if (topics.length === 3) {
          expect(row).toMatchObject({
            event: "Transfer",
            from: topicAddress(topics[1] as string),
            to: topicAddress(topics[2] as string),
            value: BigInt(log.data as string).toString(),
            topic0: "",
            data: ""
          })
        } else {
          expect(row).toMatchObject({ event: "", from: "", to: "", value: "", topic0: topics[0], topic3: topics[3], data: log.data })
        }
      })
      const manifest = yield* manifestOf(out)
      expect(manifest).toMatchObject({ dataset: "events", rows: expected.length, completeness: { status: "complete" } })
      expect(manifest.query).toMatchObject({ event: "Transfer(address indexed from, address indexed to, uint256 value)", topic0: Simulator.TRANSFER_TOPIC })
      expect(String(manifest.query.abi)).toMatch(/^sha256:[0-9a-f]{64}$/)
      expect(readdirSync(join(cache, "1"))).toEqual([`${token.address.toLowerCase()}.json`])
    }), TIMEOUT)

  const everyKey = key("every", "standard")
  it.live("without --event (JSONL, the cached ABI): every log of a contract mixing decodable and undecodable events is kept", () =>
    Effect.gen(function*() {
      const token = sim.dataset.chain(1).proxyToken
      const out = join(dir, "every.jsonl")
      const lookups = (yield* operationCount("contract/getsourcecode")) + (yield* operationCount("contract/getabi"))
      succeeded(yield* exportWith("standard", everyKey, ["--address", token.address, "--abi-cache", join(dir, "abi-cache"), "--out", out]))
      // The first test fetched the ABI: this run read it from the cache.
      expect((yield* operationCount("contract/getsourcecode")) + (yield* operationCount("contract/getabi"))).toBe(lookups)
      const expected = yield* logsOf(1, token.address)
      const rows = readJsonl(yield* text(out))
      expect(rows.map((r) => [r.transactionHash, r.logIndex])).toEqual(expected.map((l) => [l.transactionHash, decimal(l.logIndex)]))
      expect(new Set(rows.map((r) => r.event))).toEqual(new Set(["Upgraded", "Transfer", "Approval", ""]))
      const raw = rows.filter((r) => r.event === "")
      expect(raw).toHaveLength(2)
      for (const r of raw) {
        const log = expected.find((l) => l.transactionHash === r.transactionHash && decimal(l.logIndex) === r.logIndex) as Wire
        expect(r).toMatchObject({ topics: log.topics, data: log.data })
        expect(r.args).toBeUndefined()
      }
      const transfer = rows.find((r) => r.event === "Transfer" && (r.args as Wire).from !== "0x0000000000000000000000000000000000000000")
      expect(Object.keys(transfer?.args as Wire)).toEqual(["from", "to", "value"])
      expect(transfer?.topics).toBeUndefined()
      expect((yield* manifestOf(out)).columns).toEqual(["blockNumber", "timeStamp", "transactionHash", "logIndex", "address", "event", "args", "topics", "data"])
    }), TIMEOUT)

  const fileKey = key("file", "free")
  it.live("--abi FILE with an unknown --event: refused before any request, with the closest name", () =>
    Effect.gen(function*() {
      const abiFile = join(dir, "erc20.json")
      const abi = [
        { type: "event", name: "Transfer", anonymous: false, inputs: [{ name: "from", type: "address", indexed: true }, { name: "to", type: "address", indexed: true }, { name: "value", type: "uint256", indexed: false }] },
        { type: "event", name: "Approval", anonymous: false, inputs: [{ name: "owner", type: "address", indexed: true }, { name: "spender", type: "address", indexed: true }, { name: "value", type: "uint256", indexed: false }] },
        { type: "function", name: "decimals", inputs: [], outputs: [{ name: "", type: "uint8" }], stateMutability: "view" }
      ]
      // A Hardhat/Foundry artifact: the ABI under "abi".
      yield* Effect.promise(() => writeFile(abiFile, JSON.stringify({ abi })))
      const out = join(dir, "refused.csv")
      const result = yield* exportWith("free", fileKey, ["--address", PLANTED, "--chain", String(PLANTED_CHAIN), "--abi", abiFile, "--event", "transfer", "--out", out])
      const message = failureOf(result, "InvalidInputError")
      expect(message).toContain("did you mean Transfer?")
      expect(message).toContain("Approval, Transfer")
      expect(yield* requestsWith(sim, fileKey)).toBe(0)
      expect(existsSync(out)).toBe(false)
    }), TIMEOUT)

  const killKey = key("kill", "free")
  const wholeKey = key("whole", "free")
  it.live("a SIGKILLed events export resumes to the bytes of an uninterrupted one", () =>
    Effect.gen(function*() {
      const args = (out: string, apiKey: string) => [
        "export", "events", "--address", PLANTED, "--chain", String(PLANTED_CHAIN), "--event", TRANSFER,
        "--from-block", String(FROM), "--to-block", String(FROM + 2_000), "--out", out,
        "--base-url", sim.baseUrl, "--api-key", apiKey, "--plan", "free"
      ]
      const whole = join(dir, "whole.csv")
      succeeded(yield* transcript.cli(args(whole, wholeKey)))
      const expected = yield* text(whole)
      expect(readCsv(expected).rows.length).toBe(plantedBlocks.length * 400)

      const out = join(dir, "killed.csv")
      const run = spawnCli(args(out, killKey))
      // Killed once its first page is written (the state file beside the output says so).
      while (!existsSync(`${out}.state.json`) || (yield* requestsWith(sim, killKey)) < 4) {
        if (run.child.exitCode !== null) break
        yield* Effect.sleep("20 millis")
      }
      const alive = run.child.exitCode === null
      run.child.kill("SIGKILL")
      const killed = yield* exited(run.child)
      transcript.record({ args: args(out, killKey), ...killed, ...run.output })
      expect(alive).toBe(true)
      expect(existsSync(out)).toBe(false)

      const resumed = succeeded(yield* transcript.cli([...args(out, killKey), "--resume"]))
      expect(resumed.stderr).toMatch(/appended [\d,]+ rows to .+, 16,000 in all/)
      expect(yield* text(out)).toBe(expected)
      expect(yield* manifestOf(out)).toMatchObject({ dataset: "events", rows: 16_000, run: { mode: "resumed" }, completeness: { status: "complete" } })
    }), TIMEOUT)

  const unverifiedKey = key("unverified", "standard")
  it.live("--abi auto on an unverified contract says so, and sends no getLogs", () =>
    Effect.gen(function*() {
      const vault = sim.dataset.chain(1).unverifiedContract.address
      const before = yield* operationCount("logs/getLogs")
      const result = yield* exportWith("standard", unverifiedKey, ["--address", vault, "--abi-cache", join(dir, "abi-cache"), "--out", join(dir, "vault.csv")])
      expect(failureOf(result, "InvalidInputError")).toContain("has no verified ABI")
      expect(yield* operationCount("logs/getLogs")).toBe(before)
    }), TIMEOUT)
})
