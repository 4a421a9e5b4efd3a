/**
 * Number flags read strictly: the word the user typed must be written in decimal digits (`1e9`, `0x10`,
 * `1.5` and `-1` are refused, as a block number or a count is never written so), and a refusal names
 * the flag as typed and the value expected: `--from-block: expected a block number ≥ 0, got "-1"`.
 * A refused value is a `ValidationError`: one `error` line, exit code 2, before any request.
 */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import type * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import { suggest } from "../Suggest.js"
import * as Pipeline from "../Pipeline.js"
import { badFlag } from "./Errors.js"

/** The refusal of `flag`'s value `text`: `<flag>: expected <expected>, got "<text>"`. */
export const refused = (flag: string, expected: string, text: string): ValidationError.ValidationError =>
  ValidationError.invalidValue(HelpDoc.p(`${flag}: expected ${expected}, got "${text}"`))

/** A whole number in decimal digits between `min` and `max`, else undefined. */
export const wholeNumberOf = (text: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined => {
  const trimmed = text.trim()
  if (!/^\d+$/.test(trimmed)) return undefined
  const n = Number(trimmed)
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined
}

/** What a whole-number flag takes. */
export interface WholeNumber {
  readonly min: number
  readonly max?: number | undefined
  /** How the refusal names the value expected: `a block number ≥ 0`. */
  readonly expected: string
}

/** Parses `text` as `flag`'s whole number (see {@link WholeNumber}). */
export const parseWholeNumber = (flag: string, spec: WholeNumber) => (text: string): Effect.Effect<number, ValidationError.ValidationError> => {
  const n = wholeNumberOf(text, spec.min, spec.max)
  return n === undefined ? Effect.fail(refused(flag, spec.expected, text)) : Effect.succeed(n)
}

/** `--<name> <integer>`: a whole number in decimal digits, refused with the value expected. */
export const wholeNumber = (name: string, spec: WholeNumber): Options.Options<number> =>
  Options.text(name).pipe(Options.withPseudoName("integer"), Options.mapEffect(parseWholeNumber(`--${name}`, spec)))

/**
 * `--<name> <integer>`, else the environment variable `config` reads: refused with both names, as
 * either may have given the value.
 */
export const wholeNumberOrEnv = (name: string, env: string, config: Config.Config<string>, spec: WholeNumber): Options.Options<number> =>
  Options.text(name).pipe(
    Options.withPseudoName("integer"),
    Options.withFallbackConfig(config),
    Options.mapEffect(parseWholeNumber(`--${name} (or ${env})`, spec))
  )

/** `--<name> <number>`: seconds > 0 in decimal digits, a fraction allowed (`0.5`), nothing else. */
export const seconds = (name: string): Options.Options<number> =>
  Options.text(name).pipe(
    Options.withPseudoName("seconds"),
    Options.mapEffect((text) => {
      const trimmed = text.trim()
      const n = Number(trimmed)
      return /^\d+(\.\d+)?$/.test(trimmed) && n > 0 && Number.isFinite(n)
        ? Effect.succeed(n)
        : Effect.fail(refused(`--${name}`, "a number of seconds > 0 (e.g. 30 or 2.5)", text))
    })
  )

/**
 * `--<name> <pseudo>`: one of `values` (its description should list them); a refusal names the flag,
 * the values and the closest one: `--format: expected one of csv, jsonl, parquet, got "xml"`.
 * `env`: the environment variable that may give it instead (named in the refusal too).
 */
export const choice = <const A extends string>(
  name: string,
  values: ReadonlyArray<A>,
  options: { readonly pseudoName: string; readonly env?: readonly [name: string, config: Config.Config<string>] }
): Options.Options<A> => {
  const flag = options.env === undefined ? `--${name}` : `--${name} (or ${options.env[0]})`
  const text = Options.text(name).pipe(Options.withPseudoName(options.pseudoName))
  return (options.env === undefined ? text : text.pipe(Options.withFallbackConfig(options.env[1]))).pipe(
    Options.mapEffect((given) => {
      const found = values.find((v) => v === given.trim())
      if (found !== undefined) return Effect.succeed(found)
      const close = suggest(given.trim(), values)
      return Effect.fail(refused(flag, `one of ${values.join(", ")}${close === undefined ? "" : ` (did you mean ${close}?)`}`, given))
    })
  )
}

/** `--every`'s cron expression, checked before anything starts: a refusal names the flag and the form expected. */
export const cron = (command: string, expression: string) =>
  Pipeline.parseCron(expression).pipe(
    Effect.mapError((e) =>
      badFlag(
        command,
        "--every",
        `expected a cron expression (UTC) such as "0 * * * *", got "${expression}" (${e.detail.replace(/^not a cron expression "[^"]*": /, "")})`
      )
    )
  )
