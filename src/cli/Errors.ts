/**
 * How the CLI reports a failure: one stderr line `error <ErrorTag>: <message>` and a non-zero exit.
 * The message of every explorer-etl error holds the server's words, never the key or the URL.
 */
import * as ValidationError from "@effect/cli/ValidationError"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Effect from "effect/Effect"
import {
  type ExplorerError,
  InvalidApiKeyError,
  InvalidInputError,
  isExplorerError,
  PlanTierError,
  UnsupportedChainError
} from "../ExplorerError.js"
import * as Plan from "../Plan.js"
import * as Report from "../runner/Report.js"
import type { SinkError } from "../sinks/SinkError.js"

/** A flag or argument the CLI refuses before any request is sent. */
export const badFlag = (command: string, parameter: string, detail: string, chainId = 0): InvalidInputError =>
  new InvalidInputError({ chainId, module: "cli", action: command, parameter, detail })

/**
 * Loads modules that need the optional peer @effect/sql-pg (`--cluster`): a user without it is told
 * what to install, as a bad `parameter` of `command`.
 */
export const loadWithPostgres = <A>(command: string, parameter: string, load: () => Promise<A>): Effect.Effect<A, InvalidInputError> =>
  loadWithPeer("@effect/sql-pg", "0.53", command, parameter, load)

/**
 * Loads modules that need the optional peer `peer` (installed as `npm install <peer>@<line>`): a user
 * without it is told, in one line, what to install, as a bad `parameter` of `command`.
 */
export const loadWithPeer = <A>(
  peer: string,
  line: string,
  command: string,
  parameter: string,
  load: () => Promise<A>
): Effect.Effect<A, InvalidInputError> =>
  Effect.tryPromise({
    try: load,
    catch: (cause) =>
      badFlag(
        command,
        parameter,
        `needs the optional package ${peer} (npm install ${peer}@${line}): ${
          cause instanceof Error ? cause.message.split("\n")[0] : String(cause)
        }`
      )
  })

/** The export options the CLI takes from flags, and how it words their refusal (as it always has). */
const optionFlags = {
  out: { flag: "--out", detail: (detail: string) => detail },
  confirmations: { flag: "--confirmations", detail: () => "expected a number of blocks ≥ 0" },
  concurrency: { flag: "--concurrency", detail: () => "expected a whole number ≥ 1" },
  workers: { flag: "--workers", detail: (detail: string) => detail }
} as const

/**
 * For `Effect.catchTag("SinkError", …)`: an export option refused by `Exports.toFile` (which checks
 * them all) is reported as the flag the user typed, among `flags`; any other sink failure as it is.
 */
export const refusedFlag = (command: string, chainId: number, flags: ReadonlyArray<keyof typeof optionFlags>) =>
(error: SinkError): Effect.Effect<never, SinkError | InvalidInputError> => {
  const option = flags.find((name) => name === error.option)
  return Effect.fail(
    error.reason === "InvalidInput" && option !== undefined
      ? badFlag(command, optionFlags[option].flag, optionFlags[option].detail(error.detail).replace(/\bpass format\b/, "pass --format"), chainId)
      : error
  )
}

/**
 * The same error (its class, tag and other fields) with other context: an explorer-etl error's message
 * is made from its fields, so it reads with the new ones.
 */
const relabelled = <E extends ExplorerError>(
  error: E,
  context: { readonly module: string; readonly action: string; readonly detail: string }
): E => Object.assign(Object.create(Object.getPrototypeOf(error) as object) as E, error, context)

/**
 * An error told in the terms of what the user asked for (`command`: `export txs`, `call account
 * balance`):
 * - a failure of an export while it resolved `--to-block latest` (block/getblocknobytime, a call the user
 *   never named) is told as the export's (`export/txs on chain 1: while resolving 'latest' …`), a
 *   rejected key there as `API key rejected by the server (checked while asking for the latest block)`;
 * - a PRO operation the server refused although `--plan` allows it says which plan the key seems to
 *   have, and one the client refused for `--plan` says how to set the plan (`--plan`, `EXPLORER_PLAN`).
 * Any other error is returned as it is.
 */
export const inUserTerms = (command: string) => (error: unknown): unknown => {
  if (isExplorerError(error) && error.action === "getblocknobytime" && command.startsWith("export ")) {
    const [module = "export", ...rest] = command.split(" ")
    return relabelled(error, {
      module,
      action: rest.join(" "),
      detail: error instanceof InvalidApiKeyError
        ? `API key rejected by the server (checked while asking for the latest block): ${error.detail}`
        : `while asking for the latest block (block/getblocknobytime): ${error.detail}`
    })
  }
  if (error instanceof PlanTierError && error.requiredPlan !== undefined && error.plan !== undefined) {
    const required = error.requiredPlan as Plan.Plan
    const configured = error.plan as Plan.Plan
    if (!Plan.plans.includes(required) || !Plan.plans.includes(configured)) return error
    const fields = { chainId: error.chainId, module: error.module, action: error.action }
    if (Plan.atLeast(configured, required)) {
      const below = Plan.plans.filter((p) => !Plan.atLeast(p, required))
      return new PlanTierError({
        ...fields,
        detail: `${error.detail.trim()} (the server refused a ${required} operation: the key seems to be on ` +
          `${below.join(" or ")}, not on ${configured} as --plan (or EXPLORER_PLAN) says; set it to the key's plan)`
      })
    }
    return new PlanTierError({
      ...fields,
      detail: `${error.detail.trim()}: it needs plan ${required} or above, and the plan is ${configured} ` +
        `(--plan, else EXPLORER_PLAN, else free); if your key is on ${required} or above, pass --plan ${required} ` +
        `or set EXPLORER_PLAN=${required}`
    })
  }
  return error
}

/**
 * Whether a failure is a flag or value the CLI refused (exit code 2): @effect/cli's parse errors, and
 * the CLI's own refusals (`badFlag`, an unknown `--chain`), all before any request.
 */
export const isRefusedFlag = (error: unknown): boolean =>
  ValidationError.isValidationError(error) ||
  ((error instanceof InvalidInputError || error instanceof UnsupportedChainError) && error.module === "cli")

/** The `<ErrorTag>: <message>` of any failure. */
export const describe = (error: unknown): string => {
  // The CLI's own refusals name the flag as typed, not a `cli/<command> on chain N:` context.
  if (isExplorerError(error) && error.module === "cli") {
    const flag = error instanceof InvalidInputError && error.parameter !== undefined ? error.parameter : error.action
    return `${error._tag}: ${flag}: ${error.detail}`
  }
  if (ValidationError.isValidationError(error)) {
    const text = HelpDoc.toAnsiText(error.error).replace(/\u001b\[[0-9;]*m/g, "").trim().replace(/\s*\n\s*/g, " ")
      // @effect/cli's words for a required flag left out, told as the other refusals are.
      .replace(/^Expected to find option: '(-[\w-]+)'$/, "$1: required, and not given")
    return `InvalidInputError: ${text.length > 0 ? text : error._tag}`
  }
  return Report.describe(error)
}

let servesUntilSignal = false

/** A command that serves until it is stopped (the simulator): a signal is its normal end, exit 0. */
export const servingUntilSignal: Effect.Effect<void> = Effect.sync(() => {
  servesUntilSignal = true
})

/**
 * The exit code of a run ended by `signal`: 130 for SIGINT, 143 for SIGTERM (128 + the signal's number,
 * as shells and schedulers read it), 0 for a command that serves until it is stopped.
 */
export const signalExitCode = (signal: "SIGINT" | "SIGTERM" | undefined): number =>
  servesUntilSignal ? 0 : signal === "SIGTERM" ? 143 : 130

/** Runs a CLI program: on failure prints one `error …` line on stderr and sets a non-zero exit code. */
export const report = <A, E, R>(program: Effect.Effect<A, E, R>): Effect.Effect<void, never, R> =>
  Report.report(program, { describe, exitCode: (error) => (isRefusedFlag(error) ? 2 : 1) })
