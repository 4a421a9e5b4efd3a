/**
 * The README's TypeScript snippets as a test runs them: extracted from the Markdown (the ```ts blocks,
 * each with the `##` section it is in), their mainnet addresses swapped for the simulator's of the same
 * role. Shared by the docs test (run inside the repository) and the package test (run in the project of
 * the README's install line, against the packed tarball).
 */
import { expect } from "@effect/vitest"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type * as Simulator from "../../src/simulator/index.js"

/** The ```ts blocks of a Markdown text, with the heading (##) of the section each is in. */
export const snippets = (text: string): Array<{ readonly section: string; readonly code: string }> => {
  const found: Array<{ section: string; code: string }> = []
  let section = ""
  let code: Array<string> | undefined
  for (const line of text.split("\n")) {
    if (code !== undefined) {
      if (/^```\s*$/.test(line)) {
        found.push({ section, code: `${code.join("\n")}\n` })
        code = undefined
      } else code.push(line)
    } else if (/^```ts\s*$/.test(line)) code = []
    else if (/^## /.test(line)) section = line.slice(3).trim()
  }
  return found
}

/** The mainnet addresses the snippets name, and the simulator's address of the same role. */
const standIns = (sim: Simulator.Simulator.Service): Record<string, string | undefined> => ({
  // a wallet with transactions and ERC-20 transfers
  "0xd8da6bf26964af9d7eed9e03e53415d37aa96045": sim.dataset.chain(1).wallets[0]?.address,
  // a verified ERC-20 token with Transfer logs
  "0xdac17f958d2ee523a2206206994597c13d831ec7": sim.dataset.chain(1).erc20[0]?.address
})

/** The snippet as a test runs it: its mainnet addresses swapped for the simulator's. */
export const prepared = (sim: Simulator.Simulator.Service, code: string): string =>
  code.replace(/0x[0-9a-fA-F]{40}\b/g, (address) => {
    const standIn = standIns(sim)[address.toLowerCase()]
    if (standIn === undefined) throw new Error(`README snippet: no simulator stand-in for ${address} (add one to test/docs/snippets.ts)`)
    return standIn
  })

/** The environment a snippet reads its client from, as the README tells a reader to set it. */
export const simulatorEnv = (sim: Simulator.Simulator.Service): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(EXPLORER_|ETHERSCAN_)/.test(name))),
  NO_COLOR: "1",
  EXPLORER_BASE_URL: sim.baseUrl,
  EXPLORER_API_KEY: sim.demoKeys.standard,
  EXPLORER_PLAN: "standard"
})

/**
 * What a snippet printed, checked against the simulator's own data set: every file it says it wrote is
 * there (in `dir`, where it ran), its manifest counting the rows it printed; and what each kind of
 * snippet prints.
 */
export const expectPrinted = (code: string, stdout: string, dir: string): void => {
  const lines = stdout.trimEnd().split("\n")
  expect(lines.length).toBeGreaterThan(0)
  for (const m of stdout.matchAll(/^wrote (\d+) rows to (\S+)$/gm)) {
    const out = join(dir, m[2] ?? "")
    expect(existsSync(out), out).toBe(true)
    expect((JSON.parse(readFileSync(`${out}.manifest.json`, "utf8")) as { rows: number }).rows).toBe(Number(m[1]))
  }
  if (code.includes("Streams.transactions(")) {
    expect(lines.filter((l) => /^tx 0x[0-9a-f]{64} \d+ wei$/.test(l))).toHaveLength(5)
    expect(lines[0]).toMatch(/^balance \d+ wei; first transaction in block \d+$/)
  }
  if (code.includes("Exports.toFile(transfers")) {
    const written = [...stdout.matchAll(/^wrote (\d+) rows to out\/transfers\.(csv|jsonl|parquet)$/gm)]
    expect(written.map((m) => m[2])).toEqual(["csv", "jsonl", "parquet"])
    expect(Number(written[0]?.[1])).toBeGreaterThan(0)
    expect(new Set(written.map((m) => m[1])).size).toBe(1)
  }
  if (code.includes("Streams.events(")) {
    expect(lines.filter((l) => /^Transfer in block \d+: \{.*"from":"0x[0-9a-f]{40}".*\}$/.test(l))).toHaveLength(3)
  }
  if (code.includes("sim.oracle(")) {
    const m = /^(\d+) transfers read, (\d+) expected$/m.exec(stdout)
    expect(m, stdout).not.toBeNull()
    expect(Number(m?.[1])).toBeGreaterThan(0)
    expect(m?.[1]).toBe(m?.[2])
  }
}
