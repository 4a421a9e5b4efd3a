/**
 * What a data set is, said once: its name, the operation it reads, how it pages, its record schema
 * (whose encoded fields are the file's columns) and the Parquet types the schema cannot tell, how
 * `--decimals` reads its amounts, its one-line description, the source it makes from a query, and the
 * command line's flags for that query. Each of the library's data sets is one file of
 * `streams/datasets/`, listed once in `streams/datasets/index.ts`; `Sources`, `Streams`, the CLI's
 * `export` commands, their help and the data-set table of docs/cli.md are derived from that list.
 *
 * A flag here is plain data (no @effect/cli): the command line turns it into an option, so the library
 * loads no command line.
 */
import type { FileSystem } from "@effect/platform/FileSystem"
import type { Path } from "@effect/platform/Path"
import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Schema from "effect/Schema"
import type { ExplorerClient } from "../ExplorerClient.js"
import { InvalidInputError, type StreamError } from "../ExplorerError.js"
import type * as Plan from "../Plan.js"
import { TopicOperators } from "../Params.js"
import type { ColumnType } from "../sinks/Parquet.js"

// ---------------------------------------------------------------------------------------------------------
// Flags

/** A flag that takes text (`--address <text>`); `optional`: may be left out (its value is then undefined). */
export interface TextFlag {
  readonly _tag: "Text"
  readonly name: string
  readonly description: string
  readonly optional?: boolean | undefined
}

/** A flag that takes a whole number in decimal digits from `min` (to `max`), refused as `expected`. */
export interface WholeNumberFlag {
  readonly _tag: "WholeNumber"
  readonly name: string
  readonly description: string
  readonly min: number
  readonly max?: number | undefined
  readonly expected: string
  readonly default?: number | undefined
}

/** A flag that takes one of `values` (`--sort asc|desc`). */
export interface ChoiceFlag<A extends string = string> {
  readonly _tag: "Choice"
  readonly name: string
  readonly description: string
  readonly values: ReadonlyArray<A>
  readonly pseudoName: string
  readonly default?: A | undefined
}

/** A flag that may be given several times (`--topic-op 0_1=or --topic-op 1_2=and`). */
export interface RepeatedFlag {
  readonly _tag: "Repeated"
  readonly name: string
  readonly description: string
}

/** Any flag of a data set's query. */
export type Flag = TextFlag | WholeNumberFlag | ChoiceFlag | RepeatedFlag

/** A data set's own flags, in the order the help lists them (key: the name its value is read by). */
export type Flags = Readonly<Record<string, Flag>>

/** The value a flag gives. */
export type ValueOf<F extends Flag> = F extends TextFlag ? (F extends { readonly optional: true } ? string | undefined : string)
  : F extends WholeNumberFlag ? number
  : F extends ChoiceFlag<infer A> ? A
  : F extends RepeatedFlag ? ReadonlyArray<string>
  : never

/** The values of a data set's flags, by key. */
export type Values<F extends Flags> = { readonly [K in keyof F]: ValueOf<F[K]> }

/** `--<name> <text>`. */
export const text = (name: string, description: string): TextFlag => ({ _tag: "Text", name, description })

/** `--<name> <text>` that may be left out. */
export const optionalText = (name: string, description: string): TextFlag & { readonly optional: true } => ({
  _tag: "Text",
  name,
  description,
  optional: true
})

/** `--sort`: the order of a daily statistic's days. */
const daySort = {
  _tag: "Choice",
  name: "sort",
  description: "order of the days: asc or desc (default asc)",
  values: ["asc", "desc"] as const,
  pseudoName: "asc|desc",
  default: "asc"
} satisfies ChoiceFlag<"asc" | "desc">

/** The flags several data sets take. */
export const flags = {
  address: text("address", "0x address"),
  optionalAddress: optionalText("address", "0x address"),
  contract: text("contract", "token contract address"),
  optionalContract: optionalText("contract", "token contract address"),
  topic: (n: number) => optionalText(`topic${n}`, `topic${n} filter (32-byte hex)`),
  topicOp: {
    _tag: "Repeated",
    name: "topic-op",
    description: "operator between two topics, e.g. 0_1=or (default and); repeatable"
  } satisfies RepeatedFlag,
  date: (name: string) => text(name, "yyyy-MM-dd"),
  sort: daySort,
  /** The days of a daily statistic: `--start-date`, `--end-date`, `--sort`. */
  daily: {
    startDate: text("start-date", "yyyy-MM-dd"),
    endDate: text("end-date", "yyyy-MM-dd"),
    sort: daySort
  }
}

/** A value the command line refuses before any request: `--<flag>: <detail>` (exit code 2). */
export const refused = (command: string, flag: string, detail: string, chainId = 0): InvalidInputError =>
  new InvalidInputError({ chainId, module: "cli", action: command, parameter: flag, detail })

const topicOperatorKeys: ReadonlyArray<string> = Object.keys(TopicOperators.fields)

/** `--topic-op 0_1=or` values as getLogs' topic operators; a malformed one refused. */
export const topicOperatorsOf = (
  chainId: number,
  specs: ReadonlyArray<string>
): Either.Either<Record<string, "and" | "or">, InvalidInputError> => {
  const ops: Record<string, "and" | "or"> = {}
  for (const spec of specs) {
    const match = /^([0-3]_[0-3])=(and|or)$/.exec(spec)
    const key = match?.[1]
    if (match === null || key === undefined || !topicOperatorKeys.includes(key)) {
      return Either.left(refused("logs", "--topic-op", `must look like 0_1=or (pairs ${topicOperatorKeys.join(" ")}), got "${spec}"`, chainId))
    }
    ops[key] = match[2] as "and" | "or"
  }
  return Either.right(ops)
}

// ---------------------------------------------------------------------------------------------------------
// Data sets

/** Where the decimals of a data set's amounts come from (`Readable.withDecimals`). */
export type DecimalsFrom =
  | { readonly _tag: "Field"; readonly field: string }
  | { readonly _tag: "TokenInfo"; readonly tokenField: string }
  | { readonly _tag: "Server" }

/** How `--decimals` (`Sources.withDecimals`) makes a data set's amounts readable. */
export interface Decimals {
  /** The amount's field. */
  readonly amount: string
  readonly decimals: DecimalsFrom
  /** A unix-seconds field given an ISO column too. */
  readonly time?: string | undefined
}

/** How a data set pages: the block cursor, page numbers, or one request. */
export type Paging = "blocks" | "pages" | "one request"

/** What the command line hands a data set's `query`: the chain, the command and the block range. */
export interface QueryContext {
  readonly chainId: number
  readonly command: string
  /** The block range the flags give (`--from-block`, `--to-block`), for a block-ordered data set. */
  readonly range: { readonly fromBlock: number; readonly toBlock: number | "latest" }
}

/** The requirements of a data set's `query`: the client (an ABI fetched) and files (an ABI read). */
export type QueryContextR = ExplorerClient | FileSystem | Path

/** What a data set says of itself, whatever its query and source. */
export interface Info {
  /** The name in the library (`Sources.<name>`, `Streams.<name>`) and in the manifest. */
  readonly name: string
  /** The command line's name: `explorer-etl export <command>`. */
  readonly command: string
  /** The operation it reads (several for a family read by one command). */
  readonly operation: Plan.OperationName | ReadonlyArray<Plan.OperationName>
  readonly paging: Paging
  /**
   * The record schema: its encoded fields are the file's columns, in order (and their Parquet types are
   * derived from it). A family read by one command has one per operation; undefined when the source
   * makes it from the query (`events`: from the ABI).
   */
  readonly schema: Schema.Schema.AnyNoContext | Readonly<Record<string, Schema.Schema.AnyNoContext>> | undefined
  /** Parquet types the schema cannot tell (text fields that hold decimals or flags). */
  readonly parquet?: Readonly<Record<string, ColumnType>> | undefined
  /** How `--decimals` makes its amounts readable; absent: no `--decimals`. */
  readonly decimals?: Decimals | undefined
  /** One line: the command's help and the docs table. */
  readonly description: string
  /** The data set's own flags (the block range, file and API options are the command line's). */
  readonly flags: Flags
}

/**
 * One data set. `source` makes its source from a query (what `Sources.<name>` is); `query` makes that
 * query from the command line's flag values; `report` is a line the command prints after an export.
 */
export interface Dataset<Name extends string, Q, S, F extends Flags, E extends StreamError = StreamError> extends Info {
  readonly name: Name
  readonly flags: F
  /** Its errors are the source's own (a library source fails only with what its checks refuse). */
  readonly source: (query: Q) => Effect.Effect<S, E, ExplorerClient>
  readonly query: (values: Values<F>, context: QueryContext) => Effect.Effect<NoInfer<Q>, StreamError, QueryContextR>
  readonly report?: ((source: S) => Effect.Effect<string>) | undefined
}

/**
 * Any data set, its query and source unknown: what the registry lists and what the command line and
 * the docs read (a query of `never`: every data set is one, whatever its query).
 */
export interface Any extends Info {
  readonly source: (query: never) => Effect.Effect<unknown, StreamError, ExplorerClient>
  readonly query: (values: never, context: QueryContext) => Effect.Effect<unknown, StreamError, QueryContextR>
  readonly report?: ((source: never) => Effect.Effect<string>) | undefined
}

/** Defines a data set (its types inferred from what is given). */
export const make = <const Name extends string, Q, S, const F extends Flags, E extends StreamError>(
  dataset: Dataset<Name, Q, S, F, E>
): Dataset<Name, Q, S, F, E> => dataset

/** The operations a data set reads, as a list. */
export const operationsOf = (dataset: Info): ReadonlyArray<Plan.OperationName> =>
  typeof dataset.operation === "string" ? [dataset.operation] : dataset.operation
