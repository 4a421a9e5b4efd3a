/**
 * What an export shows while it runs (issue 17): a line for every retry (a server that accepts and
 * never answers is no longer minutes of silence), `--quiet` keeping only the error, and — in a real
 * terminal (tmux) — one progress line redrawn in place and cleared before the summary.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import * as Simulator from "../../src/simulator/index.js"
import { bin, madeUpKey, makeTempDir, removeDir, repoRoot, startSimulator, Transcript } from "./helpers.js"

const TIMEOUT = 240_000
const key = madeUpKey("progress")
const quietKey = madeUpKey("progressquiet")
const tmuxKey = madeUpKey("progresstmux")
const transcript = new Transcript()

/** A server that accepts every connection and never answers. */
let silent: Server
let silentUrl: string
let silentRequests = 0
let sim: Simulator.Simulator.Service
let close: () => Promise<void>
let dir: string

const listen = (server: Server) =>
  new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)))

beforeAll(async () => {
  silent = createServer(() => void silentRequests++)
  silentUrl = `http://127.0.0.1:${await listen(silent)}`
  // Every answer waits 150-250 ms: an export of the heavy contract's logs takes a few seconds.
  const faults = Simulator.parseFaultSpec("latency=150+100,seed=3")
  if (Either.isLeft(faults)) throw new Error(faults.left.message)
  const started = await startSimulator({
    keys: { [key]: "free", [quietKey]: "free", [tmuxKey]: "standard" },
    faults: faults.right,
    dataset: { heavyContractLogs: 12_000 }
  })
  sim = started.sim
  close = started.close
  dir = await makeTempDir("cli-progress-")
})

afterAll(async () => {
  silent?.closeAllConnections()
  await new Promise<void>((resolve) => silent === undefined ? resolve() : silent.close(() => resolve()))
  await close?.()
  if (dir !== undefined) await removeDir(dir)
})

describe.concurrent("progress", () => {
  it.live("a server that never answers: one line per retry, then the error", () =>
    Effect.gen(function*() {
      const out = join(dir, "silent.csv")
      const wallet = "0x1111111111111111111111111111111111111111"
      const result = yield* transcript.cli([
        "export", "txs", "--address", wallet, "--to-block", "100", "--out", out,
        "--base-url", silentUrl, "--api-key", key, "--retries", "2", "--timeout", "0.5"
      ])
      expect(result.code).toBe(1)
      const lines = result.stderr.trimEnd().split("\n")
      expect(lines.at(-1)).toMatch(/^error TransportError: .*no answer within 500ms$/)
      // With a fixed --to-block the chain's head and the first page go out together: each call's
      // retries get their lines, in the order they happen. (On a loaded machine the export can last long
      // enough for a plain progress line among them, as on any pipe: those are not retries.)
      const retries = lines.slice(0, -1).filter((line) => !line.includes(" · "))
      expect(retries).toHaveLength(4)
      for (const line of retries) expect(line).toMatch(/^retry [12]\/2 in [\d.]+ m?s: no answer within 500ms \(\w+\/\w+, TransportError\)$/)
      for (const call of ["block/getblocknobytime", "account/txlist"]) {
        expect(retries.filter((l) => l.endsWith(`(${call}, TransportError)`)).map((l) => l.slice(0, 9))).toEqual(["retry 1/2", "retry 2/2"])
      }
      expect(silentRequests).toBeGreaterThanOrEqual(3)
      expect(existsSync(out)).toBe(false)
    }), TIMEOUT)

  it.live("--quiet: the retries are not shown, the error is", () =>
    Effect.gen(function*() {
      const out = join(dir, "silent-quiet.csv")
      const result = yield* transcript.cli([
        "export", "txs", "--address", "0x1111111111111111111111111111111111111111", "--to-block", "100", "--out", out,
        "--base-url", silentUrl, "--api-key", quietKey, "--retries", "1", "--timeout", "0.5", "--quiet"
      ])
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(/^error TransportError: .*no answer within 500ms\n$/)
      const call = yield* transcript.cli([
        "call", "stats", "ethsupply", "--base-url", silentUrl, "--api-key", quietKey, "--retries", "1", "--timeout", "0.5", "-q"
      ])
      expect(call.stderr).toMatch(/^error TransportError: .*no answer within 500ms\n$/)
    }), TIMEOUT)

  it.live("in a real terminal (tmux): one progress line redrawn in place, cleared before the summary", () =>
    Effect.gen(function*() {
      // The tmux server's socket lives in the test's folder: removed with it.
      const socket = join(dir, "tmux.sock")
      const tmux = (...args: ReadonlyArray<string>) => execFileSync("tmux", ["-S", socket, ...args], { encoding: "utf8" })
      const out = join(dir, "tmux-logs.csv")
      const done = join(dir, "tmux-done")
      const heavy = sim.dataset.chain(1).heavyContract.address
      const command = [
        process.execPath, bin, "export", "logs", "--address", heavy, "--out", out,
        "--base-url", sim.baseUrl, "--api-key", tmuxKey, "--plan", "standard"
      ].map((w) => `'${w}'`).join(" ")
      // The heavy contract has blocks denser than the free plan's result window: standard reads them.
      // The pane is 150 columns wide: the whole progress line fits, so it is never cut.
      tmux(
        "new-session", "-d", "-s", "export", "-x", "150", "-y", "30", "-c", repoRoot,
        `env -u EXPLORER_API_KEY -u ETHERSCAN_API_KEY ${command}; echo "exit $?" > '${done}'; sleep 600`
      )
      try {
        const progress: Array<string> = []
        while (!existsSync(done)) {
          const pane = tmux("capture-pane", "-p", "-t", "export")
          const lines = pane.split("\n").filter((l) => l.startsWith("logs chain 1 · "))
          // One line redrawn in place: never two progress lines in the pane.
          expect(lines.length).toBeLessThanOrEqual(1)
          if (lines[0] !== undefined) progress.push(lines[0].trimEnd())
          yield* Effect.sleep("200 millis")
        }
        const final = tmux("capture-pane", "-p", "-t", "export")
        expect(readFileSync(done, "utf8").trim(), final).toBe("exit 0")
        // The progress line was seen while the export ran, with its rates.
        expect(progress.length).toBeGreaterThan(0)
        for (const line of progress) {
          // calls/s against the plan's rate (10 on standard), once a few seconds of data give a rate
          // that means something; before, no rate at all.
          expect(line).toMatch(
            /^logs chain 1 · [\d,]+ rows · ([\d,]+ rows\/s · [\d,]+ calls · [\d.,]+\/10 calls\/s|[\d,]+ calls(?! · [\d.,]+\/10 calls\/s))/
          )
        }
        expect(progress[0], progress.join("\n")).not.toContain("/s")
        // The export starts at block 0 and its logs a few million blocks later: the percent counts
        // from the first block with data, so it is seen well below 100 (it used to read 99 % at once).
        const percents = progress.flatMap((l) => {
          const m = /· ([\d.]+)%/.exec(l)
          return m === null ? [] : [Number(m[1])]
        })
        expect(percents.some((p) => p < 90), progress.join("\n")).toBe(true)
        // At the end the summary stands where the progress line was.
        expect(final.split("\n").filter((l) => l.startsWith("logs chain 1 · "))).toEqual([])
        expect(final).toMatch(/^wrote 12,000 rows to .*tmux-logs\.csv \(complete/m)
        expect(final).not.toContain("\u001b")
      } finally {
        tmux("kill-server")
      }
    }), TIMEOUT)
})
