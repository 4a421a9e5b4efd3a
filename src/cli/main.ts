/**
 * The `explorer-etl` command line's entry: a plain `--help` is answered from the prerendered texts
 * (HelpTexts.ts) in a few milliseconds; everything else loads the command line (Cli.ts).
 */
import { prerendered } from "./HelpTexts.js"

const text = prerendered(process.argv.slice(2))
if (text !== undefined) process.stdout.write(text)
else await import("./Cli.js")
