/**
 * The `explorer-etl` command line, all of it (main.ts loads it unless the help asked for is
 * prerendered). Failures print one stderr line `error <ErrorTag>: <message>` and exit non-zero; bad
 * flags are refused before any request; the API key never appears in any output.
 */
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import { inUserTerms, report, signalExitCode } from "./Errors.js"
import * as Help from "./Help.js"
import { help, helpWidth, root, version } from "./Tree.js"

const cli = Command.run(root, { name: Help.programName, version })

const refused = (text: string) => Effect.fail(ValidationError.invalidValue(HelpDoc.p(text)))

/**
 * `--log-level <level>` (or `--log-level=<level>`) anywhere before `--`: @effect/cli takes it only
 * before the subcommand, the help lists it as a global option. Returns the level and the other words.
 */
const takeLogLevel = (args: ReadonlyArray<string>): {
  readonly level: string | undefined
  readonly rest: ReadonlyArray<string>
} => {
  const rest: Array<string> = []
  let level: string | undefined
  const end = args.indexOf("--")
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string
    if (end !== -1 && i >= end) {
      rest.push(word)
    } else if (word === "--log-level") {
      level = args[i + 1] ?? ""
      i++
    } else if (word.startsWith("--log-level=")) {
      level = word.slice("--log-level=".length)
    } else {
      rest.push(word)
    }
  }
  return { level, rest }
}

const logLevelOf: Readonly<Record<(typeof Help.logLevels)[number], LogLevel.LogLevel>> = {
  all: LogLevel.All,
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal,
  none: LogLevel.None
}

/** The command the user asked for, in their words: `export txs`, `call account balance`, `run`. */
const commandOf = (args: ReadonlyArray<string>): string => {
  const words = args[0] === "export" ? 2 : args[0] === "call" ? 3 : 1
  const taken = args.slice(0, words)
  const firstFlag = taken.findIndex((w) => w.startsWith("-"))
  return (firstFlag === -1 ? taken : taken.slice(0, firstFlag)).join(" ")
}

/** The command line: help and command typos answered here, the rest parsed and run by @effect/cli. */
const program = Effect.suspend(() => {
  const [runtime = "node", script = "explorer-etl", ...args] = process.argv
  const { level, rest } = takeLogLevel(args)
  if (level !== undefined && !(Help.logLevels as ReadonlyArray<string>).includes(level)) {
    return refused(`--log-level: must be one of ${Help.logLevels.join(", ")}, got "${level}"`)
  }
  const request = help.classify(rest)
  switch (request._tag) {
    case "help":
      return Effect.sync(() => void process.stdout.write(help.render(request.path, helpWidth())))
    case "unknown": {
      const where = request.path.length === 0 ? "" : `${request.path.join(" ")}: `
      const noun = help.nounAt(request.path)
      return refused(
        `${where}unknown ${noun} "${request.word}"` +
          (request.suggestion === undefined ? "" : `; did you mean ${request.suggestion}?`) +
          ` (${noun}s: ${request.names.join(", ")}; \`${[Help.programName, ...request.path].join(" ")} --help\` describes them)`
      )
    }
    case "unknownFlag": {
      const command = [Help.programName, ...request.path].join(" ")
      const where = request.path.length === 0 ? "" : `${request.path.join(" ")}: `
      return refused(
        `${where}unknown flag ${request.flag}` +
          (request.suggestion === undefined ? "" : `; did you mean ${request.suggestion}?`) +
          (request.takenBy.length === 0 ? "" : ` (${request.flag} is a flag of ${request.takenBy.join(", ")})`) +
          ` (\`${command} --help\` lists the flags)`
      )
    }
    case "missing": {
      const noun = help.nounAt(request.path)
      const command = [Help.programName, ...request.path].join(" ")
      return refused(`${command}: name the ${noun} first, e.g. \`${command} ${request.names[0]} …\` (${noun}s: ${request.names.join(", ")})`)
    }
    case "run": {
      const run = withoutCliErrorText(cli([runtime, script, ...rest])).pipe(
        Effect.mapError(inUserTerms(commandOf(rest))),
        // Log lines go to stderr, at every level: stdout is the command's output (`call`'s JSON, `run`'s files).
        Effect.provide(Logger.replace(Logger.defaultLogger, Logger.prettyLogger({ stderr: true })))
      )
      return level === undefined ? run : run.pipe(Logger.withMinimumLogLevel(logLevelOf[level as (typeof Help.logLevels)[number]]))
    }
  }
})

// @effect/cli prints a validation error's text with Console.error before failing with it; `report`
// prints the one `error InvalidInputError: …` line instead, so that text is dropped here.
const withoutCliErrorText = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.consoleWith((console) => Console.withConsole(effect, { ...console, error: () => Effect.void }))

// The signal that interrupted the run decides its exit code (`signalExitCode`): an interrupted export
// never exits 0. The runtime's own
// handlers interrupt the program; these only remember which signal came first.
let signal: "SIGINT" | "SIGTERM" | undefined
process.once("SIGINT", () => void (signal ??= "SIGINT"))
process.once("SIGTERM", () => void (signal ??= "SIGTERM"))

NodeRuntime.runMain(
  report(program.pipe(Effect.provide(NodeContext.layer))),
  {
    disableErrorReporting: true,
    // The runtime's pretty logger writes to stdout: the program's own (above) writes to stderr.
    disablePrettyLogger: true,
    teardown: (exit, onExit) => {
      if (signal !== undefined || (Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause))) {
        return onExit(signalExitCode(signal))
      }
      const code = typeof process.exitCode === "number" ? process.exitCode : Exit.isSuccess(exit) ? 0 : 1
      onExit(code)
    }
  }
)
