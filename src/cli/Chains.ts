/**
 * Chain names for the CLI: `--chain polygon` beside `--chain 137`, a "did you mean" for a typo, and
 * `explorer-etl chains`, the table every chain error points at. A chain's CLI name is its table name in
 * lower case, words joined by `-`, without "Mainnet" ("Polygon Mainnet" → `polygon`); a few usual
 * short names are accepted too (`eth`, `bsc`, `arbitrum`, `optimism`, `avalanche`).
 */
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Effect from "effect/Effect"
import * as Chain from "../Chain.js"
import { suggest } from "../Suggest.js"

/** The CLI name of a chain of the table. */
export const slugOf = (info: Chain.ChainInfo): string =>
  info.name.toLowerCase().replace(/\bmainnet\b/g, "").replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "")

const aliases: Readonly<Record<string, number>> = {
  eth: 1,
  mainnet: 1,
  bsc: 56,
  bnb: 56,
  arbitrum: 42161,
  optimism: 10,
  op: 10,
  avalanche: 43114,
  avax: 43114,
  matic: 137
}

const byName: ReadonlyMap<string, number> = new Map([
  ...Chain.chains.map((c) => [slugOf(c), c.id] as const),
  ...Object.entries(aliases)
])

/**
 * A `--chain` value as a chain id: a number as it is (a chain the API does not serve is refused by the
 * API options' check, as `UnsupportedChainError`), a name of the table, or a refusal with a suggestion.
 */
export const parse = (text: string): Effect.Effect<number, ValidationError.ValidationError> => {
  const trimmed = text.trim()
  if (/^\d+$/.test(trimmed)) return Effect.succeed(Number(trimmed))
  const id = byName.get(trimmed.toLowerCase())
  if (id !== undefined) return Effect.succeed(id)
  const close = suggest(trimmed, byName.keys())
  return Effect.fail(ValidationError.invalidValue(HelpDoc.p(
    `--chain: unknown chain "${text}"${close === undefined ? "" : `; did you mean ${close}?`} ` +
      "(a chain id or name: `explorer-etl chains` lists them)"
  )))
}

/** The table `explorer-etl chains` prints: id, name for --chain, the explorer's name, free plan. */
export const table = (): string => {
  const rows = Chain.chains.map((c) => [String(c.id), slugOf(c), c.name, c.freeTier ? "yes" : "no"])
  const all = [["id", "--chain name", "name", "free plan"], ...rows]
  const widths = all[0]!.map((_, i) => Math.max(...all.map((r) => r[i]!.length)))
  return all.map((r) => r.map((cell, i) => i === r.length - 1 ? cell : cell.padEnd(widths[i]!)).join("  ")).join("\n") + "\n"
}

/** `explorer-etl chains` */
export const chainsCommand = Command.make("chains", {}, () => Effect.sync(() => void process.stdout.write(table()))).pipe(
  Command.withDescription("list the chains the explorer API serves: id, the name --chain accepts, free plan or not")
)
