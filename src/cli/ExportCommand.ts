/**
 * `explorer-etl export <dataset> --out <file> [--format csv|jsonl|parquet] [--resume] [--confirmations N]
 * [--allow-partial] [--dry-run]` with one subcommand per data set, each taking only its own filters (any
 * other flag is refused before a request is sent) plus the API options. `--dry-run` prints what the
 * export would cost (`Exports.estimate`) instead of running it.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CallCount from "../CallCount.js"
import { InvalidInputError, type StreamError } from "../ExplorerError.js"
import * as Exports from "../Exports.js"
import type { ExplorerClient } from "../ExplorerClient.js"
import * as Checkpoint from "../sinks/Checkpoint.js"
import * as Format from "../sinks/Format.js"
import * as Reporter from "../sinks/Reporter.js"
import * as Resume from "../sinks/Resume.js"
import * as Dataset from "../streams/Dataset.js"
import * as Registry from "../streams/datasets/index.js"
import * as Sources from "../streams/Sources.js"
import * as DryRun from "./DryRun.js"
import * as Environment from "./Environment.js"
import * as Flags from "./Flags.js"
import { badFlag, refusedFlag } from "./Errors.js"

const out = Options.text("out").pipe(Options.withAlias("o"), Options.withDescription("output file (.csv, .jsonl, .ndjson or .parquet)"))
const format = Flags.choice("format", ["csv", "jsonl", "parquet"], { pseudoName: "csv|jsonl|parquet" }).pipe(
  Options.optional,
  Options.withDescription("file format: csv, jsonl or parquet (default: from the extension of --out)")
)
const resume = Options.boolean("resume").pipe(
  Options.withDescription("continue an interrupted export, or append the new blocks to a finished one")
)
const restart = Options.boolean("restart").pipe(
  Options.withDescription("start over: an interrupted export of the same query at --out is otherwise continued")
)
const confirmations = Flags.wholeNumber("confirmations", { min: 0, expected: "a number of blocks ≥ 0" }).pipe(
  Options.withDefault(0),
  Options.withDescription("keep the newest N blocks out until they are final")
)
const allowPartial = Options.boolean("allow-partial").pipe(
  Options.withDescription("accept a holder/balance list cut by the result window (the manifest says truncated)")
)
const noFormulaGuard = Options.boolean("no-formula-guard").pipe(
  Options.withDescription("CSV: do not prefix ' to cells starting with = + - @ tab or CR")
)

const force = Options.boolean("force").pipe(
  Options.withDescription("replace a file at --out that explorer-etl did not write (no manifest beside it)")
)

const floatColumns = Options.boolean("float-columns").pipe(
  Options.withDescription("Parquet: a float64 <name>_float column after each exact decimal amount (approximate, for charts)")
)

const fileOptions = { out, format, resume, restart, confirmations, allowPartial, noFormulaGuard, floatColumns, force, dryRun: DryRun.flag }

const fromBlock = Flags.wholeNumber("from-block", { min: 0, expected: "a block number ≥ 0" }).pipe(Options.withDefault(0), Options.withDescription("first block (default 0)"))
const toBlock = Options.text("to-block").pipe(
  Options.withDefault("latest"),
  Options.withDescription("last block: a number or latest (default latest)")
)
const concurrency = Flags.wholeNumber("concurrency", { min: 1, expected: "a whole number ≥ 1" }).pipe(
  Options.optional,
  Options.withDescription("at most N block ranges read at once (default: as many as the latency calls for; 1 = one cursor)")
)
const checkpointEvery = Flags.wholeNumber("checkpoint-every", { min: 0, expected: "a whole number of seconds ≥ 0" }).pipe(
  Options.optional,
  Options.withDescription("at most one checkpoint every N seconds (default: 0, as soon as the previous one ends; Parquet 10)")
)
const workers = Flags.wholeNumber("workers", { min: 0, expected: "a whole number ≥ 0" }).pipe(
  Options.optional,
  Options.withDescription(
    "CSV and JSONL: N threads parse, check and write the pages (default: EXPLORER_ETL_WORKERS, else 0 = the main thread only; at most the cores minus one help)"
  )
)
const range = { fromBlock, toBlock, concurrency, checkpointEvery, workers }
const decimals = Options.boolean("decimals").pipe(
  Options.withDescription("add the amount scaled by the token's decimals (exact decimal text) and, for transfers, the time as ISO-8601 UTC")
)

/** The source, with readable amounts when `--decimals` asks for them (Sources.withDecimals). */
const readable = <A, I>(
  on: boolean,
  make: Effect.Effect<Sources.Source<A, I>, StreamError, ExplorerClient>
): Effect.Effect<Sources.Source<A, I>, StreamError, ExplorerClient> =>
  // The rows gain columns; the runner writes what the source's schema says, so the row type can stay.
  on ? Effect.flatMap(make, (source) => Sources.withDecimals(source) as unknown as Effect.Effect<Sources.Source<A, I>, StreamError, ExplorerClient>) : make

type FileFlags = {
  readonly out: string
  readonly format: Option.Option<"csv" | "jsonl" | "parquet">
  readonly resume: boolean
  readonly restart: boolean
  readonly confirmations: number
  readonly allowPartial: boolean
  readonly noFormulaGuard: boolean
  readonly floatColumns: boolean
  readonly force: boolean
  readonly dryRun: boolean
  readonly concurrency?: Option.Option<number>
  readonly checkpointEvery?: Option.Option<number>
  readonly workers?: Option.Option<number>
}

const some = <A>(o: Option.Option<A>): A | undefined => Option.getOrUndefined(o)

const parseToBlock = (
  command: string,
  chainId: number,
  fromBlock: number,
  text: string
): Effect.Effect<number | "latest", InvalidInputError> => {
  if (text === "latest") return Effect.succeed("latest")
  const n = Flags.wholeNumberOf(text, fromBlock)
  return n !== undefined
    ? Effect.succeed(n)
    : Effect.fail(badFlag(
      command,
      "--to-block",
      `expected latest or a block number ≥ ${fromBlock === 0 ? "0" : `--from-block (${fromBlock})`}, got "${text}"`,
      chainId
    ))
}

/** The query fields the library checks (`Sources.*`) and the flags, and parsed options, they come from. */
const queryFlags: Readonly<Record<string, readonly [flag: string, option: string]>> = {
  fromBlock: ["--from-block", "fromBlock"],
  toBlock: ["--to-block", "toBlock"],
  address: ["--address", "address"],
  contractAddress: ["--contract", "contract"],
  contractaddress: ["--contract", "contract"],
  topic0: ["--topic0", "topic0"],
  topic1: ["--topic1", "topic1"],
  topic2: ["--topic2", "topic2"],
  topic3: ["--topic3", "topic3"],
  startDate: ["--start-date", "startDate"],
  endDate: ["--end-date", "endDate"],
  limit: ["--limit", "limit"],
  label: ["--label", "label"],
  event: ["--event", "event"],
  abi: ["--abi", "abi"]
}

/**
 * A value the library refused while the source was made (its query is checked before any request) told
 * as the flag the user typed, with the value they gave: `--address: expected an address: 0x followed by
 * 40 hex digits, got "0x123"` (exit code 2). Errors of other parameters stay as they are.
 */
const inFlagTerms = (options: Readonly<Record<string, unknown>>) => (error: InvalidInputError): Effect.Effect<never, InvalidInputError> => {
  const known = error.module === "cli" || error.parameter === undefined ? undefined : queryFlags[error.parameter]
  if (known === undefined) return Effect.fail(error)
  const [flag, option] = known
  const raw = options[option]
  const value = Option.isOption(raw) ? Option.getOrUndefined(raw) : raw
  const detail = error.detail.replace(/^must be /, "expected ")
    .replace("give address, at least one topic, or both", "give --address, at least one of --topic0..--topic3, or both")
  return Effect.fail(badFlag(
    "export",
    flag,
    value === undefined || detail.includes(`"${String(value)}"`) ? detail : `${detail}, got "${String(value)}"`,
    error.chainId
  ))
}

/** Runs one export with the API options' client: the layer is built once for it. */
const runExport = <A, I>(
  api: Environment.ApiOptions,
  flags: FileFlags,
  makeSource: Effect.Effect<Sources.Source<A, I>, StreamError, ExplorerClient>
) =>
  Effect.gen(function*() {
    if (flags.resume && flags.restart) {
      return yield* badFlag("export", "--restart", "starts over, --resume continues: give one of them", api.chain)
    }
    const seconds = flags.checkpointEvery === undefined ? undefined : some(flags.checkpointEvery)
    if (flags.floatColumns) {
      // Refused before the source is made: making it may already ask the server (an ABI, decimals).
      const written = yield* Effect.option(Format.formatOf(flags.out, some(flags.format)))
      if (Option.isSome(written) && written.value !== "parquet") {
        return yield* badFlag("export", "--float-columns", `needs a Parquet output (--format parquet or an .parquet --out); this one is ${written.value}`, api.chain)
      }
    }
    // The requests made to prepare the export (an ABI fetched) count with its own.
    const counter = CallCount.make()
    const source = yield* CallCount.tracking(makeSource, counter).pipe(
      Effect.catchTag("InvalidInputError", inFlagTerms(flags as unknown as Readonly<Record<string, unknown>>))
    )
    const options: Exports.ToFileOptions = {
      counter,
      checkpointEvery: seconds === undefined ? undefined : `${seconds} seconds`,
      out: flags.out,
      format: some(flags.format),
      // Without either flag an interrupted export of the same query is continued, never thrown away.
      resume: flags.resume ? true : flags.restart ? false : "unfinished",
      confirmations: flags.confirmations,
      allowPartial: flags.allowPartial,
      formulaGuard: !flags.noFormulaGuard,
      floatColumns: flags.floatColumns,
      force: flags.force,
      concurrency: flags.concurrency === undefined ? undefined : some(flags.concurrency),
      workers: flags.workers === undefined ? undefined : some(flags.workers),
      quiet: api.quiet
    }
    if (flags.dryRun) {
      return yield* Exports.estimate(source, options).pipe(
        Effect.flatMap((estimate) => DryRun.print([estimate], api)),
        Effect.catchTag("SinkError", refusedFlag("export", api.chain, ["out", "confirmations", "concurrency", "workers"]))
      )
    }
    return yield* Exports.toFile(source, options).pipe(
      Effect.catchTag("SinkError", refusedFlag("export", api.chain, ["out", "confirmations", "concurrency", "workers"])),
      Effect.onInterrupt(() => interrupted(flags.out))
    )
  }).pipe(Effect.provide(Environment.clientLayer(api)), Effect.provide(NodeContext.layer))

/**
 * The line of an interrupted export (its last checkpoint is committed by then): how many rows the
 * partial file keeps and how to continue it, or that nothing was kept (a list written whole).
 */
const interrupted = (out: string) =>
  Checkpoint.read(out).pipe(
    Effect.map((state) =>
      Option.isSome(state) && !("unreadable" in state.value) && state.value.phase !== "published"
        ? `interrupted: ${Reporter.count(Resume.keptRows(state.value))} rows kept; run the same command to continue`
        : `interrupted: nothing kept; run the same command to start again`
    ),
    Effect.orElseSucceed(() => `interrupted: run the same command to continue`),
    Effect.flatMap((line) => Effect.sync(() => void process.stderr.write(`${line}\n`))),
    Effect.provide(NodeContext.layer)
  )

const parseRange = (command: string, a: { readonly chain: number; readonly fromBlock: number; readonly toBlock: string }) =>
  Effect.map(parseToBlock(command, a.chain, a.fromBlock, a.toBlock), (to) => ({ fromBlock: a.fromBlock, toBlock: to }))

/** A data set's flag as an option (see `Dataset.Flag`). */
const optionOf = (flag: Dataset.Flag): Options.Options<unknown> => {
  switch (flag._tag) {
    case "Text": {
      const option = Options.text(flag.name).pipe(Options.withDescription(flag.description))
      return flag.optional === true ? Options.optional(option) : option
    }
    case "WholeNumber": {
      const option = Flags.wholeNumber(flag.name, flag).pipe(Options.withDescription(flag.description))
      return flag.default === undefined ? option : Options.withDefault(option, flag.default)
    }
    case "Choice": {
      const option = Flags.choice(flag.name, flag.values, { pseudoName: flag.pseudoName })
      return flag.default === undefined
        ? option.pipe(Options.withDescription(flag.description))
        : option.pipe(Options.withDefault(flag.default), Options.withDescription(flag.description))
    }
    case "Repeated":
      return Options.text(flag.name).pipe(Options.repeated, Options.withDescription(flag.description))
  }
}

/** The parsed options of a data set's own flags as its `query` reads them (a left-out flag: undefined). */
const valuesOf = (flags: Dataset.Flags, parsed: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> =>
  Object.fromEntries(Object.keys(flags).map((key) => {
    const value = parsed[key]
    return [key, Option.isOption(value) ? Option.getOrUndefined(value) : value]
  }))

/**
 * `explorer-etl export <command>` of one data set: its own flags, the block range of a block-ordered
 * one, `--decimals` when its amounts can be made readable, then the file and API options; its
 * description is the data set's one line.
 */
export const commandOf = (dataset: Dataset.Any) => {
  const options = {
    ...Object.fromEntries(Object.entries(dataset.flags).map(([key, flag]) => [key, optionOf(flag)])),
    ...(dataset.paging === "blocks" ? range : {}),
    ...(dataset.decimals === undefined ? {} : { decimals }),
    ...fileOptions,
    ...Environment.apiOptions
  } as typeof fileOptions & typeof Environment.apiOptions & Partial<typeof range> & { readonly decimals?: typeof decimals }
  return Command.make(dataset.command, options, (a) => {
    const parsed = a as unknown as Readonly<Record<string, unknown>>
    let made: unknown
    const source = Effect.gen(function*() {
      const blocks = a.fromBlock === undefined || a.toBlock === undefined
        ? { fromBlock: 0, toBlock: "latest" as const }
        : yield* parseRange(dataset.command, { chain: a.chain, fromBlock: a.fromBlock, toBlock: a.toBlock })
      const query = yield* dataset.query(valuesOf(dataset.flags, parsed) as never, { chainId: a.chain, command: dataset.command, range: blocks }).pipe(
        Effect.provide(NodeContext.layer)
      )
      made = yield* dataset.source(query as never)
      return made as Sources.Source<unknown, unknown>
    })
    const report = dataset.report
    const after = Effect.suspend(() =>
      made === undefined || a.quiet || report === undefined
        ? Effect.void
        : Effect.flatMap(report(made as never), (line) => Effect.sync(() => void process.stderr.write(`${line}\n`)))
    )
    return runExport(a, a as FileFlags, readable(a.decimals === true, source)).pipe(
      Effect.tap(() => after)
    )
  }).pipe(Command.withDescription(dataset.description))
}

/**
 * `explorer-etl export …` over the data sets of a registry (the library's: {@link exportCommand}), one
 * subcommand each, in the registry's order.
 */
export const exportCommandOf = (registry: Registry.Registry) => {
  const [first, ...rest] = Registry.list(registry).map(commandOf)
  if (first === undefined) throw new Error("a registry of no data set has no export command")
  return Command.make("export").pipe(
    Command.withDescription("export a data set to a CSV, JSONL or Parquet file, with a manifest beside it"),
    Command.withSubcommands([first, ...rest])
  )
}

/** `explorer-etl export …` */
export const exportCommand = exportCommandOf(Registry.library)
