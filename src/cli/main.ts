/**
 * The `explorer-etl` command line. Failures print one stderr line `error <ErrorTag>: <message>` and
 * exit non-zero; bad flags are refused before any request; the API key never appears in any output.
 */
import * as Command from "@effect/cli/Command"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { callCommand } from "./CallCommand.js"
import { chainsCommand } from "./Chains.js"
import { demoCommand } from "./DemoCommand.js"
import { report, signalExitCode } from "./Errors.js"
import { exportCommand } from "./ExportCommand.js"
import { runCommand } from "./RunCommand.js"
import { simulatorCommand } from "./SimulatorCommand.js"

const root = Command.make("explorer-etl").pipe(
  Command.withDescription("pull on-chain data out of Etherscan-V2-style explorer APIs into CSV or JSONL files"),
  Command.withSubcommands([callCommand, exportCommand, runCommand, simulatorCommand, demoCommand, chainsCommand])
)

const cli = Command.run(root, { name: "explorer-etl", version: "0.1.0" })

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
  report(withoutCliErrorText(Effect.suspend(() => cli(process.argv))).pipe(Effect.provide(NodeContext.layer))),
  {
    disableErrorReporting: true,
    teardown: (exit, onExit) => {
      if (signal !== undefined || (Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause))) {
        return onExit(signalExitCode(signal))
      }
      const code = typeof process.exitCode === "number" ? process.exitCode : Exit.isSuccess(exit) ? 0 : 1
      onExit(code)
    }
  }
)
