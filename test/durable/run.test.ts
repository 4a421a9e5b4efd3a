/**
 * `explorer-etl run <pipeline>` as a user runs it (durable by default), against a simulator in this
 * process (so its requests are counted per key): killed with SIGKILL mid-run and started again, the
 * durable run ends with files byte-identical to the one-process run (`run --no-durable`); the exports
 * that had finished before the kill are not run again (their manifests, written once, are the published
 * ones) and the two durable starts together make about the requests of one uninterrupted run.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import walletHistory from "../../pipelines/wallet-history.js"
import failsLate from "../fixtures/pipelines/fails-late.js"
import { TOO_MANY_INVALID_KEY_ATTEMPTS } from "../../src/simulator/texts.js"
import { cliSuite, exited, failureOf, madeUpKey, requestsWith, spawnCli, succeeded, until } from "../cli/helpers.js"
import { filesUnder } from "./helpers.js"

const suite = cliSuite("durable", { faults: { latency: { fixedMs: 500 } } })
// Known to the simulator before it starts; one per run, so each run's requests are counted apart.
const plainKey = suite.key("plain", "proplus")
const durableKey = suite.key("durable", "proplus")
const plainAgainKey = suite.key("plain-again", "proplus")
const interruptedKey = suite.key("interrupted", "proplus")
const partlyPlainKey = suite.key("partly-plain", "proplus")
const partlyKey = suite.key("partly", "proplus")


/** The staged manifests of a durable run in progress: file (relative to the pipeline's folder) → text. */
const stagedManifests = (pipelineDir: string): ReadonlyMap<string, string> => {
  const runs = path.join(pipelineDir, ".durable", "runs")
  const found = new Map<string, string>()
  if (!existsSync(runs)) return found
  for (const execution of readdirSync(runs)) {
    const root = path.join(runs, execution)
    for (const f of readdirSync(root, { recursive: true }) as Array<string>) {
      if (f.endsWith(".manifest.json")) found.set(f, readFileSync(path.join(root, f), "utf8"))
    }
  }
  return found
}

/** A CLI process's exit code once it has closed ("close", not "exit": all of its output has arrived). */
const closed = (cli: ReturnType<typeof spawnCli>) =>
  Effect.async<number | null>((resume) => {
    cli.child.once("close", (c) => resume(Effect.succeed(c)))
  })

/** `explorer-etl status --out-dir <outDir>`: its lines. */
const status = (outDir: string) =>
  Effect.gen(function*() {
    const cli = spawnCli(["status", "--out-dir", outDir])
    const code = yield* closed(cli)
    expect(code, cli.output.stderr).toBe(0)
    return cli.output.stdout.trimEnd().split("\n")
  })

const runArgs = (key: string, config: string, outDir: string, durable: boolean, pipeline = "pipelines/wallet-history.ts") => [
  "run", pipeline, "--base-url", suite.sim.baseUrl, "--api-key", key, "--plan", "proplus",
  "--config", config, "--out-dir", outDir, "--quiet", ...(durable ? [] : ["--no-durable"])
]

/** The pipeline's demo config for the suite's simulator, in a file: its path. */
const writeConfig = (): string => {
  const config = path.join(suite.dir, "wallet-history.config.json")
  writeFileSync(config, JSON.stringify(walletHistory.demoConfig(suite.sim.dataset)))
  return config
}

/** A `--no-durable` run to its end (exit 0): the files and requests a durable run is compared with. */
const plainRun = (key: string, config: string, outDir: string) =>
  Effect.gen(function*() {
    const plain = spawnCli(runArgs(key, config, outDir, false))
    expect((yield* exited(plain.child)).code, plain.output.stderr).toBe(0)
    return plain
  })

describe("explorer-etl run (durable by default)", () => {
  it.live("killed with SIGKILL and started again: files byte-identical, finished exports not run again", () =>
    Effect.gen(function*() {
      const config = writeConfig()

      // Today's one-process run: the files and the requests to match.
      const plainOut = path.join(suite.dir, "plain")
      const plain = yield* plainRun(plainKey, config, plainOut)
      const plainRequests = yield* requestsWith(suite.sim, plainKey)
      const plainDir = path.join(plainOut, "wallet-history")
      expect(existsSync(path.join(plainDir, ".durable")), "--no-durable keeps no journal").toBe(false)

      // The durable run, killed once a few exports have finished.
      const durableOut = path.join(suite.dir, "durable")
      const durableDir = path.join(durableOut, "wallet-history")
      const first = spawnCli(runArgs(durableKey, config, durableOut, true))
      yield* until(() => stagedManifests(durableDir).size >= 3, 120_000)
      const finished = stagedManifests(durableDir)
      // Their results reach the journal right after their manifests: a moment for that, then the kill.
      yield* Effect.sleep("300 millis")
      expect(first.child.kill("SIGKILL")).toBe(true)
      expect((yield* exited(first.child)).signal).toBe("SIGKILL")
      const killedRequests = yield* requestsWith(suite.sim, durableKey)
      expect(existsSync(path.join(durableDir, "wallet-0", "nft-holdings.csv.manifest.json"))).toBe(false)

      // status reads the journal: the run is stopped (its process is gone), the exports that finished are done.
      const during = yield* status(durableOut)
      expect(during[0]).toMatch(
        new RegExp(`^wallet-history\\trun \\S+\\tstopped \\(pid ${first.child.pid} gone; resumable: run the same command to continue it\\)\\t`)
      )
      expect(during.filter((line) => /\trunning(\t|$)/.test(line))).toEqual([])
      for (const file of finished.keys()) {
        expect(during, file).toContainEqual(expect.stringMatching(
          new RegExp(`^  export ${file.replace(".manifest.json", "").split(path.sep).join("/")}\tdone\t[\\d,]+ rows?\t\\d+ calls?$`)
        ))
      }

      const second = spawnCli(runArgs(durableKey, config, durableOut, true))
      succeeded({ args: [], code: (yield* exited(second.child)).code, signal: null, ...second.output })
      const resumedRequests = (yield* requestsWith(suite.sim, durableKey)) - killedRequests

      // Byte-identical files (data and checkpoints; manifests differ only in times and calls).
      const published = filesUnder(plainDir).filter((f) => !f.endsWith(".manifest.json") && !f.endsWith(".state.json"))
      expect(published.length).toBe(14)
      expect(filesUnder(durableDir).filter((f) => !f.endsWith(".manifest.json") && !f.endsWith(".state.json")))
        .toEqual(published)
      for (const f of published) {
        expect(readFileSync(path.join(durableDir, f)).equals(readFileSync(path.join(plainDir, f))), f).toBe(true)
      }
      // The same lines on stdout as the plain run, with this run's folder.
      expect(second.output.stdout.split(durableOut).join("<out>")).toBe(plain.output.stdout.split(plainOut).join("<out>"))

      // Finished exports were not run again: the manifest each wrote before the kill is the published one.
      for (const [file, manifest] of finished) {
        expect(readFileSync(path.join(durableDir, file), "utf8"), file).toBe(manifest)
      }
      const finishedCalls = [...finished.values()].reduce((n, m) => n + (JSON.parse(m) as { calls: number }).calls, 0)
      expect(finishedCalls).toBeGreaterThan(0)
      expect(resumedRequests).toBeLessThanOrEqual(plainRequests - finishedCalls + 4)
      expect(killedRequests + resumedRequests).toBeLessThanOrEqual(plainRequests + 4)
      const after = yield* status(durableOut)
      expect(after[0]).toMatch(/^wallet-history\trun \S+\tdone\t14\/14 exports done, /)
      // status adds up every attempt of every export: the requests the server received from both
      // processes, but those the killed one sent after its exports' last checkpoints.
      const shown = Number(/, ([\d,]+) calls?/.exec(after[0] ?? "")?.[1]?.replaceAll(",", ""))
      expect(shown).toBeLessThanOrEqual(killedRequests + resumedRequests)
      expect(shown).toBeGreaterThanOrEqual(killedRequests + resumedRequests - 4)
      expect(after.at(-1)).toBe("  commit\tdone")
      // Nothing of the run is left but its journal.
      expect(readdirSync(path.join(durableDir, ".durable")).sort()).toEqual(["journal.sqlite"])
    }), 300_000)

  it.live("interrupted with SIGINT (Ctrl-C): the run is kept, and the next start continues it to the same files", () =>
    Effect.gen(function*() {
      const config = writeConfig()
      const plainOut = path.join(suite.dir, "plain-again")
      yield* plainRun(plainAgainKey, config, plainOut)

      const out = path.join(suite.dir, "interrupted")
      const dir = path.join(out, "wallet-history")
      const first = spawnCli(runArgs(interruptedKey, config, out, true))
      yield* until(() => stagedManifests(dir).size >= 2, 120_000)
      // The run is held (SIGSTOP) while a second start is tried, so that it cannot finish meanwhile (on a
      // loaded machine the second process took longer to start than the first took to end): a stopped
      // process is alive and still holds its lock.
      expect(first.child.kill("SIGSTOP")).toBe(true)
      // A second start meanwhile is refused at once: the journal is the running run's.
      const meanwhile = spawnCli(runArgs(interruptedKey, config, out, true))
      const code = yield* closed(meanwhile)
      expect(failureOf({ args: [], code, signal: null, ...meanwhile.output }, "OutputLockedError")).toBe(
        `another run of wallet-history (pid ${first.child.pid}) is using ${path.join(dir, ".durable", "journal.sqlite")} (lock file ${path.join(dir, ".durable", "journal.sqlite.lock")})`
      )
      // Ctrl-C, delivered as the run goes on again: with 12 of 14 exports left it is still mid-run.
      expect(first.child.kill("SIGINT")).toBe(true)
      expect(first.child.kill("SIGCONT")).toBe(true)
      expect((yield* closed(first)), first.output.stderr).toBe(130)
      expect(first.output.stderr.split("\n").filter((line) => line.startsWith("interrupted:"))).toEqual([
        "interrupted: run the same command to continue this run (finished exports are not repeated)"
      ])
      const key = readFileSync(path.join(dir, ".durable", "run.json"), "utf8")
      expect((yield* status(out))[0]).toMatch(
        /^wallet-history\trun \S+\tstopped \(no process runs it; resumable: run the same command to continue it\)\t/
      )

      const second = spawnCli(runArgs(interruptedKey, config, out, true))
      succeeded({ args: [], code: (yield* exited(second.child)).code, signal: null, ...second.output })
      const after = yield* status(out)
      // One run, continued: the same key, done.
      expect(after.filter((line) => line.startsWith("wallet-history\t"))).toEqual([
        expect.stringMatching(new RegExp(`^wallet-history\\trun ${(JSON.parse(key) as { runTime: string }).runTime}\\tdone\\t`))
      ])
      const published = filesUnder(path.join(plainOut, "wallet-history"))
        .filter((f) => !f.endsWith(".manifest.json") && !f.endsWith(".state.json"))
      expect(published.length).toBe(14)
      for (const f of published) {
        expect(readFileSync(path.join(dir, f)).equals(readFileSync(path.join(plainOut, "wallet-history", f))), f).toBe(true)
      }
    }), 300_000)

  it.live("a typed failure is reported as with --no-durable, and the next start is a new run", () =>
    Effect.gen(function*() {
      const config = writeConfig()
      const unknownKey = madeUpKey("durable-unknown")
      const out = path.join(suite.dir, "failing")
      const plain = spawnCli(runArgs(unknownKey, config, out, false))
      yield* exited(plain.child)
      // The server's words for an unknown key: "Invalid API Key…", or, after 5 attempts from one address
      // within 30 s (the runs' exports start at once, a few attempts each), "Too many invalid api key
      // attempts…" — the same error either way, compared without them.
      const unknownKeyWords = (m: string) => m.replace(TOO_MANY_INVALID_KEY_ATTEMPTS, "<unknown key>").replace(/Invalid API Key.*$/, "<unknown key>")
      const message = failureOf({ args: [], code: plain.child.exitCode, signal: null, ...plain.output }, "InvalidApiKeyError")
      const messages: Array<string> = []
      for (let start = 0; start < 2; start++) {
        const before = yield* requestsWith(suite.sim, unknownKey)
        // The first start names --durable, the flag of the default, which is still accepted.
        const durable = spawnCli([...runArgs(unknownKey, config, out, true), ...(start === 0 ? ["--durable"] : [])])
        yield* exited(durable.child)
        // Asked the server again: a new run, not the stored failure replayed.
        expect(yield* requestsWith(suite.sim, unknownKey)).toBeGreaterThan(before)
        const durableMessage = failureOf({ args: [], code: durable.child.exitCode, signal: null, ...durable.output }, "InvalidApiKeyError")
        expect(unknownKeyWords(durableMessage)).toBe(unknownKeyWords(message))
        messages.push(durableMessage)
        // The failure is the run's result: no run left in progress, nothing staged.
        expect(existsSync(path.join(out, "wallet-history", ".durable", "run.json"))).toBe(false)
      }
      const runs = (yield* status(out)).filter((line) => line.startsWith("wallet-history\t"))
      expect(runs.length).toBe(2)
      for (const run of runs) expect(messages.some((m) => run.includes(`\tfailed: InvalidApiKeyError: ${m}\t`)), run).toBe(true)
    }), 300_000)

  it.live("its lines name the files where they are published, not where the run stages them; status counts rows as a user reads them", () =>
    Effect.gen(function*() {
      const out = path.join(suite.dir, "lines")
      const run = spawnCli(["run", "pipelines/token-activity.ts", "--simulator", "--out-dir", out])
      expect((yield* exited(run.child)).code, run.output.stderr).toBe(0)
      const dir = path.join(out, "token-activity")
      const wrote = (run.output.stdout + run.output.stderr).split("\n").filter((line) => line.startsWith("wrote "))
      // One line per export, each naming its published file, which is there.
      expect(wrote.map((line) => /^wrote [\d,]+ rows? to (\S+) /.exec(line)?.[1]).sort()).toEqual(
        ["holders.csv", "token.jsonl", "top-holders.csv", "transfers.csv"].map((f) => path.join(dir, f))
      )
      for (const line of wrote) expect(existsSync(/^wrote [\d,]+ rows? to (\S+) /.exec(line)?.[1] ?? "")).toBe(true)
      expect(run.output.stdout + run.output.stderr).not.toContain(".durable")
      // token.jsonl holds one row: "1 row", not "1 rows".
      expect(yield* status(out)).toContainEqual("  export token.jsonl\tdone\t1 row\t1 call")
    }))

  it.live("--durable with --no-durable, or --no-durable with --cluster, is refused before any request", () =>
    Effect.gen(function*() {
      const config = writeConfig()
      const key = madeUpKey("durable-flags")
      const out = path.join(suite.dir, "flags")
      for (
        const [extra, detail] of [
          [["--durable", "--no-durable"], "--durable and --no-durable contradict each other"],
          [["--no-durable", "--cluster", "postgres://127.0.0.1:1/none"], "a run on a cluster is always durable"]
        ] as const
      ) {
        const cli = spawnCli([...runArgs(key, config, out, true), ...extra])
        const code = (yield* exited(cli.child)).code
        expect(code).not.toBe(0)
        const message = failureOf({ args: [], code, signal: null, ...cli.output }, "InvalidInputError")
        expect(message).toContain("--no-durable")
        expect(message).toContain(detail)
      }
      expect(yield* requestsWith(suite.sim, key)).toBe(0)
      expect(existsSync(out)).toBe(false)
    }), 120_000)

  it.live("a run that fails part-way publishes the exports that finished, as --no-durable does, and drops its staged files", () =>
    Effect.gen(function*() {
      // test/fixtures/pipelines/fails-late.ts: the wallets' transactions, then events by an ABI fetched
      // from the explorer, of an address with no verified source. The run's check cannot see that last
      // source (it is made with a call): the explorer has no ABI for it, once the transactions are exported.
      const config = path.join(suite.dir, "fails-late.config.json")
      writeFileSync(config, JSON.stringify(failsLate.demoConfig(suite.sim.dataset)))
      const failing = (key: string, out: string, durable: boolean) =>
        Effect.gen(function*() {
          const args = runArgs(key, config, out, durable, "test/fixtures/pipelines/fails-late.ts")
          const cli = spawnCli(args)
          const code = (yield* exited(cli.child)).code
          expect(failureOf({ args, code, signal: null, ...cli.output }, "InvalidInputError")).toMatch(/has no verified ABI on chain 1/)
          return path.join(out, "fails-late")
        })
      // The reference: what a --no-durable run that fails the same way publishes.
      const plainDir = yield* failing(partlyPlainKey, path.join(suite.dir, "partly-plain"), false)
      const dir = yield* failing(partlyKey, path.join(suite.dir, "partly"), true)
      const published = filesUnder(dir).filter((f) => f.endsWith(".csv"))
      expect(published).toEqual(filesUnder(plainDir).filter((f) => f.endsWith(".csv")))
      expect(published.length).toBe(2)
      for (const f of published) {
        expect(readFileSync(path.join(dir, f)).equals(readFileSync(path.join(plainDir, f))), f).toBe(true)
        expect(existsSync(path.join(dir, `${f}.manifest.json`)), f).toBe(true)
      }
      expect(published).not.toContain("events.csv")
      // Nothing staged is left behind; the run is over (the next start is a new run).
      expect(existsSync(path.join(dir, ".durable", "runs"))).toBe(false)
      expect(existsSync(path.join(dir, ".durable", "run.json"))).toBe(false)
      // status: the exports that finished, and none said to continue with a run that has ended.
      const lines = yield* status(path.join(suite.dir, "partly"))
      expect(lines[0]).toMatch(new RegExp(`^fails-late\trun \\S+\tfailed: InvalidInputError: .*\t${published.length}/\\d+ exports done, `))
      expect(lines.filter((l) => l.includes("continues when the run does"))).toEqual([])
      expect(lines.at(-1)).toBe("  commit finished exports\tdone")
    }), 300_000)
})
