/**
 * Help a person reads (issue 17): `--help | cat` is plain text wrapped to 80 columns with the real
 * program name and no @effect/cli filler; `export` lists its data sets one line each; a typo of a
 * command or data set is refused with a "did you mean"; `--log-level` is taken before or after the
 * subcommand; in a terminal (tmux) the help is wrapped to its width.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { bin, failureOf, repoRoot, succeeded, Transcript } from "./helpers.js"

const TIMEOUT = 240_000
const transcript = new Transcript()

/** Every line of `text` fits in `width` columns. */
const widest = (text: string): number => Math.max(...text.split("\n").map((line) => [...line].length))

describe.concurrent("help", () => {
  it.live("--help piped: plain text, ≤ 100 columns, the real program name, no @effect/cli filler", () =>
    Effect.gen(function*() {
      for (const args of [["--help"], ["export", "--help"], ["export", "txs", "--help"], ["call", "-h"], ["simulator", "--help"]]) {
        const { stdout } = succeeded(yield* transcript.cli(args))
        expect(stdout, args.join(" ")).not.toContain("\u001b[")
        expect(widest(stdout), args.join(" ")).toBeLessThanOrEqual(100)
        expect(stdout, args.join(" ")).toContain("explorer-etl")
        expect(stdout).not.toMatch(/^\$ /m)
        for (const filler of ["--wizard", "--completions", "A user-defined piece of text", "A true or false value", "This setting is optional"]) {
          expect(stdout, `${args.join(" ")}: ${filler}`).not.toContain(filler)
        }
        expect(stdout).toContain("--log-level")
      }
    }), TIMEOUT)

  it.live("a data set's help names its filters and the API options under the real command", () =>
    Effect.gen(function*() {
      const { stdout } = succeeded(yield* transcript.cli(["export", "txs", "--help"]))
      expect(stdout).toContain("explorer-etl export txs --address <text> --out <text> [options]")
      for (const flag of ["--address <text>", "--from-block <integer>", "-o, --out <text>", "--plan <plan>", "-q, --quiet"]) {
        expect(stdout).toContain(flag)
      }
    }), TIMEOUT)

  it.live("export alone: the data sets, one line each with its description", () =>
    Effect.gen(function*() {
      const { stdout } = succeeded(yield* transcript.cli(["export"]))
      expect(stdout).toMatch(/^DATA SETS$/m)
      expect(stdout).toMatch(/^ {2}txs +normal transactions of an address \(txlist\)$/m)
      expect(stdout).toMatch(/^ {2}logs +event logs by contract address and\/or topics \(getLogs\)$/m)
      expect(stdout).toMatch(/^ {2}holders +every holder of a token/m)
    }), TIMEOUT)

  it.live("export txz: refused with a did-you-mean and the data sets", () =>
    Effect.gen(function*() {
      const result = yield* transcript.cli(["export", "txz", "--address", "0x1", "--out", "x.csv"])
      const message = failureOf(result, "InvalidInputError")
      expect(result.code).toBe(2)
      expect(message).toContain(`unknown data set "txz"; did you mean txs?`)
      expect(message).toContain("logs, mined-blocks, nft-holdings")
    }), TIMEOUT)

  it.live("a command typo: refused with a did-you-mean", () =>
    Effect.gen(function*() {
      const message = failureOf(yield* transcript.cli(["exprot", "txs"]), "InvalidInputError")
      expect(message).toContain(`unknown command "exprot"; did you mean export?`)
    }), TIMEOUT)

  it.live("--log-level before or after the subcommand; an unknown level refused", () =>
    Effect.gen(function*() {
      const before = succeeded(yield* transcript.cli(["--log-level", "debug", "chains"]))
      const after = succeeded(yield* transcript.cli(["chains", "--log-level", "debug"]))
      const equals = succeeded(yield* transcript.cli(["chains", "--log-level=error"]))
      expect(after.stdout).toBe(before.stdout)
      expect(equals.stdout).toBe(before.stdout)
      expect(before.stdout).toContain("polygon")
      const message = failureOf(yield* transcript.cli(["chains", "--log-level", "loud"]), "InvalidInputError")
      expect(message).toContain(`--log-level: must be one of all, trace, debug`)
    }), TIMEOUT)

  it.live("in a 60-column terminal (tmux): the help is wrapped to 60 columns", () =>
    Effect.gen(function*() {
      const folder = mkdtempSync(join(tmpdir(), "explorer-etl-help-"))
      const socket = join(folder, "tmux.sock")
      const done = join(folder, "done")
      const tmux = (...args: ReadonlyArray<string>) => execFileSync("tmux", ["-S", socket, ...args], { encoding: "utf8" })
      tmux(
        "new-session", "-d", "-s", "help", "-x", "60", "-y", "80", "-c", repoRoot,
        `'${process.execPath}' '${bin}' export txs --help; touch '${done}'; sleep 600`
      )
      try {
        while (!existsSync(done)) yield* Effect.sleep("100 millis")
        // -J joins the lines the terminal wrapped: a line longer than the pane would come back whole.
        const pane = tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "help")
        expect(pane).toContain("explorer-etl export txs")
        expect(pane).toContain("--address <text>")
        expect(widest(pane.trimEnd()), pane).toBeLessThanOrEqual(60)
      } finally {
        tmux("kill-server")
        rmSync(folder, { recursive: true, force: true })
      }
    }), TIMEOUT)
})
