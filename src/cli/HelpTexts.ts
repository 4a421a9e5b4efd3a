/**
 * The help texts prerendered at build time (`dist/cli/help-texts.json`, written by writeHelpTexts.ts
 * from the command tree), so that `explorer-etl --help` and `explorer-etl <command> --help` answer
 * without loading the commands, @effect/cli or Effect. This module imports nothing else: it is what
 * main.ts loads first.
 *
 * Only a plain request is answered here: command words then `--help` (or `-h`), nothing else on the
 * line, at the width the texts were rendered for (80 columns: stdout not a terminal, or a terminal of
 * 80). Anything else — another width, another flag, a word that is no command, no texts file — goes
 * to the full command line, which renders the same help from the tree.
 */
import { readFileSync } from "node:fs"

/** The package's version, as `--version` and the help print it. */
export const version = "0.1.0"

/** The width the texts are rendered for, and what help is wrapped to when stdout is not a terminal. */
export const renderedWidth = 80

/** The width help is wrapped to: the terminal's, 80 when stdout is not a terminal. */
export const helpWidth = (): number =>
  process.stdout.isTTY === true && typeof process.stdout.columns === "number" ? Math.max(40, process.stdout.columns) : renderedWidth

/** Where the build writes the texts: beside this module in dist/cli/. */
export const textsFile = new URL("./help-texts.json", import.meta.url)

/** The texts file: the help of each command path (`""`, `"export"`, `"export txs"`, …) at `width`. */
export interface Texts {
  readonly width: number
  readonly version: string
  readonly help: Readonly<Record<string, string>>
}

/** The prerendered help `args` (the words after the program) ask for, or undefined. */
export const prerendered = (args: ReadonlyArray<string>): string | undefined => {
  const last = args[args.length - 1]
  if (last !== "--help" && last !== "-h") return undefined
  const words = args.slice(0, -1)
  if (words.some((w) => w.startsWith("-"))) return undefined
  if (helpWidth() !== renderedWidth) return undefined
  let texts: Texts
  try {
    texts = JSON.parse(readFileSync(textsFile, "utf8")) as Texts
  } catch {
    return undefined
  }
  if (texts.width !== renderedWidth || texts.version !== version) return undefined
  return Object.hasOwn(texts.help, words.join(" ")) ? texts.help[words.join(" ")] : undefined
}
