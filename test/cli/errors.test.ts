/**
 * Every error class through the CLI, as a subprocess: a non-zero exit, nothing on stdout, one stderr
 * line `error <Tag>: <message>`, no file at `--out` for an export, and — for the flags the CLI or the
 * client refuses — not a single request on the simulator (counted per key).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import type { Plan } from "../../src/Plan.js"
import * as Simulator from "../../src/simulator/index.js"
import {
  failureOf,
  madeUpKey,
  makeTempDir,
  removeDir,
  requestsWith,
  startSimulator,
  Transcript
} from "./helpers.js"

/** Generous: a 2-core CI runs several CLI processes at once; nothing here asserts on time. */
const TIMEOUT = 240_000

const keyPlans: Record<string, Plan> = {}
const key = (name: string, plan: Plan): string => {
  const k = madeUpKey(`e${name}`)
  keyPlans[k] = plan
  return k
}
/** Keys the simulator does not know. */
const unknownKey = madeUpKey("eunknown")
const envOnlyKey = madeUpKey("eenvonly")

const transcript = new Transcript()
let sim: Simulator.Simulator.Service
let faulty: Simulator.Simulator.Service
let dir: string
const closers: Array<() => Promise<void>> = []

/** A server that answers every request with HTTP 200 and a JSON body that is no API answer. */
let oddServer: Server
let oddUrl: string
const oddRequests: Array<string> = []
/** A port nothing listens on. */
let closedUrl: string

const listen = (server: Server) =>
  new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)))
const shut = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()))

beforeAll(async () => {
  const main = await startSimulator({
    keys: keyPlans,
    // The advanced plan has no daily calls left: its first call is refused for the day.
    dailyCaps: { advanced: 0 },
    dataset: { busyWalletTransactions: 3_000, heavyContractLogs: 0 }
  })
  sim = main.sim
  closers.push(main.close)
  const timeouts = await startSimulator({ keys: keyPlans, faults: { rates: { queryTimeout: 1 } } })
  faulty = timeouts.sim
  closers.push(timeouts.close)
  // The body echoes the request's URL (it holds the key) where the classifier quotes the answer.
  oddServer = createServer((request, response) => {
    oddRequests.push(request.url ?? "")
    response.writeHead(200, { "content-type": "application/json" })
    response.end(JSON.stringify({ status: request.url ?? "", foo: 1 }))
  })
  oddUrl = `http://127.0.0.1:${await listen(oddServer)}`
  const probe = createServer()
  const port = await listen(probe)
  await shut(probe)
  closedUrl = `http://127.0.0.1:${port}`
  dir = await makeTempDir("cli-errors-")
})

afterAll(async () => {
  for (const close of closers) await close()
  if (oddServer !== undefined) await shut(oddServer)
  if (dir !== undefined) await removeDir(dir)
})

const api = (apiKey: string, plan: Plan, baseUrl = sim.baseUrl) => ["--base-url", baseUrl, "--api-key", apiKey, "--plan", plan]

/** Asserts a refused export: the tag, no file at --out, and no request sent with its key. */
const refusedExport = (args: ReadonlyArray<string>, out: string, apiKey: string, tag: string) =>
  Effect.gen(function*() {
    const message = failureOf(yield* transcript.cli(args), tag)
    expect(existsSync(out)).toBe(false)
    expect(yield* requestsWith(sim, apiKey)).toBe(0)
    return message
  })

// One concurrent block, the slowest tests first: the CLI processes keep both cores busy to the end.
describe.concurrent("errors", () => {
  it.live("InvalidApiKeyError: a key the server does not know", () =>
    Effect.gen(function*() {
      const out = join(dir, "unknown-key.csv")
      const wallet = sim.dataset.chain(1).wallets[0]?.address ?? ""
      // --to-block latest (the default) is resolved first: the message names the user's export, not
      // block/getblocknobytime, a call they never asked for.
      const message = failureOf(
        yield* transcript.cli(["export", "txs", "--address", wallet, "--out", out, "--quiet", ...api(unknownKey, "free")]),
        "InvalidApiKeyError"
      )
      expect(message).toMatch(/^export\/txs on chain 1: API key rejected by the server \(checked while asking for the latest block\)/)
      expect(message).not.toMatch(/getblocknobytime/)
      expect(existsSync(out)).toBe(false)
      expect(yield* requestsWith(sim, unknownKey)).toBeGreaterThan(0)
    }), TIMEOUT)

  it.live("InvalidApiKeyError: no key at all (none given, none in the environment)", () =>
    Effect.gen(function*() {
      const out = join(dir, "no-key.csv")
      const wallet = sim.dataset.chain(1).wallets[0]?.address ?? ""
      const before = (yield* sim.stats).byKey["(none)"] ?? 0
      const message = failureOf(
        yield* transcript.cli(["export", "txs", "--address", wallet, "--out", out, "--base-url", sim.baseUrl]),
        "InvalidApiKeyError"
      )
      expect(message).toMatch(/no API key: set EXPLORER_API_KEY \(or ETHERSCAN_API_KEY\), or pass --api-key <key> \(visible to other users in ps\)/)
      expect(message).not.toMatch(/getblocknobytime|txlist/)
      expect(existsSync(out)).toBe(false)
      expect((yield* sim.stats).byKey["(none)"] ?? 0).toBe(before)
      // The same for a single call.
      const call = failureOf(
        yield* transcript.cli(["call", "stats", "ethsupply", "--base-url", sim.baseUrl]),
        "InvalidApiKeyError"
      )
      expect(call).toMatch(/no API key/)
      expect((yield* sim.stats).byKey["(none)"] ?? 0).toBe(before)
    }), TIMEOUT)

  const dailyKey = key("daily", "advanced")
  it.live("RateLimitError: the key's daily calls are used up (EXPLORER_API_KEY before ETHERSCAN_API_KEY)", () =>
    Effect.gen(function*() {
      const out = join(dir, "daily.csv")
      const message = failureOf(
        yield* transcript.cli(
          [
            "export", "daily-tx", "--start-date", "2025-01-01", "--end-date", "2025-01-31", "--out", out, "--quiet",
            "--base-url", sim.baseUrl, "--plan", "advanced"
          ],
          { env: { EXPLORER_API_KEY: dailyKey, ETHERSCAN_API_KEY: envOnlyKey } }
        ),
        "RateLimitError"
      )
      expect(message).toMatch(/day/)
      expect(existsSync(out)).toBe(false)
      // Not retried: a daily limit does not pass before midnight.
      expect(yield* requestsWith(sim, dailyKey)).toBe(1)
    }), TIMEOUT)

  const denseKey = key("dense", "free")
  it.live("DenseBlockError: the busy wallet's dense block on the free window", () =>
    Effect.gen(function*() {
      const out = join(dir, "dense.csv")
      const busy = sim.dataset.chain(1).busyWallet
      const dense = busy.denseBlock?.block
      expect(dense).toBeDefined()
      const message = failureOf(
        yield* transcript.cli(["export", "txs", "--address", busy.address, "--out", out, "--quiet", ...api(denseKey, "free")]),
        "DenseBlockError"
      )
      expect(message).toContain(`block ${dense}`)
      expect(existsSync(out)).toBe(false)
    }), TIMEOUT)

  const transportKey = key("transport", "free")
  it.live("TransportError: nothing listens at --base-url (--retries 0)", () =>
    Effect.gen(function*() {
      const out = join(dir, "transport.csv")
      const wallet = sim.dataset.chain(1).wallets[0]?.address ?? ""
      const message = failureOf(
        yield* transcript.cli(["export", "txs", "--address", wallet, "--out", out, "--quiet", "--retries", "0", ...api(transportKey, "free", closedUrl)]),
        "TransportError"
      )
      // The first call resolves --to-block latest: the error is told as the export's.
      expect(message).toMatch(/^export\/txs on chain 1: while asking for the latest block \(block\/getblocknobytime\): /)
      expect(existsSync(out)).toBe(false)
    }), TIMEOUT)

  const decodeKey = key("decode", "free")
  it.live("DecodeError: an answer that is no API answer (and quotes the request URL: the key is scrubbed)", () =>
    Effect.gen(function*() {
      const out = join(dir, "decode.csv")
      const wallet = sim.dataset.chain(1).wallets[0]?.address ?? ""
      const message = failureOf(
        yield* transcript.cli(["export", "txs", "--address", wallet, "--out", out, "--quiet", ...api(decodeKey, "free", oddUrl)]),
        "DecodeError"
      )
      expect(message).toMatch(/unexpected answer/)
      // The chain's head and the first page go together (the head's error is the one told): two requests.
      expect(oddRequests.filter((url) => url.includes(decodeKey)).length).toBe(2)
      expect(existsSync(out)).toBe(false)
    }), TIMEOUT)

  const notokKey = key("notok", "free")
  it.live("NotOkError: getabi of an unverified contract (--api-key before EXPLORER_API_KEY)", () =>
    Effect.gen(function*() {
      const vault = sim.dataset.chain(1).unverifiedContract.address
      const message = failureOf(
        yield* transcript.cli(["call", "contract", "getabi", `address=${vault}`, ...api(notokKey, "free")], { env: { EXPLORER_API_KEY: envOnlyKey } }),
        "NotOkError"
      )
      expect(message).toMatch(/not verified/)
      expect(yield* requestsWith(sim, envOnlyKey)).toBe(0)
    }), TIMEOUT)

  const timeoutKey = key("timeout", "free")
  it.live("QueryTimeoutError: the server times out the query (--retries 0)", () =>
    Effect.gen(function*() {
      const wallet = faulty.dataset.chain(1).wallets[0]?.address ?? ""
      failureOf(
        yield* transcript.cli(["call", "account", "txlist", `address=${wallet}`, "--retries", "0", ...api(timeoutKey, "free", faulty.baseUrl)]),
        "QueryTimeoutError"
      )
      expect(yield* requestsWith(faulty, timeoutKey)).toBe(1)
    }), TIMEOUT)

  const holeskyKey = key("holesky", "free")
  it.live("UnsupportedChainError: --chain 17000", () =>
    Effect.gen(function*() {
      const out = join(dir, "holesky.csv")
      const wallet = sim.dataset.chain(1).wallets[0]?.address ?? ""
      const message = yield* refusedExport(
        ["export", "txs", "--address", wallet, "--out", out, ...api(holeskyKey, "free"), "--chain", "17000"],
        out,
        holeskyKey,
        "UnsupportedChainError"
      )
      expect(message).toMatch(/17000/)
    }), TIMEOUT)

  const hyperevmKey = key("hyperevm", "standard")
  it.live("UnsupportedChainError: top-holders on --chain 999", () =>
    Effect.gen(function*() {
      const out = join(dir, "top-999.csv")
      const token = sim.dataset.chain(999).erc20[0]?.address ?? ""
      const message = yield* refusedExport(
        ["export", "top-holders", "--contract", token, "--out", out, ...api(hyperevmKey, "standard"), "--chain", "999"],
        out,
        hyperevmKey,
        "UnsupportedChainError"
      )
      expect(message).toMatch(/topholders/)
    }), TIMEOUT)

  const plantierKey = key("plantier", "free")
  it.live("PlanTierError: a PRO data set on --plan free", () =>
    Effect.gen(function*() {
      const out = join(dir, "holders-free.csv")
      const token = sim.dataset.chain(1).airdropToken.address
      const message = yield* refusedExport(
        ["export", "holders", "--contract", token, "--out", out, ...api(plantierKey, "free")],
        out,
        plantierKey,
        "PlanTierError"
      )
      expect(message).toContain("if your key is on standard or above, pass --plan standard or set EXPLORER_PLAN=standard")
    }), TIMEOUT)

  const freeAsStandardKey = key("freeasstandard", "free")
  it.live("PlanTierError: a free key with --plan standard says which plan the key seems to have", () =>
    Effect.gen(function*() {
      const out = join(dir, "holders-free-as-standard.csv")
      const token = sim.dataset.chain(1).airdropToken.address
      const message = failureOf(
        yield* transcript.cli(["export", "holders", "--contract", token, "--out", out, "--quiet", ...api(freeAsStandardKey, "standard")]),
        "PlanTierError"
      )
      expect(message).toContain("the key seems to be on free or lite, not on standard as --plan (or EXPLORER_PLAN) says")
      expect(message).not.toMatch(/needs plan standard, have standard/)
      expect(existsSync(out)).toBe(false)
      // EXPLORER_PLAN is read as --plan is.
      const fromEnv = failureOf(
        yield* transcript.cli(
          ["export", "holders", "--contract", token, "--out", out, "--quiet", "--base-url", sim.baseUrl, "--api-key", freeAsStandardKey],
          { env: { EXPLORER_PLAN: "standard" } }
        ),
        "PlanTierError"
      )
      expect(fromEnv).toContain("not on standard as --plan (or EXPLORER_PLAN) says")
    }), TIMEOUT)

  const baseKey = key("base", "free")
  it.live("ChainNotOnPlanError: --chain 8453 --plan free", () =>
    Effect.gen(function*() {
      const out = join(dir, "base.csv")
      const token = sim.dataset.chain(8453).erc20[0]?.address ?? ""
      const message = yield* refusedExport(
        ["export", "logs", "--address", token, "--out", out, ...api(baseKey, "free"), "--chain", "8453"],
        out,
        baseKey,
        "ChainNotOnPlanError"
      )
      expect(message).toMatch(/8453/)
    }), TIMEOUT)

  const badaddressKey = key("badaddress", "free")
  it.live("InvalidInputError: a bad --address", () =>
    Effect.gen(function*() {
      const out = join(dir, "bad-address.csv")
      const message = yield* refusedExport(["export", "txs", "--address", "0x1234", "--out", out, ...api(badaddressKey, "free")], out, badaddressKey, "InvalidInputError")
      expect(message).toMatch(/address/)
    }), TIMEOUT)

  const baddateKey = key("baddate", "standard")
  it.live("InvalidInputError: a bad date", () =>
    Effect.gen(function*() {
      const out = join(dir, "bad-date.csv")
      const message = yield* refusedExport(
        ["export", "daily-tx", "--start-date", "2025-02-30", "--end-date", "2025-03-31", "--out", out, ...api(baddateKey, "standard")],
        out,
        baddateKey,
        "InvalidInputError"
      )
      expect(message).toMatch(/startDate|start-date/)
    }), TIMEOUT)

  const badtoblockKey = key("badtoblock", "free")
  it.live("InvalidInputError: a bad --to-block", () =>
    Effect.gen(function*() {
      const out = join(dir, "bad-to-block.csv")
      const token = sim.dataset.chain(1).erc20[0]?.address ?? ""
      const message = yield* refusedExport(
        ["export", "logs", "--address", token, "--to-block", "soon", "--out", out, ...api(badtoblockKey, "free")],
        out,
        badtoblockKey,
        "InvalidInputError"
      )
      expect(message).toMatch(/--to-block/)
    }), TIMEOUT)

  const topicopKey = key("topicop", "free")
  it.live("InvalidInputError: a --topic-op between topics that are not given", () =>
    Effect.gen(function*() {
      const out = join(dir, "topic-op.csv")
      const token = sim.dataset.chain(1).erc20[0]?.address ?? ""
      const message = yield* refusedExport(
        ["export", "logs", "--address", token, "--topic0", Simulator.TRANSFER_TOPIC, "--topic-op", "0_1=or", "--out", out, ...api(topicopKey, "free")],
        out,
        topicopKey,
        "InvalidInputError"
      )
      expect(message).toMatch(/0_1 needs both topic0 and topic1/)
    }), TIMEOUT)

  const unknownflagKey = key("unknownflag", "free")
  it.live("InvalidInputError: an unknown flag", () =>
    Effect.gen(function*() {
      const out = join(dir, "unknown-flag.csv")
      const wallet = sim.dataset.chain(1).wallets[0]?.address ?? ""
      const message = yield* refusedExport(
        ["export", "txs", "--address", wallet, "--out", out, ...api(unknownflagKey, "free"), "--colour", "blue"],
        out,
        unknownflagKey,
        "InvalidInputError"
      )
      expect(message).toMatch(/--colour/)
    }), TIMEOUT)

  const missingoutKey = key("missingout", "free")
  it.live("InvalidInputError: a missing --out", () =>
    Effect.gen(function*() {
      const wallet = sim.dataset.chain(1).wallets[0]?.address ?? ""
      const message = failureOf(yield* transcript.cli(["export", "txs", "--address", wallet, ...api(missingoutKey, "free")]), "InvalidInputError")
      expect(message).toMatch(/--out/)
      expect(yield* requestsWith(sim, missingoutKey)).toBe(0)
    }), TIMEOUT)

  const extensionKey = key("extension", "free")
  it.live("InvalidInputError: an --out whose extension names no format", () =>
    Effect.gen(function*() {
      const out = join(dir, "transactions.txt")
      const wallet = sim.dataset.chain(1).wallets[0]?.address ?? ""
      const message = yield* refusedExport(["export", "txs", "--address", wallet, "--out", out, ...api(extensionKey, "free")], out, extensionKey, "InvalidInputError")
      expect(message).toMatch(/\.csv/)
    }), TIMEOUT)
})

describe("errors: secrets", () => {
  it("no API key appears in any output", () => {
    expect(transcript.runs.length).toBeGreaterThan(0)
    expect(transcript.leaks([...Object.keys(keyPlans), unknownKey, envOnlyKey])).toEqual([])
  })
})
