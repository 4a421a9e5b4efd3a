/**
 * The `explorer-etl` command line. Failures print one stderr line `error <ErrorTag>: <message>` and
 * exit non-zero; bad flags are refused before any request; the API key never appears in any output.
 */
import * as Command from "@effect/cli/Command"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { callCommand } from "./CallCommand.js"
import { demoCommand } from "./DemoCommand.js"
import { report } from "./Errors.js"
import { exportCommand } from "./ExportCommand.js"
import { runCommand } from "./RunCommand.js"
import { simulatorCommand } from "./SimulatorCommand.js"

const root = Command.make("explorer-etl").pipe(
  Command.withDescription("pull on-chain data out of Etherscan-V2-style explorer APIs into CSV or JSONL files"),
  Command.withSubcommands([callCommand, exportCommand, runCommand, simulatorCommand, demoCommand])
)

const cli = Command.run(root, { name: "explorer-etl", version: "0.1.0" })

// @effect/cli prints a validation error's text with Console.error before failing with it; `report`
// prints the one `error InvalidInputError: …` line instead, so that text is dropped here.
const withoutCliErrorText = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.consoleWith((console) => Console.withConsole(effect, { ...console, error: () => Effect.void }))

NodeRuntime.runMain(
  report(withoutCliErrorText(Effect.suspend(() => cli(process.argv))).pipe(Effect.provide(NodeContext.layer))),
  { disableErrorReporting: true }
)
