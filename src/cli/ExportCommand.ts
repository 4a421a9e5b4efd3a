/**
 * `explorer-etl export <dataset> --out <file> [--format csv|jsonl|parquet] [--resume] [--confirmations N]
 * [--allow-partial] [--dry-run]` with one subcommand per data set, each taking only its own filters (any
 * other flag is refused before a request is sent) plus the API options. `--dry-run` prints what the
 * export would cost (`Exports.estimate`) instead of running it.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CallCount from "../CallCount.js"
import { InvalidInputError, type StreamError } from "../ExplorerError.js"
import * as Params from "../Params.js"
import * as Exports from "../Exports.js"
import type { ExplorerClient } from "../ExplorerClient.js"
import * as Checkpoint from "../sinks/Checkpoint.js"
import * as Format from "../sinks/Format.js"
import * as Reporter from "../sinks/Reporter.js"
import * as Resume from "../sinks/Resume.js"
import * as Events from "../streams/Events.js"
import * as Sources from "../streams/Sources.js"
import * as DryRun from "./DryRun.js"
import * as Environment from "./Environment.js"
import * as Flags from "./Flags.js"
import { badFlag, refusedFlag } from "./Errors.js"
import { homedir } from "node:os"
import { join } from "node:path"

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

const address = Options.text("address").pipe(Options.withDescription("0x address"))
const optionalAddress = address.pipe(Options.optional)
const contract = Options.text("contract").pipe(Options.withDescription("token contract address"))
const optionalContract = contract.pipe(Options.optional)
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
const range = { fromBlock, toBlock, concurrency, checkpointEvery }
const topic = (n: number) => Options.text(`topic${n}`).pipe(Options.optional, Options.withDescription(`topic${n} filter (32-byte hex)`))
const topicOp = Options.text("topic-op").pipe(
  Options.repeated,
  Options.withDescription("operator between two topics, e.g. 0_1=or (default and); repeatable")
)
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

const limit = Flags.wholeNumber("limit", { min: 1, max: 1000, expected: "a whole number from 1 to 1000" }).pipe(Options.withDefault(1000), Options.withDescription("number of holders, ≤ 1000"))
const date = (name: string) => Options.text(name).pipe(Options.withDescription("yyyy-MM-dd"))
const sort = Flags.choice("sort", ["asc", "desc"], { pseudoName: "asc|desc" }).pipe(
  Options.withDefault("asc" as const),
  Options.withDescription("order of the days: asc or desc (default asc)")
)
const label = Options.text("label").pipe(Options.withDescription("label slug from the label master list, or all"))

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

const topicOperatorKeys: ReadonlyArray<string> = Object.keys(Params.TopicOperators.fields)

const parseTopicOps = (chainId: number, specs: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const ops: Record<string, "and" | "or"> = {}
    for (const spec of specs) {
      const match = /^([0-3]_[0-3])=(and|or)$/.exec(spec)
      const key = match?.[1]
      if (match === null || key === undefined || !topicOperatorKeys.includes(key)) {
        return yield* badFlag("logs", "--topic-op", `must look like 0_1=or (pairs ${topicOperatorKeys.join(" ")}), got "${spec}"`, chainId)
      }
      ops[key] = match[2] as "and" | "or"
    }
    return ops
  })

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
      quiet: api.quiet
    }
    if (flags.dryRun) {
      return yield* Exports.estimate(source, options).pipe(
        Effect.flatMap((estimate) => DryRun.print([estimate], api)),
        Effect.catchTag("SinkError", refusedFlag("export", api.chain, ["out", "confirmations", "concurrency"]))
      )
    }
    return yield* Exports.toFile(source, options).pipe(
      Effect.catchTag("SinkError", refusedFlag("export", api.chain, ["out", "confirmations", "concurrency"])),
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
  Effect.map(parseToBlock(command, a.chain, a.fromBlock, a.toBlock), (to) => ({ chainId: a.chain, fromBlock: a.fromBlock, toBlock: to }))

const logs = Command.make(
  "logs",
  { address: optionalAddress, topic0: topic(0), topic1: topic(1), topic2: topic(2), topic3: topic(3), topicOp, ...range, ...fileOptions, ...Environment.apiOptions },
  (a) =>
    runExport(
      a,
      a,
      Effect.gen(function*() {
        const blocks = yield* parseRange("logs", a)
        const topicOperators = yield* parseTopicOps(a.chain, a.topicOp)
        return yield* Sources.logs({
          ...blocks,
          address: some(a.address),
          topic0: some(a.topic0),
          topic1: some(a.topic1),
          topic2: some(a.topic2),
          topic3: some(a.topic3),
          ...(Object.keys(topicOperators).length > 0 ? { topicOperators } : {})
        })
      })
    )
).pipe(Command.withDescription("event logs by contract address and/or topics (getLogs)"))

const abiOption = Options.text("abi").pipe(
  Options.optional,
  Options.withDescription("auto (getsourcecode/getabi, a proxy followed to its implementation, cached) or a JSON ABI file (default auto)")
)
const eventOption = Options.text("event").pipe(
  Options.optional,
  Options.withDescription("an event of the ABI by name or topic0, or a full signature \"Transfer(address indexed from,address indexed to,uint256 value)\" (default every event)")
)
const abiCache = Options.text("abi-cache").pipe(
  Options.optional,
  Options.withDescription("folder of fetched ABIs (default $XDG_CACHE_HOME/explorer-etl/abi, else ~/.cache/explorer-etl/abi)")
)

/** Where `--abi auto` keeps the ABIs it fetched, unless `--abi-cache` says. */
const defaultAbiCache = (): string => {
  const base = process.env.XDG_CACHE_HOME
  return join(base !== undefined && base !== "" ? base : join(homedir(), ".cache"), "explorer-etl", "abi")
}

/** The ABI `--abi` names: fetched (auto, cached), or read from a JSON file; none for a full signature alone. */
const abiOf = (
  a: { readonly chain: number; readonly address: string; readonly abi: Option.Option<string>; readonly event: Option.Option<string>; readonly abiCache: Option.Option<string> }
) =>
  Effect.gen(function*() {
    const given = some(a.abi)
    if (given === undefined && some(a.event)?.includes("(") === true) return [] as ReadonlyArray<unknown>
    if (given === undefined || given === "auto") {
      const dir = some(a.abiCache) ?? defaultAbiCache()
      return (yield* Events.cachedAbi({ chainId: a.chain, address: a.address, dir })).abi
    }
    const fs = yield* FileSystem.FileSystem
    return yield* fs.readFileString(given).pipe(
      Effect.mapError((e) => badFlag("events", "--abi", `cannot read ${given}: ${e.message}`, a.chain))
    )
  }).pipe(Effect.provide(NodeContext.layer))

const events = Command.make(
  "events",
  {
    address,
    abi: abiOption,
    event: eventOption,
    abiCache,
    topic0: topic(0),
    topic1: topic(1),
    topic2: topic(2),
    topic3: topic(3),
    topicOp,
    ...range,
    ...fileOptions,
    ...Environment.apiOptions
  },
  (a) => {
    let made: Events.EventsSource | undefined
    const counts = Effect.suspend(() => made === undefined || a.quiet ? Effect.void : Effect.flatMap(made.counts, (c) =>
      Effect.sync(() =>
        void process.stderr.write(
          `events: ${Reporter.count(c.decoded)} decoded, ${Reporter.count(c.undecoded)} kept undecoded (empty event, raw topics and data)\n`
        )
      )))
    return runExport(
      a,
      a,
      Effect.gen(function*() {
        const blocks = yield* parseRange("events", a)
        const topicOperators = yield* parseTopicOps(a.chain, a.topicOp)
        const abi = yield* abiOf(a)
        made = yield* Sources.events({
          ...blocks,
          address: a.address,
          abi,
          event: some(a.event),
          topic0: some(a.topic0),
          topic1: some(a.topic1),
          topic2: some(a.topic2),
          topic3: some(a.topic3),
          ...(Object.keys(topicOperators).length > 0 ? { topicOperators } : {})
        })
        return made
      })
    ).pipe(Effect.tap(() => counts))
  }
).pipe(Command.withDescription("event logs of a contract decoded by its ABI (getLogs + getsourcecode/getabi)"))

const txs = Command.make(
  "txs",
  { address, ...range, ...fileOptions, ...Environment.apiOptions },
  (a) =>
    runExport(
      a,
      a,
      Effect.flatMap(parseRange("txs", a), (r) => Sources.transactions({ ...r, address: a.address }))
    )
).pipe(Command.withDescription("normal transactions of an address (txlist)"))

const internalTxs = Command.make(
  "internal-txs",
  { address: optionalAddress, ...range, ...fileOptions, ...Environment.apiOptions },
  (a) =>
    runExport(
      a,
      a,
      Effect.flatMap(parseRange("internal-txs", a), (r) => Sources.internalTransactions({ ...r, address: some(a.address) }))
    )
).pipe(Command.withDescription("internal transactions of an address, or of a block range without --address (PRO) (txlistinternal)"))

const transferOptions = { address: optionalAddress, contract: optionalContract, ...range, ...fileOptions, ...Environment.apiOptions }
const transferQuery = (command: string, a: { readonly chain: number; readonly fromBlock: number; readonly toBlock: string; readonly address: Option.Option<string>; readonly contract: Option.Option<string> }) =>
  Effect.map(parseRange(command, a), (r) => ({ ...r, address: some(a.address), contractAddress: some(a.contract) }))

const erc20 = Command.make("erc20-transfers", { ...transferOptions, decimals }, (a) =>
  runExport(a, a, readable(a.decimals, Effect.flatMap(transferQuery("erc20-transfers", a), Sources.erc20Transfers)))
).pipe(Command.withDescription("ERC-20 transfers by --address and/or --contract (tokentx)"))

const erc721 = Command.make("erc721-transfers", transferOptions, (a) =>
  runExport(a, a, Effect.flatMap(transferQuery("erc721-transfers", a), Sources.erc721Transfers))
).pipe(Command.withDescription("ERC-721 transfers by --address and/or --contract (tokennfttx)"))

const erc1155 = Command.make("erc1155-transfers", transferOptions, (a) =>
  runExport(a, a, Effect.flatMap(transferQuery("erc1155-transfers", a), Sources.erc1155Transfers))
).pipe(Command.withDescription("ERC-1155 transfers by --address and/or --contract (token1155tx)"))

const holders = Command.make("holders", { contract, decimals, ...fileOptions, ...Environment.apiOptions }, (a) =>
  runExport(a, a, readable(a.decimals, Sources.tokenHolders({ chainId: a.chain, contractAddress: a.contract })))
).pipe(Command.withDescription("every holder of a token with its raw quantity (tokenholderlist, PRO)"))

const topHolders = Command.make("top-holders", { contract, limit, decimals, ...fileOptions, ...Environment.apiOptions }, (a) =>
  runExport(a, a, readable(a.decimals, Sources.topHolders({ chainId: a.chain, contractAddress: a.contract, limit: a.limit })))
).pipe(Command.withDescription("the largest holders of a token, --limit ≤ 1000 (topholders, PRO)"))

const nftHoldings = Command.make("nft-holdings", { address, ...fileOptions, ...Environment.apiOptions }, (a) =>
  runExport(a, a, Sources.nftHoldings({ chainId: a.chain, address: a.address }))
).pipe(Command.withDescription("NFT holdings of an address (addresstokennftbalance, PRO)"))

const tokenBalances = Command.make("token-balances", { address, decimals, ...fileOptions, ...Environment.apiOptions }, (a) =>
  runExport(a, a, readable(a.decimals, Sources.tokenBalances({ chainId: a.chain, address: a.address })))
).pipe(Command.withDescription("ERC-20 balances of an address (addresstokenbalance, PRO)"))

const dailyOptions = { startDate: date("start-date"), endDate: date("end-date"), sort, ...fileOptions, ...Environment.apiOptions }

const dailyGas = Command.make("daily-gas", dailyOptions, (a) =>
  runExport(a, a, Sources.dailyGasUsed({ chainId: a.chain, startDate: a.startDate, endDate: a.endDate, sort: a.sort }))
).pipe(Command.withDescription("gas used per day (dailygasused, PRO)"))

const dailyTx = Command.make("daily-tx", dailyOptions, (a) =>
  runExport(a, a, Sources.dailyTxCount({ chainId: a.chain, startDate: a.startDate, endDate: a.endDate, sort: a.sort }))
).pipe(Command.withDescription("transactions per day (dailytx, PRO)"))

const addressTags = Command.make("address-tags", { label, ...fileOptions, ...Environment.apiOptions }, (a) =>
  runExport(a, a, Sources.addressTags({ chainId: a.chain, label: a.label }))
).pipe(Command.withDescription("name tags of a label (exportaddresstags, Pro Plus)"))

const minedBlocks = Command.make("mined-blocks", { address, ...fileOptions, ...Environment.apiOptions }, (a) =>
  runExport(a, a, Sources.minedBlocks({ chainId: a.chain, address: a.address }))
).pipe(Command.withDescription("blocks an address proposed, newest first, with their rewards (getminedblocks)"))

const beaconWithdrawals = Command.make("beacon-withdrawals", { address, ...range, ...fileOptions, ...Environment.apiOptions }, (a) =>
  runExport(a, a, Effect.flatMap(parseRange("beacon-withdrawals", a), (r) => Sources.beaconWithdrawals({ ...r, address: a.address })))
).pipe(Command.withDescription("consensus-layer withdrawals to an address, amounts in gwei (txsBeaconWithdrawal)"))

const statistics = Object.keys(Sources.dailyStatistics) as ReadonlyArray<Sources.DailyStatistic>
const statistic = Flags.choice("stat", statistics, { pseudoName: "action" }).pipe(
  Options.withDescription(`the daily statistic, by its API action: ${statistics.join(", ")}`)
)

const dailyStats = Command.make("daily-stats", { stat: statistic, ...dailyOptions }, (a) =>
  runExport(a, a, Sources.dailyStatistic(a.stat, { chainId: a.chain, startDate: a.startDate, endDate: a.endDate, sort: a.sort }))
).pipe(Command.withDescription("any other daily statistic: --stat dailyavggasprice, ethdailyprice, … (PRO)"))

/** `explorer-etl export …` */
export const exportCommand = Command.make("export").pipe(
  Command.withDescription("export a data set to a CSV, JSONL or Parquet file, with a manifest beside it"),
  Command.withSubcommands([
    logs,
    events,
    txs,
    internalTxs,
    erc20,
    erc721,
    erc1155,
    holders,
    topHolders,
    nftHoldings,
    tokenBalances,
    dailyGas,
    dailyTx,
    addressTags,
    minedBlocks,
    beaconWithdrawals,
    dailyStats
  ])
)
