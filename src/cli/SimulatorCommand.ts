/**
 * `explorer-etl simulator [--port N] [--host H] [--seed S] [--fault spec] [--free-window 1000|10000]`: serve the local explorer,
 * print its base URL and demo keys, run until interrupted.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Simulator from "../simulator/index.js"
import { badFlag, servingUntilSignal } from "./Errors.js"
import * as Flags from "./Flags.js"

const port = Flags.wholeNumber("port", { min: 0, max: 65535, expected: "a port from 0 to 65535" }).pipe(Options.withDefault(9545), Options.withDescription("port (default 9545; 0 = any free port)"))
const host = Options.text("host").pipe(Options.withDefault("127.0.0.1"), Options.withDescription("interface (default 127.0.0.1)"))
const seed = Flags.wholeNumber("seed", { min: 0, expected: "a whole number ≥ 0" }).pipe(Options.withDefault(1), Options.withDescription("seed of the data set (default 1)"))
const fault = Options.text("fault").pipe(
  Options.withDefault(""),
  Options.withDescription("fault injection, e.g. http503=0.05,reset=0.02,truncated=0.02,latency=20+10,seed=7")
)
const noRateLimits = Options.boolean("no-rate-limits").pipe(
  Options.withDescription("do not enforce the per-second windows (benchmarks)")
)
const freeWindow = Options.choice("free-window", ["1000", "10000"]).pipe(
  Options.withDefault("1000" as const),
  Options.withDescription("the free plan's result window (page × offset) on the list operations: 1000 (default) or 10000; the facts leave it open")
)
const busyWallet = Flags.wholeNumber("busy-wallet-txs", { min: 0, expected: "a whole number ≥ 0" }).pipe(
  Options.optional,
  Options.withDescription("transactions of each chain's busy wallet (default 5,000)")
)
const heavyLogs = Flags.wholeNumber("heavy-contract-logs", { min: 0, expected: "a whole number ≥ 0" }).pipe(
  Options.optional,
  Options.withDescription("logs of each chain's heavy contract (default 20,000)")
)

/**
 * What a newcomer needs beside the demo keys: an address of each kind that has data on chain 1, and one
 * export command that runs as printed (free demo key, this simulator's URL).
 */
export const samples = (service: Simulator.SimulatorService): string => {
  const chain = service.dataset.chain(1)
  const wallet = chain.wallets[0]?.address ?? chain.busyWallet.address
  const token = chain.erc20[0] ?? chain.airdropToken
  const contract = chain.verifiedContract.address
  return [
    "  sample data on chain 1:",
    `    wallet    ${wallet}  (transactions, ERC-20 transfers)`,
    `    token     ${token.address}  (${token.symbol}, ERC-20: transfers)`,
    `    contract  ${contract}  (verified: source code and ABI)`,
    "  notable addresses on chain 1 (the long examples use them):",
    `    busy wallet     ${chain.busyWallet.address}  (${chain.busyWallet.transactions.toLocaleString("en-US")} transactions${chain.busyWallet.denseBlock === undefined ? "" : `; block ${chain.busyWallet.denseBlock.block} holds ${chain.busyWallet.denseBlock.rows.toLocaleString("en-US")} of them`})`,
    `    heavy contract  ${chain.heavyContract.address}  (${chain.heavyContract.logs.toLocaleString("en-US")} Swap logs${chain.denseBlock === undefined ? "" : `; block ${chain.denseBlock} holds more than one page`})`,
    `    airdrop token   ${chain.airdropToken.address}  (${chain.airdropToken.symbol}: a holder list of several pages)`,
    ...[chain.erc721[0], chain.erc1155[0]].flatMap((t) =>
      t === undefined ? [] : [`    ${`${t.standard.toUpperCase()} token`.padEnd(15)} ${t.address}  (${t.symbol})`]
    ),
    `    proxy           ${chain.proxyContract.address}  (verified proxy; its implementation is ${contract})`,
    "  verification GUIDs (call contract checkverifystatus guid=…):",
    `    passed    ${chain.verifications.verified}`,
    `    pending   ${chain.verifications.pending}`,
    `    failed    ${chain.verifications.failed}`,
    "  try (the free demo key, given as keys are best given: in EXPLORER_API_KEY, never on the command line;",
    "  --simulator instead of --base-url runs its own simulator in-process):",
    `    export EXPLORER_API_KEY=${service.demoKeys.free}`,
    `    npx explorer-etl export txs --address ${wallet} --base-url ${service.baseUrl} --out txs.csv`
  ].join("\n")
}

/**
 * The simulator's modules, loaded when a command needs them: every other command (an export) runs
 * without them in memory.
 */
const loadSimulator: Effect.Effect<typeof Simulator> = Effect.promise(() => import("../simulator/index.js"))

/** Serves until interrupted: the banner (base URL, demo keys), then the sample data and a ready command. */
const serve = (simulator: typeof Simulator, options: Simulator.SimulatorOptions) =>
  Effect.scoped(
    Effect.gen(function*() {
      const service = yield* simulator.make(options)
      // One write: a reader waiting for the banner's last line gets the samples with it.
      yield* Console.log(`${simulator.banner(service)}\n${samples(service)}`)
      return yield* Effect.never
    })
  )

/** `explorer-etl simulator …` */
export const simulatorCommand = Command.make(
  "simulator",
  { port, host, seed, fault, noRateLimits, freeWindow, busyWallet, heavyLogs },
  (a) =>
    Effect.gen(function*() {
      const simulator = yield* loadSimulator
      const faults = a.fault === ""
        ? undefined
        : yield* Either.match(simulator.parseFaultSpec(a.fault), {
          onLeft: (e) => Effect.fail(badFlag("simulator", "--fault", e.message)),
          onRight: Effect.succeed
        })
      yield* servingUntilSignal
      return yield* serve(simulator, {
        port: a.port,
        host: a.host,
        seed: a.seed,
        enforceRateLimits: !a.noRateLimits,
        freeWindow: a.freeWindow === "10000" ? 10_000 : 1_000,
        ...(faults === undefined ? {} : { faults }),
        dataset: {
          ...(a.busyWallet._tag === "Some" ? { busyWalletTransactions: a.busyWallet.value } : {}),
          ...(a.heavyLogs._tag === "Some" ? { heavyContractLogs: a.heavyLogs.value } : {})
        }
      })
    })
).pipe(Command.withDescription(
  "serve the local explorer simulator; prints its base URL, demo keys, sample addresses with data and a ready export command"
))
