/**
 * Counts that tell the truth: against a simulator that answers one request in five with an HTTP 503,
 * every request an export sends — retries included — is in its summary line and manifest (retries
 * apart), equal to the requests the simulator received; a resumed export counts the runs before it;
 * the ABI fetch of `events --abi auto` counts with its export; a `Sources.fromStream` export reports
 * the calls its stream made.
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted, Schema, Stream } from "effect"
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import * as Client from "../../src/ExplorerClient.js"
import * as Exports from "../../src/Exports.js"
import * as Simulator from "../../src/simulator/index.js"
import * as Sources from "../../src/streams/Sources.js"
import { bin, cliEnv, cliSuite, exited, readCsv, repoRoot, succeeded, until } from "./helpers.js"

const TIMEOUT = 240_000
const suite = cliSuite("counts", {
  dataset: { heavyContractLogs: 30_000 },
  faults: { seed: 11, rates: { http503: 0.2 }, latency: { fixedMs: 30 } }
})

const requestsWith = (key: string) => Effect.map(suite.sim.stats, (s) => s.byKey[Simulator.keyFingerprint(key)] ?? 0)
const manifestOf = (out: string) =>
  JSON.parse(readFileSync(`${out}.manifest.json`, "utf8")) as { readonly calls: number; readonly retries?: number; readonly rows: number }
const api = (key: string) => ["--base-url", suite.sim.baseUrl, "--plan", "standard", "--api-key", key]
/** The summary line's counts: `…, 45 calls (9 retries)`. */
const summaryCounts = (stderr: string) => {
  const match = /, ([\d,]+) calls? \(([\d,]+) retr(?:y|ies)\)\n$/.exec(stderr)
  expect(match, stderr).not.toBeNull()
  return { calls: Number(match?.[1]?.replaceAll(",", "")), retries: Number(match?.[2]?.replaceAll(",", "")) }
}

describe.concurrent("counts", () => {
  const plainKey = suite.key("plain")
  it.live("an export's summary and manifest count every request the server received, retries apart", () =>
    Effect.gen(function*() {
      const out = join(suite.dir, "logs.csv")
      const heavy = suite.sim.dataset.chain(1).heavyContract.address
      const result = succeeded(yield* suite.transcript.cli(["export", "logs", "--address", heavy, "--out", out, ...api(plainKey)]))
      const sent = yield* requestsWith(plainKey)
      const manifest = manifestOf(out)
      expect(manifest.calls).toBe(sent)
      expect(manifest.retries).toBeGreaterThan(0)
      expect(summaryCounts(result.stderr)).toEqual({ calls: sent, retries: manifest.retries })
    }), TIMEOUT)

  const resumeKey = suite.key("resume")
  it.live("a killed export resumed: its manifest counts the requests of both runs", () =>
    Effect.gen(function*() {
      const out = join(suite.dir, "resumed.csv")
      const heavy = suite.sim.dataset.chain(1).heavyContract.address
      const args = ["export", "logs", "--address", heavy, "--out", out, "--concurrency", "1", "--quiet", ...api(resumeKey)]
      const first = spawn(process.execPath, [bin, ...args], { cwd: repoRoot, env: cliEnv(), stdio: "ignore" })
      let sentBefore = 0
      yield* until(() => {
        Effect.runPromise(requestsWith(resumeKey)).then((n) => void (sentBefore = n))
        return sentBefore >= 12
      })
      first.kill("SIGKILL")
      expect((yield* exited(first)).signal).toBe("SIGKILL")
      const killed = yield* requestsWith(resumeKey)
      succeeded(yield* suite.transcript.cli([...args, "--resume"]))
      const all = yield* requestsWith(resumeKey)
      const manifest = manifestOf(out)
      expect(readCsv(readFileSync(out, "utf8")).rows.length).toBe(30_000)
      // Every request but those the killed run sent after its last checkpoint (one cursor: one at most in flight).
      expect(manifest.calls).toBeGreaterThan(all - killed)
      expect(manifest.calls).toBeLessThanOrEqual(all)
      expect(manifest.calls).toBeGreaterThanOrEqual(all - 2)
    }), TIMEOUT)

  const abiKey = suite.key("abi")
  it.live("events --abi auto: the ABI's fetch counts with the export", () =>
    Effect.gen(function*() {
      const out = join(suite.dir, "events.csv")
      const contract = suite.sim.dataset.chain(1).verifiedContract.address
      const result = succeeded(yield* suite.transcript.cli([
        "export", "events", "--address", contract, "--abi", "auto", "--abi-cache", join(suite.dir, "abi-cache"), "--out", out,
        ...api(abiKey)
      ]))
      const sent = yield* requestsWith(abiKey)
      expect(manifestOf(out).calls).toBe(sent)
      expect(result.stderr).toContain(`, ${sent} call`)
    }), TIMEOUT)

  const streamKey = suite.key("stream")
  it.live("a Sources.fromStream export reports the calls its stream made, retries included", () =>
    Effect.gen(function*() {
      const out = join(suite.dir, "balances.csv")
      const wallets = suite.sim.dataset.chain(1).wallets.slice(0, 8).map((w) => w.address)
      const Balance = Schema.Struct({ address: Schema.String, wei: Schema.BigInt })
      const summary = yield* Effect.gen(function*() {
        const client = yield* Client.ExplorerClient
        const rows = Stream.fromIterable(wallets).pipe(
          Stream.mapEffect((address) => Effect.map(client.balance({ chainId: 1, address }), (wei) => ({ address, wei })))
        )
        return yield* Exports.toFile(
          Sources.fromStream({ dataset: "balances", chainId: 1, plan: "standard", query: { wallets }, schema: Balance, rows }),
          { out, quiet: true }
        )
      }).pipe(
        Effect.provide(Client.layer({ baseUrl: suite.sim.baseUrl, apiKey: Redacted.make(streamKey), plan: "standard" }).pipe(
          Layer.provide(NodeHttpClient.layerUndici)
        )),
        Effect.provide(NodeContext.layer)
      )
      const sent = yield* requestsWith(streamKey)
      expect(sent).toBeGreaterThanOrEqual(wallets.length)
      expect(summary.manifest.calls).toBe(sent)
      expect(summary.manifest.retries).toBe(sent - wallets.length)
    }), TIMEOUT)
})
