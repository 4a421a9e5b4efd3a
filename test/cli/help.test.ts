/**
 * Help a person reads (issue 17): `--help | cat` is plain text wrapped to 80 columns with the real
 * program name and no @effect/cli filler; `export` lists its data sets one line each; a typo of a
 * command or data set is refused with a "did you mean"; `--log-level` is taken before or after the
 * subcommand; in a terminal (tmux) the help is wrapped to its width. A plain `--help` is answered from
 * the texts the build prerendered (dist/cli/help-texts.json) without loading Effect or any command, and
 * those texts are the ones the command tree renders.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile, execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { help } from "../../src/cli/Tree.js"
import { bin, failureOf, repoRoot, succeeded, Transcript } from "./helpers.js"

const TIMEOUT = 240_000
const transcript = new Transcript()

/** Every line of `text` fits in `width` columns. */
const widest = (text: string): number => Math.max(...text.split("\n").map((line) => [...line].length))

/** The module URLs node loads for `explorer-etl …args` (a resolve hook prints each), and its stdout. */
const loadedBy = (args: ReadonlyArray<string>) =>
  Effect.async<{ readonly loaded: ReadonlyArray<string>; readonly stdout: string }>((resume) => {
    execFile(process.execPath, ["--import", join(repoRoot, "test", "package", "consumer", "loaded.mjs"), bin, ...args], {
      cwd: repoRoot,
      encoding: "utf8"
    }, (_error, stdout, stderr) =>
      resume(Effect.succeed({
        loaded: stderr.split("\n").filter((l) => l.startsWith("loaded ")).map((l) => l.slice("loaded ".length)),
        stdout
      })))
  })

describe.concurrent("help", () => {
  it.live("a plain --help loads no Effect module and no command: it prints the prerendered text", () =>
    Effect.gen(function*() {
      for (const args of [["--help"], ["export", "--help"], ["export", "txs", "-h"]]) {
        const { loaded, stdout } = yield* loadedBy(args)
        expect(stdout, args.join(" ")).toContain("USAGE")
        expect(loaded.filter((url) => /node_modules\/(effect|@effect)\//.test(url) || /\/dist\/cli\/(Cli|Tree|ExportCommand)\.js$/.test(url)), args.join(" "))
          .toEqual([])
      }
      // Another flag on the line: the full command line answers, with the same text.
      const full = yield* loadedBy(["export", "txs", "--help", "--log-level", "none"])
      expect(full.loaded.some((url) => url.endsWith("/dist/cli/Cli.js"))).toBe(true)
      expect(full.stdout).toBe((yield* loadedBy(["export", "txs", "--help"])).stdout)
    }), TIMEOUT)

  it("the prerendered texts are the command tree's help at 80 columns, for every command and data set", () => {
    const texts = JSON.parse(readFileSync(join(repoRoot, "dist", "cli", "help-texts.json"), "utf8")) as {
      readonly width: number
      readonly help: Readonly<Record<string, string>>
    }
    expect(texts.width).toBe(80)
    const paths = [[], ...(help.namesAt([]) ?? []).flatMap((name) => [[name], ...(help.namesAt([name]) ?? []).map((c) => [name, c])])]
    expect(Object.keys(texts.help).sort()).toEqual(paths.map((p) => p.join(" ")).sort())
    for (const path of paths) expect(texts.help[path.join(" ")], path.join(" ")).toBe(help.render(path, 80))
  })

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

  it.live("the program's and export's help name the three formats: CSV, JSONL and Parquet", () =>
    Effect.gen(function*() {
      for (const args of [["--help"], ["export", "--help"]]) {
        const { stdout } = succeeded(yield* transcript.cli(args))
        // The text is wrapped to the terminal: a line may end anywhere in the phrase.
        expect(stdout.replace(/\s+/g, " "), args.join(" ")).toContain("CSV, JSONL or Parquet")
      }
      const { stdout } = succeeded(yield* transcript.cli(["export", "txs", "--help"]))
      expect(stdout.replace(/\s+/g, " ")).toContain("--format <format> file format: csv, jsonl or parquet")
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
