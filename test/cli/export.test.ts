/**
 * `explorer-etl export …` as a subprocess against an in-process simulator: every data set once, the
 * file's columns and rows against the simulator's oracle, the manifest beside it, the format from the
 * extension or `--format`, `--quiet`, `--confirmations` then `--resume` (extend, then unchanged), and
 * `--allow-partial` on a holder list longer than the result window.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { readdir, readFile } from "node:fs/promises"
import { join } from "node:path"
import type { Plan } from "../../src/Plan.js"
import * as Simulator from "../../src/simulator/index.js"
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

/** A token whose holder list (10,500) is longer than the 10,000-row result window. */
const BIG_TOKEN = "0x5eed00000000000000000000000000000000b16b"
const BIG_HOLDERS = 10_500

// One made-up key per test: each subprocess has its own rate windows on the simulator.
const keyPlans: Record<string, Plan> = {}
const key = (name: string, plan: Plan): string => {
  const k = madeUpKey(`x${name}`)
  keyPlans[k] = plan
  return k
}

/** Generous: a 2-core CI runs several CLI processes at once; nothing here asserts on time. */
const TIMEOUT = 240_000

const transcript = new Transcript()
let sim: Simulator.Simulator.Service
let close: () => Promise<void>
let dir: string

beforeAll(async () => {
  const started = await startSimulator({
    keys: keyPlans,
    dataset: {
      busyWalletTransactions: 0,
      heavyContractLogs: 0,
      scenarios: [{ chainId: 1, kind: "tokenholderlist", address: BIG_TOKEN, rowsPerBlock: [[0, BIG_HOLDERS]] }]
    }
  })
  sim = started.sim
  close = started.close
  dir = await makeTempDir("cli-export-")
})

afterAll(async () => {
  await close?.()
  if (dir !== undefined) await removeDir(dir)
})

type WireRecord = Readonly<Record<string, unknown>>

const text = (path: string) => Effect.promise(() => readFile(path, "utf8"))
const manifestOf = (out: string) => Effect.map(text(`${out}.manifest.json`), (t) => JSON.parse(t) as Manifest)

const oracle = (chainId: number, module: string, action: string, params: Readonly<Record<string, string | number>>) =>
  Effect.orDie(sim.oracle({ chainId, module, action, params }))

/** Runs an export with the API options after everything else, as a user may write them. */
const exportWith = (plan: Plan, apiKey: string, args: ReadonlyArray<string>) =>
  transcript.cli(["export", ...args, "--base-url", sim.baseUrl, "--api-key", apiKey, "--plan", plan])

/** A wire value as a CSV cell: strings as they are, numbers in decimal, null empty. */
const cell = (value: unknown): string => (value === null || value === undefined ? "" : String(value))

/**
 * The CSV's rows are the oracle's records, field by field, in order. Every field of the records is a
 * column; a column the records lack (a field the schema declares for other answers) stays empty.
 */
const expectCsvRecords = (csv: string, records: ReadonlyArray<WireRecord>) => {
  const { header, rows } = readCsv(csv)
  expect(rows.length).toBe(records.length)
  expect(header).toEqual(expect.arrayContaining(Object.keys(records[0] ?? {})))
  rows.forEach((row, i) => {
    const record = records[i] ?? {}
    expect(Object.fromEntries(header.map((h, c) => [h, row[c]]))).toEqual(
      Object.fromEntries(header.map((h) => [h, cell(record[h])]))
    )
  })
  return header
}

/** The manifest beside `out` describes the file: rows, columns, format, complete. */
const expectManifest = (out: string, expected: { readonly rows: number; readonly format: string; readonly dataset: string; readonly plan: string }) =>
  Effect.gen(function*() {
    const manifest = yield* manifestOf(out)
    expect(manifest).toMatchObject({
      file: out.slice(out.lastIndexOf("/") + 1),
      dataset: expected.dataset,
      rows: expected.rows,
      format: expected.format,
      plan: expected.plan,
      completeness: { status: "complete" }
    })
    expect(manifest.bytes).toBe(Buffer.byteLength(yield* text(out)))
    return manifest
  })

const wroteSummary = /^wrote [\d,]+ rows? to .+ \(complete/

// One concurrent block, the longest test first: the CLI processes keep both cores busy to the end.
describe.concurrent("export", () => {
  const resumeKey = key("resume", "free")
  it.live("--confirmations keeps the newest blocks out; --resume adds them; a finished export resumes to a byte-identical file", () =>
    Effect.gen(function*() {
      const chain = sim.dataset.chain(1)
      const token = chain.erc20[1]?.address ?? ""
      const out = join(dir, "resume.csv")
      const confirmations = 100_000
      const args = ["erc20-transfers", "--contract", token, "--out", out]

      succeeded(yield* exportWith("free", resumeKey, [...args, "--confirmations", String(confirmations)]))
      const target = chain.latestBlock - confirmations
      const early = yield* oracle(1, "account", "tokentx", { contractaddress: token, endblock: target })
      const all = yield* oracle(1, "account", "tokentx", { contractaddress: token })
      expect(early.length).toBeGreaterThan(0)
      expect(all.length).toBeGreaterThan(early.length)
      expectCsvRecords(yield* text(out), early)
      const first = yield* manifestOf(out)
      expect(first).toMatchObject({ rows: early.length, blockRange: { from: 0, to: target }, run: { mode: "fresh" } })

      const extended = succeeded(yield* exportWith("free", resumeKey, [...args, "--resume"]))
      expect(extended.stderr).toMatch(/^appended [\d,]+ rows to /)
      expectCsvRecords(yield* text(out), all)
      const second = yield* manifestOf(out)
      expect(second).toMatchObject({
        rows: all.length,
        blockRange: { from: 0, to: chain.latestBlock },
        completeness: { status: "complete" },
        run: { mode: "extended", rowsWritten: all.length - early.length }
      })

      const before = yield* Effect.promise(() => readFile(out))
      const again = succeeded(yield* exportWith("free", resumeKey, [...args, "--resume"]))
      expect(again.stderr).toMatch(/^no new blocks for /)
      const after = yield* Effect.promise(() => readFile(out))
      expect(after.equals(before)).toBe(true)
      expect(yield* manifestOf(out)).toMatchObject({ rows: all.length, run: { mode: "unchanged", rowsWritten: 0 } })
    }), TIMEOUT)

  const windowKey = key("window", "standard")
  it.live("a holder list longer than the result window: ResultWindowError and no file without --allow-partial", () =>
    Effect.gen(function*() {
      const out = join(dir, "big-holders.csv")
      const result = yield* exportWith("standard", windowKey, ["holders", "--contract", BIG_TOKEN, "--out", out])
      expect(failureOf(result, "ResultWindowError")).toMatch(/tokenholderlist/)
      expect(existsSync(out)).toBe(false)
      expect(existsSync(`${out}.manifest.json`)).toBe(false)
    }), TIMEOUT)

  const partialKey = key("partial", "standard")
  it.live("--allow-partial writes the window's rows and a manifest that says truncated", () =>
    Effect.gen(function*() {
      const out = join(dir, "big-holders-partial.csv")
      succeeded(yield* exportWith("standard", partialKey, ["holders", "--contract", BIG_TOKEN, "--out", out, "--allow-partial"]))
      const expected = yield* oracle(1, "token", "tokenholderlist", { contractaddress: BIG_TOKEN })
      expect(expected.length).toBe(BIG_HOLDERS)
      const { rows } = readCsv(yield* text(out))
      expect(rows.length).toBe(10_000)
      expect(rows.map((r) => r[0])).toEqual(expected.slice(0, 10_000).map((h) => h.TokenHolderAddress))
      const manifest = yield* manifestOf(out)
      expect(manifest.rows).toBe(10_000)
      expect(manifest.completeness.status).toBe("truncated")
    }), TIMEOUT)

  const logsKey = key("logs", "free")
  it.live("logs (CSV, chain 137, topics and an operator): topics as topic0..topic3, numbers in decimal", () =>
    Effect.gen(function*() {
      const chain = sim.dataset.chain(137)
      const token = chain.erc20[0]?.address ?? ""
      const wallet = chain.wallets[0]?.address ?? ""
      const walletTopic = `0x${"0".repeat(24)}${wallet.slice(2)}`
      const out = join(dir, "logs.csv")
      const result = succeeded(
        yield* exportWith("free", logsKey, [
          "logs",
          "--address", token,
          "--topic0", Simulator.APPROVAL_TOPIC,
          "--topic2", walletTopic,
          "--topic-op", "0_2=or",
          "--out", out,
          "--chain", "137"
        ])
      )
      expect(result.stdout).toBe("")
      expect(result.stderr).toMatch(wroteSummary)
      const expected = yield* oracle(137, "logs", "getLogs", {
        address: token,
        topic0: Simulator.APPROVAL_TOPIC,
        topic2: walletTopic,
        topic0_2_opr: "or"
      })
      expect(expected.length).toBeGreaterThan(0)
      const { header, rows } = readCsv(yield* text(out))
      expect(header).toEqual([
        "address", "topic0", "topic1", "topic2", "topic3", "data", "blockNumber", "blockHash", "timeStamp",
        "gasPrice", "gasUsed", "logIndex", "transactionHash", "transactionIndex"
      ])
      expect(rows.length).toBe(expected.length)
      const decimal = (hex: unknown) => BigInt(hex === "0x" ? 0 : String(hex)).toString()
      rows.forEach((row, i) => {
        const log = expected[i] ?? {}
        const at = (name: string) => row[header.indexOf(name)]
        const topics = log.topics as ReadonlyArray<string>
        expect([at("topic0"), at("topic1"), at("topic2"), at("topic3")]).toEqual([0, 1, 2, 3].map((k) => topics[k] ?? ""))
        for (const name of ["blockNumber", "timeStamp", "gasPrice", "gasUsed", "logIndex", "transactionIndex"]) {
          expect(at(name)).toMatch(/^\d+$/)
          expect(at(name)).toBe(decimal(log[name]))
        }
        expect(at("transactionHash")).toBe(log.transactionHash)
        expect(at("data")).toBe(log.data)
      })
      const manifest = yield* expectManifest(out, { rows: expected.length, format: "csv", dataset: "logs", plan: "free" })
      expect(manifest.columns).toEqual(header)
    }), TIMEOUT)

  const txsKey = key("txs", "free")
  it.live("txs (JSONL from the extension, a block range, --quiet): the oracle's records, nothing on stderr", () =>
    Effect.gen(function*() {
      const chain = sim.dataset.chain(1)
      const wallet = chain.wallets[1]?.address ?? ""
      const from = chain.activity.fromBlock + 20_000
      const to = chain.activity.fromBlock + 150_000
      const out = join(dir, "txs.jsonl")
      const result = succeeded(
        yield* exportWith("free", txsKey, [
          "txs", "--address", wallet, "--from-block", String(from), "--to-block", String(to), "--out", out, "--quiet"
        ])
      )
      expect(result.stdout).toBe("")
      expect(result.stderr).toBe("")
      const expected = yield* oracle(1, "account", "txlist", { address: wallet, startblock: from, endblock: to })
      expect(expected.length).toBeGreaterThan(0)
      expect(readJsonl(yield* text(out))).toEqual(expected)
      const manifest = yield* expectManifest(out, { rows: expected.length, format: "jsonl", dataset: "transactions", plan: "free" })
      expect(manifest.blockRange).toEqual({ from, to })
    }), TIMEOUT)

  const internalKey = key("internal", "free")
  it.live("internal-txs (CSV)", () =>
    Effect.gen(function*() {
      const wallet = sim.dataset.chain(1).wallets[1]?.address ?? ""
      const out = join(dir, "internal.csv")
      succeeded(yield* exportWith("free", internalKey, ["internal-txs", "--address", wallet, "--out", out]))
      const expected = yield* oracle(1, "account", "txlistinternal", { address: wallet })
      expect(expected.length).toBeGreaterThan(0)
      expectCsvRecords(yield* text(out), expected)
      yield* expectManifest(out, { rows: expected.length, format: "csv", dataset: "internalTransactions", plan: "free" })
    }), TIMEOUT)

  const erc20Key = key("erc20", "free")
  it.live("erc20-transfers of a token (--contract): values in decimal", () =>
    Effect.gen(function*() {
      const token = sim.dataset.chain(1).erc20[0]?.address ?? ""
      const out = join(dir, "erc20.csv")
      succeeded(yield* exportWith("free", erc20Key, ["erc20-transfers", "--contract", token, "--out", out]))
      const expected = yield* oracle(1, "account", "tokentx", { contractaddress: token })
      expect(expected.length).toBeGreaterThan(0)
      const csv = yield* text(out)
      const header = expectCsvRecords(csv, expected)
      for (const row of readCsv(csv).rows) expect(row[header.indexOf("value")]).toMatch(/^\d+$/)
      yield* expectManifest(out, { rows: expected.length, format: "csv", dataset: "erc20Transfers", plan: "free" })
    }), TIMEOUT)

  const erc721Key = key("erc721", "free")
  it.live("erc721-transfers of an address (--address)", () =>
    Effect.gen(function*() {
      const wallet = sim.dataset.chain(1).wallets[0]?.address ?? ""
      const out = join(dir, "erc721.csv")
      succeeded(yield* exportWith("free", erc721Key, ["erc721-transfers", "--address", wallet, "--out", out]))
      const expected = yield* oracle(1, "account", "tokennfttx", { address: wallet })
      expect(expected.length).toBeGreaterThan(0)
      expectCsvRecords(yield* text(out), expected)
      yield* expectManifest(out, { rows: expected.length, format: "csv", dataset: "erc721Transfers", plan: "free" })
    }), TIMEOUT)

  const erc1155Key = key("erc1155", "free")
  it.live("erc1155-transfers of an address and a token (JSONL from .ndjson)", () =>
    Effect.gen(function*() {
      const chain = sim.dataset.chain(1)
      const wallet = chain.wallets[0]?.address ?? ""
      const token = chain.erc1155[0]?.address ?? ""
      const out = join(dir, "erc1155.ndjson")
      succeeded(yield* exportWith("free", erc1155Key, ["erc1155-transfers", "--address", wallet, "--contract", token, "--out", out]))
      const expected = yield* oracle(1, "account", "token1155tx", { address: wallet, contractaddress: token })
      expect(expected.length).toBeGreaterThan(0)
      expect(readJsonl(yield* text(out))).toEqual(expected)
      yield* expectManifest(out, { rows: expected.length, format: "jsonl", dataset: "erc1155Transfers", plan: "free" })
    }), TIMEOUT)

  const holdersKey = key("holders", "standard")
  it.live("holders (--format jsonl on a file without a known extension)", () =>
    Effect.gen(function*() {
      const token = sim.dataset.chain(1).airdropToken.address
      const out = join(dir, "holders.data")
      succeeded(yield* exportWith("standard", holdersKey, ["holders", "--contract", token, "--out", out, "--format", "jsonl"]))
      const expected = yield* oracle(1, "token", "tokenholderlist", { contractaddress: token })
      expect(expected.length).toBeGreaterThan(1_000)
      expect(readJsonl(yield* text(out))).toEqual(expected)
      yield* expectManifest(out, { rows: expected.length, format: "jsonl", dataset: "tokenHolders", plan: "standard" })
    }), TIMEOUT)

  const topKey = key("top", "standard")
  it.live("top-holders (--limit)", () =>
    Effect.gen(function*() {
      const token = sim.dataset.chain(1).erc20[0]?.address ?? ""
      const out = join(dir, "top.csv")
      succeeded(yield* exportWith("standard", topKey, ["top-holders", "--contract", token, "--limit", "5", "--out", out]))
      const expected = (yield* oracle(1, "token", "topholders", { contractaddress: token })).slice(0, 5)
      expect(expected.length).toBe(5)
      expectCsvRecords(yield* text(out), expected)
      yield* expectManifest(out, { rows: 5, format: "csv", dataset: "topHolders", plan: "standard" })
    }), TIMEOUT)

  const nftKey = key("nft", "standard")
  it.live("nft-holdings (--format csv)", () =>
    Effect.gen(function*() {
      const wallet = sim.dataset.chain(1).wallets[0]?.address ?? ""
      const out = join(dir, "nfts.csv")
      succeeded(yield* exportWith("standard", nftKey, ["nft-holdings", "--address", wallet, "--out", out, "--format", "csv"]))
      const expected = yield* oracle(1, "account", "addresstokennftbalance", { address: wallet })
      expect(expected.length).toBeGreaterThan(0)
      expectCsvRecords(yield* text(out), expected)
      yield* expectManifest(out, { rows: expected.length, format: "csv", dataset: "nftHoldings", plan: "standard" })
    }), TIMEOUT)

  const balancesKey = key("balances", "standard")
  it.live("token-balances", () =>
    Effect.gen(function*() {
      const wallet = sim.dataset.chain(1).wallets[0]?.address ?? ""
      const out = join(dir, "balances.csv")
      succeeded(yield* exportWith("standard", balancesKey, ["token-balances", "--address", wallet, "--out", out]))
      const expected = yield* oracle(1, "account", "addresstokenbalance", { address: wallet })
      expect(expected.length).toBeGreaterThan(0)
      expectCsvRecords(yield* text(out), expected)
      yield* expectManifest(out, { rows: expected.length, format: "csv", dataset: "tokenBalances", plan: "standard" })
    }), TIMEOUT)

  const gasKey = key("gas", "standard")
  it.live("daily-gas (--sort desc)", () =>
    Effect.gen(function*() {
      const out = join(dir, "gas.csv")
      succeeded(
        yield* exportWith("standard", gasKey, [
          "daily-gas", "--start-date", "2025-01-01", "--end-date", "2025-01-31", "--sort", "desc", "--out", out
        ])
      )
      const expected = yield* oracle(1, "stats", "dailygasused", { startdate: "2025-01-01", enddate: "2025-01-31", sort: "desc" })
      expect(expected.length).toBe(31)
      expect(expected[0]?.UTCDate).toBe("2025-01-31")
      expectCsvRecords(yield* text(out), expected)
      yield* expectManifest(out, { rows: 31, format: "csv", dataset: "dailyGasUsed", plan: "standard" })
    }), TIMEOUT)

  const txCountKey = key("dailytx", "standard")
  it.live("daily-tx (JSONL)", () =>
    Effect.gen(function*() {
      const out = join(dir, "dailytx.jsonl")
      succeeded(
        yield* exportWith("standard", txCountKey, ["daily-tx", "--start-date", "2025-01-01", "--end-date", "2025-01-31", "--out", out])
      )
      const expected = yield* oracle(1, "stats", "dailytx", { startdate: "2025-01-01", enddate: "2025-01-31" })
      expect(expected.length).toBe(31)
      expect(readJsonl(yield* text(out))).toEqual(expected)
      yield* expectManifest(out, { rows: 31, format: "jsonl", dataset: "dailyTxCount", plan: "standard" })
    }), TIMEOUT)

  const tagsKey = key("tags", "proplus")
  it.live("address-tags (--label, Pro Plus)", () =>
    Effect.gen(function*() {
      const out = join(dir, "tags.csv")
      succeeded(yield* exportWith("proplus", tagsKey, ["address-tags", "--label", "dex", "--out", out]))
      const expected = yield* oracle(1, "nametag", "exportaddresstags", { label: "dex" })
      expect(expected.length).toBeGreaterThan(1)
      const { header, rows } = readCsv(yield* text(out))
      expect(rows.map((r) => r[header.indexOf("address")])).toEqual(expected.map((t) => t.address))
      expect(rows.map((r) => r[header.indexOf("nametag")])).toEqual(expected.map((t) => t.nametag))
      yield* expectManifest(out, { rows: expected.length, format: "csv", dataset: "addressTags", plan: "proplus" })
    }), TIMEOUT)
})

describe("export: secrets", () => {
  it("no API key appears in any output or file", async () => {
    expect(transcript.runs.length).toBeGreaterThan(0)
    const secrets = Object.keys(keyPlans)
    expect(transcript.leaks(secrets)).toEqual([])
    for (const name of await readdir(dir)) {
      const content = await readFile(join(dir, name), "utf8")
      expect(secrets.filter((s) => content.includes(s)), name).toEqual([])
    }
  })
})
