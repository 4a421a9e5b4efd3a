/**
 * How the CLI reaches an explorer: the options every API command takes (`--chain`, `--api-key`,
 * `--base-url`, `--plan`, `--simulator`, `--quiet`) and the one client layer built from them.
 * With `--simulator` the embedded simulator starts in-process and the client uses its demo key for
 * the chosen plan; otherwise the key comes from `--api-key`, then EXPLORER_API_KEY, then ETHERSCAN_API_KEY.
 */
import * as Options from "@effect/cli/Options"
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Chain from "../Chain.js"
import * as ExplorerConfig from "../Config.js"
import type { DemoData } from "../runner/DemoData.js"
import type * as Client from "../ExplorerClient.js"
import { InvalidApiKeyError, type InvalidInputError, UnsupportedChainError } from "../ExplorerError.js"
import * as Pipeline from "../Pipeline.js"
import * as Plan from "../Plan.js"
import * as Reporter from "../sinks/Reporter.js"
import type * as Simulator from "../simulator/index.js"
import * as Chains from "./Chains.js"
import { badFlag } from "./Errors.js"
import * as Flags from "./Flags.js"

/** `--chain <id|name>` (default 1): a chain id or its name (`polygon`), see `explorer-etl chains`. */
export const chain = Options.text("chain").pipe(
  Options.withDefault("1"),
  Options.mapEffect(Chains.parse),
  Options.withDescription("chain id or name, e.g. 137 or polygon (default 1, Ethereum); `explorer-etl chains` lists them")
)

/** `--api-key <key>`, else EXPLORER_API_KEY, else ETHERSCAN_API_KEY. Never printed. */
export const apiKey = Options.redacted("api-key").pipe(
  Options.withDescription("API key (default: env EXPLORER_API_KEY, then ETHERSCAN_API_KEY); never printed"),
  Options.withFallbackConfig(ExplorerConfig.apiKey),
  Options.optional
)

/** `--base-url <url>` (default https://api.etherscan.io; `/v2/api` is appended). */
export const baseUrl = Options.text("base-url").pipe(
  Options.withDefault(ExplorerConfig.DEFAULT_BASE_URL),
  Options.withDescription("API base URL; /v2/api is appended")
)

/** `--plan <plan>`, else EXPLORER_PLAN, else free (proplus with `--simulator`: every data set runs). */
export const plan = Flags.choice("plan", Plan.plans, { pseudoName: "plan", env: ["EXPLORER_PLAN", Config.string("EXPLORER_PLAN")] }).pipe(
  Options.withDescription(
    `your API plan (${Plan.plans.join(", ")}): sets the rate, the PRO operations and the result window ` +
      "(default: env EXPLORER_PLAN, else free; proplus with --simulator)"
  ),
  Options.optional
)

/** `--simulator`: start the embedded simulator and use its demo key for the plan. */
export const simulator = Options.boolean("simulator").pipe(
  Options.withDescription("run against the embedded local explorer (no key, no network)")
)

/** `--quiet`: no progress on stderr. */
export const quiet = Options.boolean("quiet").pipe(Options.withAlias("q"), Options.withDescription("no progress output"))

/** `--retries <n>` (default 6): retries of a call that failed transiently; 0 = fail on the first error. */
export const retries = Flags.wholeNumber("retries", { min: 0, expected: "a whole number ≥ 0" }).pipe(
  Options.withDefault(ExplorerConfig.DEFAULT_RETRY.times),
  Options.withDescription(`retries of a call after a transient failure (default ${ExplorerConfig.DEFAULT_RETRY.times}; 0 = none)`)
)

/** `--timeout <seconds>` (default 30): how long one attempt may wait for its answer. */
export const timeout = Flags.seconds("timeout").pipe(
  Options.withDefault(Duration.toSeconds(ExplorerConfig.DEFAULT_REQUEST_TIMEOUT)),
  Options.withDescription(
    `seconds one attempt may wait for the whole answer before it is retried (default ${Duration.toSeconds(ExplorerConfig.DEFAULT_REQUEST_TIMEOUT)})`
  )
)

/**
 * `--calls-per-day <n>`, else EXPLORER_CALLS_PER_DAY, else the plan's daily cap: the key's calls per UTC
 * day, counted where the key's budget is kept in storage (the machine's ledger, the runners of a cluster).
 */
export const callsPerDay = Flags.wholeNumberOrEnv(
  "calls-per-day",
  "EXPLORER_CALLS_PER_DAY",
  Config.string("EXPLORER_CALLS_PER_DAY"),
  { min: 1, expected: "a whole number ≥ 1" }
).pipe(
  Options.withDescription(
    "the key's calls per UTC day (default: env EXPLORER_CALLS_PER_DAY, else the plan's cap), counted by every " +
      "process of this machine on the key and by a cluster's runners (which wait for 00:00 UTC once they are spent)"
  ),
  Options.optional
)

/** The API options, as one record (spread into every command that talks to an API). */
export const apiOptions = { chain, apiKey, baseUrl, plan, simulator, quiet, retries, timeout, callsPerDay }

/** Parsed API options. */
export interface ApiOptions {
  readonly chain: number
  readonly apiKey: Option.Option<Redacted.Redacted<string>>
  readonly baseUrl: string
  /** `--plan` or EXPLORER_PLAN; none given: see {@link planOf}. */
  readonly plan: Option.Option<Plan.Plan>
  readonly simulator: boolean
  readonly quiet: boolean
  readonly retries: number
  readonly timeout: number
  /** `--calls-per-day` or EXPLORER_CALLS_PER_DAY; none: the plan's daily cap. */
  readonly callsPerDay: Option.Option<number>
}

/**
 * The plan the command runs with: the one given, else free against a real API, and Pro Plus on the
 * simulator (its demo key of that plan runs every data set, PRO and Pro Plus ones included).
 */
export const planOf = (options: Pick<ApiOptions, "plan" | "simulator">): Plan.Plan =>
  Option.getOrElse(options.plan, () => (options.simulator ? "proplus" : "free"))

/**
 * The client for these options (built once for the whole command: one limiter per key). With
 * `--simulator`, the layer also starts the simulator and stops it at the end.
 */
export const clientLayer = (
  options: ApiOptions,
  simulatorOptions: Simulator.SimulatorOptions = {}
): Layer.Layer<Client.ExplorerClient | DemoData, unknown> =>
  Layer.unwrapEffect(Effect.as(
    check(options),
    Pipeline.explorerLayer(
      {
        apiKey: Option.getOrUndefined(options.apiKey),
        baseUrl: options.baseUrl,
        plan: planOf(options),
        defaultChainId: options.chain,
        requestTimeout: Duration.seconds(options.timeout),
        rate: { callsPerDay: Option.getOrUndefined(options.callsPerDay) },
        // Every process of this machine on the key shares its rate and daily cap (the embedded
        // simulator is this process's alone: nothing to share).
        machineBudget: !options.simulator,
        // Each retry is a line of its own on stderr (erasing the progress line on a terminal), unless --quiet.
        retry: {
          times: options.retries,
          onRetry: options.quiet ? undefined : (notice) => Reporter.notice(Reporter.stderr, Reporter.retryLine(notice))
        }
      },
      options.simulator ? simulatorOptions : undefined
    )
  ))

/**
 * The flags are checked before anything starts: a key to send (unless `--simulator`), a chain the API
 * serves, a base URL that parses.
 */
export const check = (
  options: ApiOptions
): Effect.Effect<void, UnsupportedChainError | InvalidInputError | InvalidApiKeyError> => {
  if (options.retries < 0) return Effect.fail(badFlag("cli", "--retries", "must be ≥ 0", options.chain))
  if (!(options.timeout > 0 && Number.isFinite(options.timeout))) {
    return Effect.fail(badFlag("cli", "--timeout", "must be a positive number of seconds", options.chain))
  }
  if (Option.exists(options.callsPerDay, (n) => n <= 0)) {
    return Effect.fail(badFlag("cli", "--calls-per-day", "must be > 0", options.chain))
  }
  if (!options.simulator && !Option.exists(options.apiKey, (key) => Redacted.value(key).trim() !== "")) {
    return Effect.fail(
      new InvalidApiKeyError({
        chainId: options.chain,
        module: "cli",
        action: "--api-key",
        detail: "no API key: set EXPLORER_API_KEY (or ETHERSCAN_API_KEY), or pass --api-key <key> (visible to " +
          "other users in ps); --simulator runs without one"
      })
    )
  }
  if (!Chain.isSupported(options.chain)) {
    return Effect.fail(
      new UnsupportedChainError({
        chainId: options.chain,
        module: "cli",
        action: "--chain",
        detail: `chain ${options.chain} is not served by the explorer API (\`explorer-etl chains\` lists the chains it serves)`
      })
    )
  }
  return Either.match(ExplorerConfig.normalizeBaseUrl(options.baseUrl), {
    onLeft: (detail) =>
      Effect.fail(badFlag(
        "cli",
        "--base-url",
        `expected a URL such as https://api.etherscan.io, got "${options.baseUrl}" (${detail.replace(/^baseUrl: /, "")})`,
        options.chain
      )),
    onRight: () => Effect.void
  })
}

