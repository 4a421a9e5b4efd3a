/**
 * The command tree of `explorer-etl` and its help: every command, its options and their descriptions.
 * Loading it loads every command module; main.ts answers a plain `--help` from the prerendered texts
 * (HelpTexts.ts) without it.
 */
import * as Command from "@effect/cli/Command"
import { callCommand } from "./CallCommand.js"
import { chainsCommand } from "./Chains.js"
import { demoCommand } from "./DemoCommand.js"
import { exportCommand } from "./ExportCommand.js"
import * as Help from "./Help.js"
import { runCommand } from "./RunCommand.js"
import { runnerCommand } from "./RunnerCommand.js"
import { simulatorCommand } from "./SimulatorCommand.js"
import { statusCommand } from "./StatusCommand.js"
import { helpWidth as width, version as packageVersion } from "./HelpTexts.js"

/** `explorer-etl` and its commands. */
export const root = Command.make("explorer-etl").pipe(
  Command.withDescription("pull on-chain data out of Etherscan-V2-style explorer APIs into CSV, JSONL or Parquet files"),
  Command.withSubcommands([callCommand, exportCommand, runCommand, runnerCommand, statusCommand, simulatorCommand, demoCommand, chainsCommand])
)

/** The version `--version` and the help print. */
export const version = packageVersion

/** The help of the tree. */
export const help = Help.make({ root, nested: { export: exportCommand }, childNoun: { export: "data set" }, version })

/** The width help is wrapped to: the terminal's, 80 when stdout is not a terminal. */
export const helpWidth = width
