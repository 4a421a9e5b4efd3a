/**
 * `explorer-etl simulator [--port N] [--host H] [--seed S] [--fault spec]`: serve the local explorer,
 * print its base URL and demo keys, run until interrupted.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Simulator from "../simulator/index.js"
import { badFlag, servingUntilSignal } from "./Errors.js"

const port = Options.integer("port").pipe(Options.withDefault(9545), Options.withDescription("port (default 9545; 0 = any free port)"))
const host = Options.text("host").pipe(Options.withDefault("127.0.0.1"), Options.withDescription("interface (default 127.0.0.1)"))
const seed = Options.integer("seed").pipe(Options.withDefault(1), Options.withDescription("seed of the data set (default 1)"))
const fault = Options.text("fault").pipe(
  Options.withDefault(""),
  Options.withDescription("fault injection, e.g. http503=0.05,reset=0.02,truncated=0.02,latency=20+10,seed=7")
)
const noRateLimits = Options.boolean("no-rate-limits").pipe(
  Options.withDescription("do not enforce the per-second windows (benchmarks)")
)
const busyWallet = Options.integer("busy-wallet-txs").pipe(
  Options.optional,
  Options.withDescription("transactions of each chain's busy wallet (default 5,000)")
)
const heavyLogs = Options.integer("heavy-contract-logs").pipe(
  Options.optional,
  Options.withDescription("logs of each chain's heavy contract (default 20,000)")
)

/** `explorer-etl simulator …` */
export const simulatorCommand = Command.make(
  "simulator",
  { port, host, seed, fault, noRateLimits, busyWallet, heavyLogs },
  (a) =>
    Effect.gen(function*() {
      if (a.port < 0 || a.port > 65_535) return yield* badFlag("simulator", "--port", "must be 0..65535")
      const faults = a.fault === ""
        ? undefined
        : yield* Either.match(Simulator.parseFaultSpec(a.fault), {
          onLeft: (e) => Effect.fail(badFlag("simulator", "--fault", e.message)),
          onRight: Effect.succeed
        })
      yield* servingUntilSignal
      return yield* Simulator.serve({
        port: a.port,
        host: a.host,
        seed: a.seed,
        enforceRateLimits: !a.noRateLimits,
        ...(faults === undefined ? {} : { faults }),
        dataset: {
          ...(a.busyWallet._tag === "Some" ? { busyWalletTransactions: a.busyWallet.value } : {}),
          ...(a.heavyLogs._tag === "Some" ? { heavyContractLogs: a.heavyLogs.value } : {})
        }
      })
    })
).pipe(Command.withDescription("serve the local explorer simulator; prints its base URL and demo keys"))
