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
