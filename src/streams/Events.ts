/**
 * Logs decoded by a contract's ABI: the `events` data set (re-exported by `Sources`), and the decoder
 * beneath it as a composable piece (`decoder`, `decodeLogs`). Decoding is `ox`'s (`AbiEvent.decode`);
 * nothing here reads ABI words by hand.
 *
 * An `events` source is the `logs` source of the same query with every batch decoded, so it keeps every
 * filter and guarantee of `logs`: the block cursor, checkpoints, resume and extend. Its query (with the
 * chosen event's signature and a hash of the ABI's events) is part of the file's fingerprint: a file
 * cannot be resumed with another ABI.
 *
 * Rows: the log's own columns (`blockNumber`, `timeStamp`, `transactionHash`, `logIndex`, `address`),
 * then `event` (the event's name), then
 * - with an event chosen: one column per argument, named by the ABI (an unnamed argument, or one whose
 *   name is already a column, is `arg<position>`): uint/int as exact decimal strings in the file
 *   (`bigint` decoded), addresses lower-case hex, bool, bytes hex, strings; arrays and tuples as JSON
 *   values (integers in them as decimal strings, tuples with named components as objects): JSON text
 *   in a CSV cell, the value itself in a JSONL line; an indexed string, bytes, array or tuple is stored
 *   by the chain as its keccak-256 hash: its column holds that hash;
 * - without: `args`, every argument in one JSON object (keys as the columns would be named; JSON text
 *   in CSV);
 * then `topics` (`topic0..topic3` in CSV) and `data`, filled only for a log the ABI cannot decode.
 *
 * A log the ABI cannot decode — an unknown topic0, an anonymous event, or the same signature with
 * another number of indexed arguments (an ERC-721 `Transfer` read with an ERC-20 ABI) — is never
 * dropped: its row has an empty `event`, no arguments, and its raw `topics` and `data`.
 *
 * @example
 * import { Exports, Sources } from "explorer-etl"
 * const source = yield* Sources.events({ chainId: 1, address: token, abi, event: "Transfer", fromBlock: 19_000_000 })
 * yield* Exports.toFile(source, { out: "out/transfers.csv", resume: true })
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as AbiEvent from "ox/AbiEvent"
import * as Hash from "ox/Hash"
import * as Hex from "ox/Hex"
import { ExplorerClient } from "../ExplorerClient.js"
import { InvalidInputError, type StreamError } from "../ExplorerError.js"
import { suggest } from "../Suggest.js"
import { AddressField, DecimalInt, Hash32, HashField, HexData } from "../schemas/common.js"
import type { BlockBatch } from "./engine/BlockCursor.js"
import type { LogsQuery } from "./Datasets.js"
import { logs } from "./datasets/logs.js"
import * as Progress from "./Progress.js"
import type { BlockSource, StreamOptions } from "./Sources.js"

/**
 * A JSON ABI: its items as getabi answers them (only the events are read), or that JSON text.
 *
 * @since 0.1.0
 * @category models
 */
export type Abi = ReadonlyArray<unknown> | string

/**
 * What the decoder reads of a log (a `Schemas.Log` record is one).
 *
 * @since 0.1.0
 * @category models
 */
export interface LogRecord {
  readonly address: string
  readonly topics: ReadonlyArray<string>
  readonly data: string
  readonly blockNumber: number
  readonly timeStamp: number
  readonly transactionHash: string
  readonly logIndex: number
}

/**
 * A row of the `events` data set (see the module's documentation for its columns).
 *
 * @since 0.1.0
 * @category models
 */
export interface DecodedEvent {
  readonly blockNumber: number
  readonly timeStamp: number
  readonly transactionHash: string
  readonly logIndex: number
  /** The emitting contract, lower-case. */
  readonly address: string
  /** The event's name; `""` when the ABI could not decode the log (then `topics` and `data` hold it). */
  readonly event: string
  /** Without a chosen event: the arguments as one JSON object. */
  readonly args?: unknown
  /** Only for a log the ABI could not decode: its raw topics. */
  readonly topics?: ReadonlyArray<string>
  /** Only for a log the ABI could not decode: its raw data. */
  readonly data?: string
  /** With a chosen event: one value per argument column. */
  readonly [column: string]: unknown
}

/**
 * One argument of the chosen event, as a column.
 *
 * @since 0.1.0
 * @category models
 */
export interface ArgumentColumn {
  /** The column's name (the ABI's name, or `arg<position>`). */
  readonly column: string
  /** The ABI type, e.g. `uint256`, `address[]`, `tuple`. */
  readonly type: string
  readonly indexed: boolean
}

/**
 * A decoder of logs by one ABI: what `decodeLogs` and the `events` source use.
 *
 * @since 0.1.0
 * @category models
 */
export interface Decoder {
  /** The events it decodes: the chosen one, or every non-anonymous event of the ABI. */
  readonly events: ReadonlyArray<AbiEvent.AbiEvent>
  /** The chosen event's signature (`Transfer(address indexed from, …)`), if one was chosen. */
  readonly signature: string | undefined
  /** The chosen event's topic0 (the logs query filters on it), if one was chosen. */
  readonly topic0: string | undefined
  /** The chosen event's argument columns (empty without a chosen event). */
  readonly arguments: ReadonlyArray<ArgumentColumn>
  /** `sha256:<hex>` of the decoded events' signatures: what the fingerprint of a file holds. */
  readonly abiHash: string
  /** The row schema: its encoded side is the file's row. */
  readonly schema: Schema.Schema<DecodedEvent, Readonly<Record<string, unknown>>>
  /** Decodes one log (a log it cannot decode gives a row with an empty `event`; never fails). */
  readonly decode: (log: LogRecord) => DecodedEvent
}

/** The columns every row starts with: the log's own. */
const logColumns = ["blockNumber", "timeStamp", "transactionHash", "logIndex", "address"] as const
const reserved: ReadonlySet<string> = new Set([...logColumns, "event", "args", "topics", "data"])

/** A problem with the ABI or the chosen event, worded for the user. */
const abiProblem = (chainId: number, parameter: string, detail: string) =>
  new InvalidInputError({ chainId, module: "events", action: "decode", parameter, detail })

/** The ABI's items, from its JSON text or as given. */
const itemsOf = (abi: Abi): Either.Either<ReadonlyArray<unknown>, string> => {
  if (typeof abi !== "string") return Either.right(abi)
  let parsed: unknown
  try {
    parsed = JSON.parse(abi)
  } catch {
    return Either.left("the ABI is not JSON")
  }
  // Hardhat and Foundry artifacts hold the ABI under "abi".
  if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) && "abi" in parsed) parsed = parsed.abi
  return Array.isArray(parsed) ? Either.right(parsed) : Either.left("the ABI is not a JSON array of items")
}

/** The ABI's events, each checked by computing its selector. */
const eventsOf = (items: ReadonlyArray<unknown>): Either.Either<ReadonlyArray<AbiEvent.AbiEvent>, string> => {
  const out: Array<AbiEvent.AbiEvent> = []
  // A merged ABI (a proxy's and its implementation's) may list one event twice: keep it once.
  const seen = new Set<string>()
  for (const item of items) {
    if (typeof item !== "object" || item === null || (item as { readonly type?: unknown }).type !== "event") continue
    const name = (item as { readonly name?: unknown }).name
    try {
      const event = AbiEvent.from(item as AbiEvent.AbiEvent)
      AbiEvent.getSelector(event)
      const key = AbiEvent.format(event)
      if (!seen.has(key)) out.push(event)
      seen.add(key)
    } catch (e) {
      return Either.left(`the ABI's event ${String(name)} is not valid: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`)
    }
  }
  return Either.right(out)
}

/** `Transfer(address indexed from, address indexed to, uint256 value)`. */
const signatureOf = (event: AbiEvent.AbiEvent): string => AbiEvent.format(event).replace(/^event /, "")

/** The chosen event: a full signature as given, the ABI's one event of that name, or of that topic0. */
const chooseEvent = (events: ReadonlyArray<AbiEvent.AbiEvent>, spec: string): Either.Either<AbiEvent.AbiEvent, string> => {
  const text = spec.trim()
  if (/^0x[0-9a-fA-F]{64}$/.test(text)) {
    const topic0 = text.toLowerCase()
    const found = events.filter((e) => e.anonymous !== true && AbiEvent.getSelector(e).toLowerCase() === topic0)
    if (found.length === 1) return Either.right(found[0] as AbiEvent.AbiEvent)
    if (found.length > 1) {
      return Either.left(`the ABI has ${found.length} events of topic0 ${topic0}: give the full signature, one of ${found.map((e) => `"${signatureOf(e)}"`).join(", ")}`)
    }
    const names = [...new Set(events.map((e) => e.name))].sort()
    return Either.left(`the ABI has no event of topic0 ${topic0}${names.length === 0 ? "" : `: its events are ${names.join(", ")}`}`)
  }
  if (text.includes("(")) {
    try {
      const parsed: { readonly type: string } = AbiEvent.from((text.startsWith("event ") ? text : `event ${text}`) as string)
      if (parsed.type === "event") return Either.right(parsed as AbiEvent.AbiEvent)
      return Either.left(`"${text}" is not an event signature`)
    } catch (e) {
      return Either.left(`"${text}" is not an event signature: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`)
    }
  }
  const named = events.filter((e) => e.name === text)
  if (named.length === 1) return Either.right(named[0] as AbiEvent.AbiEvent)
  if (named.length > 1) {
    return Either.left(`the ABI has ${named.length} events named ${text}: give the full signature, one of ${named.map((e) => `"${signatureOf(e)}"`).join(", ")}`)
  }
  const names = [...new Set(events.map((e) => e.name))].sort()
  if (names.length === 0) return Either.left(`the ABI has no events (looking for ${text})`)
  const close = suggest(text, names)
  const hint = close === undefined ? "" : `did you mean ${close}? `
  return Either.left(`the ABI has no event named ${text}: ${hint}its events are ${names.join(", ")}`)
}

const isDynamic = (type: string): boolean => type === "string" || type === "bytes" || type === "tuple" || type.endsWith("]") || type.startsWith("tuple")
const isInteger = (type: string): boolean => /^u?int\d*$/.test(type)

/** Components of a tuple parameter (ox types keep them on the parameter). */
type Param = { readonly type: string; readonly name?: string | undefined; readonly indexed?: boolean | undefined; readonly components?: ReadonlyArray<Param> }

/** A decoded value as JSON: integers as decimal strings, addresses lower-case, tuples as objects (or arrays when unnamed). */
const jsonValue = (param: Param, value: unknown): unknown => {
  const array = /^(.*)\[\d*\]$/.exec(param.type)
  if (array !== null) {
    const inner = { ...param, type: array[1] as string }
    return Array.isArray(value) ? value.map((v) => jsonValue(inner, v)) : value
  }
  if (param.type === "tuple") {
    const components = param.components ?? []
    const named = components.length > 0 && components.every((c) => c.name !== undefined && c.name !== "")
    const at = (c: Param, i: number): unknown =>
      Array.isArray(value) ? value[i] : (value as Readonly<Record<string, unknown>>)[c.name !== undefined && c.name !== "" ? c.name : i]
    return named
      ? Object.fromEntries(components.map((c, i) => [c.name as string, jsonValue(c, at(c, i))]))
      : components.map((c, i) => jsonValue(c, at(c, i)))
  }
  if (isInteger(param.type)) return typeof value === "bigint" || typeof value === "number" ? value.toString() : value
  if (param.type === "address") return typeof value === "string" ? value.toLowerCase() : value
  return value
}

/** The file column of one argument of the chosen event. */
const columnSchema = (param: Param): Schema.Schema.AnyNoContext => {
  if (param.indexed === true && isDynamic(param.type)) return Hash32
  // A bigint on the encoded side too: CSV writes it as a number (a negative one is not taken for a
  // formula), JSONL as an exact decimal string.
  if (isInteger(param.type)) return Schema.BigIntFromSelf
  if (param.type === "bool") return Schema.Boolean
  // A JSON value: its JSON text in a CSV cell, the value itself in a JSONL line.
  if (param.type.endsWith("]") || param.type.startsWith("tuple")) return Schema.Unknown
  return Schema.String
}

type Convert = (value: unknown) => unknown
const same: Convert = (value) => value

/** How an argument's decoded value becomes its column's value (chosen once per argument, not per log). */
const columnConverter = (param: Param): Convert => {
  if (param.indexed === true && isDynamic(param.type)) return same
  if (isInteger(param.type)) return (v) => (typeof v === "bigint" ? v : BigInt(v as number))
  if (param.type === "address") return (v) => (v as string).toLowerCase()
  if (param.type.endsWith("]") || param.type.startsWith("tuple")) return (v) => jsonValue(param, v)
  return same
}

/** How an argument's decoded value becomes its value in the `args` JSON object. */
const jsonConverter = (param: Param): Convert =>
  param.indexed === true && isDynamic(param.type) ? same : (v) => jsonValue(param, v)

/** Column names of an event's arguments: the ABI's, or `arg<position>` when unnamed or taken. */
const columnNames = (event: AbiEvent.AbiEvent): ReadonlyArray<string> => {
  const used = new Set(reserved)
  return event.inputs.map((input, i) => {
    let name = input.name !== undefined && input.name !== "" && !used.has(input.name) ? input.name : `arg${i}`
    while (used.has(name)) name = `${name}_`
    used.add(name)
    return name
  })
}

/** One event ready to decode: ox's event, its selector and indexed count, and its column names. */
interface Prepared {
  readonly event: AbiEvent.AbiEvent
  /** The event as ox decodes it without re-hashing its signature (topic0 is matched before). */
  readonly bare: AbiEvent.AbiEvent
  readonly indexed: number
  readonly columns: ReadonlyArray<string>
  /** Where ox's result holds each argument: its name, or its position when unnamed. */
  readonly keys: ReadonlyArray<string | number>
  readonly toColumn: ReadonlyArray<Convert>
  readonly toJson: ReadonlyArray<Convert>
}

const prepare = (event: AbiEvent.AbiEvent): Prepared => {
  const params = event.inputs as ReadonlyArray<Param>
  return {
    event,
    // ox checks topic0 against the event's selector by hashing its signature on every call; the
    // decoder matches topic0 first, so it hands ox the event as anonymous, with the argument topics only.
    bare: { ...event, anonymous: true } as AbiEvent.AbiEvent,
    indexed: params.filter((i) => i.indexed === true).length,
    columns: columnNames(event),
    keys: params.map((input, i) => (input.name !== undefined && input.name !== "" ? input.name : i)),
    toColumn: params.map(columnConverter),
    toJson: params.map(jsonConverter)
  }
}

/** The arguments of `log` decoded as `p`, or undefined when they do not fit it. */
const argumentsOf = (p: Prepared, log: LogRecord): ReadonlyArray<unknown> | undefined => {
  if (log.topics.length !== p.indexed + 1) return undefined
  let args: unknown
  try {
    args = AbiEvent.decode(p.bare, { topics: log.topics.slice(1) as Array<Hex.Hex>, data: log.data as Hex.Hex }, { checksumAddress: false })
  } catch {
    return undefined
  }
  const values: Array<unknown> = new Array(p.keys.length)
  if (args !== undefined) {
    const byKey = args as Readonly<Record<string | number, unknown>>
    const positional = Array.isArray(args)
    for (let i = 0; i < values.length; i++) values[i] = positional ? byKey[i] : byKey[p.keys[i] as string | number]
  }
  return values
}

/** The log's own columns and the event's name (an object literal: spreading one is several times slower). */
const rowOf = (log: LogRecord, event: string): Record<string, unknown> => ({
  blockNumber: log.blockNumber,
  timeStamp: log.timeStamp,
  transactionHash: log.transactionHash,
  logIndex: log.logIndex,
  address: log.address.toLowerCase(),
  event
})

const undecoded = (log: LogRecord): DecodedEvent => {
  const row = rowOf(log, "")
  row.topics = log.topics
  row.data = log.data
  return row as DecodedEvent
}

/**
 * A decoder of logs by `abi`: with `event` (a name of the ABI, a topic0 of one of its events, or a full
 * signature such as `"Transfer(address indexed from, address indexed to, uint256 value)"`, which needs no ABI), one
 * column per argument of that event; without, every event of the ABI in one `args` JSON column. Fails
 * with `InvalidInputError` on an ABI that is not one, or an event it does not have (naming the closest).
 *
 * @example
 * const decoder = yield* Events.decoder(abiJson, { event: "Transfer" })
 * const rows = Streams.logs({ address: token }).pipe(Events.decodeLogs(decoder))
 *
 * @since 0.1.0
 * @category constructors
 */
export const decoder = (
  abi: Abi,
  options: { readonly event?: string | undefined; readonly chainId?: number | undefined } = {}
): Effect.Effect<Decoder, InvalidInputError> =>
  Effect.gen(function*() {
    const chainId = options.chainId ?? 0
    const items = itemsOf(abi)
    if (Either.isLeft(items)) return yield* abiProblem(chainId, "abi", items.left)
    const all = eventsOf(items.right)
    if (Either.isLeft(all)) return yield* abiProblem(chainId, "abi", all.left)
    let chosen: AbiEvent.AbiEvent | undefined
    if (options.event !== undefined) {
      const found = chooseEvent(all.right, options.event)
      if (Either.isLeft(found)) return yield* abiProblem(chainId, "event", found.left)
      chosen = found.right
      if (chosen.anonymous === true) return yield* abiProblem(chainId, "event", `${chosen.name} is anonymous: its logs have no topic0 to find them by`)
    }
    const events = chosen !== undefined ? [chosen] : all.right.filter((e) => e.anonymous !== true)
    const prepared = events.map(prepare)
    const bySelector = new Map<string, Array<Prepared>>()
    for (const p of prepared) {
      const selector = AbiEvent.getSelector(p.event).toLowerCase()
      const same = bySelector.get(selector)
      // Same selector, other indexed arguments (ERC-20 and ERC-721 Transfer): tried in turn.
      if (same === undefined) bySelector.set(selector, [p])
      else same.push(p)
    }
    const signatures = [...new Set(events.map((e) => AbiEvent.format(e)))].sort()
    const abiHash = `sha256:${Hash.sha256(Hex.fromString(JSON.stringify(signatures))).slice(2)}`
    const one = chosen === undefined ? undefined : prepared[0]
    const argumentColumns: ReadonlyArray<ArgumentColumn> = one === undefined
      ? []
      : one.event.inputs.map((input, i) => ({ column: one.columns[i] as string, type: input.type, indexed: (input as Param).indexed === true }))

    const fields: Record<string, Schema.Schema.All | Schema.PropertySignature.All> = {
      blockNumber: DecimalInt,
      timeStamp: DecimalInt,
      transactionHash: HashField,
      logIndex: DecimalInt,
      address: AddressField,
      event: Schema.String
    }
    if (one === undefined) fields.args = Schema.optional(Schema.Unknown)
    else one.event.inputs.forEach((input, i) => void (fields[one.columns[i] as string] = Schema.optional(columnSchema(input as Param))))
    fields.topics = Schema.optional(Schema.Array(Hash32))
    fields.data = Schema.optional(HexData)
    const schema = Schema.Struct(fields).annotations({ identifier: "DecodedEvent" }) as unknown as Schema.Schema<
      DecodedEvent,
      Readonly<Record<string, unknown>>
    >

    const decode = (log: LogRecord): DecodedEvent => {
      const candidates = bySelector.get((log.topics[0] ?? "").toLowerCase())
      if (candidates === undefined) return undecoded(log)
      for (const p of candidates) {
        const values = argumentsOf(p, log)
        if (values === undefined) continue
        const row = rowOf(log, p.event.name)
        if (one === undefined) {
          const args: Record<string, unknown> = {}
          for (let i = 0; i < values.length; i++) args[p.columns[i] as string] = (p.toJson[i] as Convert)(values[i])
          row.args = args
        } else {
          for (let i = 0; i < values.length; i++) {
            const value = values[i]
            row[p.columns[i] as string] = value === undefined ? undefined : (p.toColumn[i] as Convert)(value)
          }
        }
        return row as DecodedEvent
      }
      return undecoded(log)
    }

    return {
      events,
      signature: chosen === undefined ? undefined : signatureOf(chosen),
      topic0: chosen === undefined ? undefined : AbiEvent.getSelector(chosen).toLowerCase(),
      arguments: argumentColumns,
      abiHash,
      schema,
      decode
    } satisfies Decoder
  })

/**
 * The `Stream` operator of a decoder: every log record becomes its row (undecodable logs included,
 * with an empty `event`).
 *
 * @example
 * Streams.logs({ address: token, topic0: decoder.topic0 }).pipe(Events.decodeLogs(decoder))
 *
 * @since 0.1.0
 * @category combinators
 */
export const decodeLogs = (decoder: Decoder) => <E, R>(logs: Stream.Stream<LogRecord, E, R>): Stream.Stream<DecodedEvent, E, R> =>
  Stream.map(logs, decoder.decode)

/**
 * Decoded events by contract address and/or topics, with the ABI and the event to decode them by.
 *
 * @since 0.1.0
 * @category models
 */
export interface EventsQuery extends LogsQuery {
  /** The contract's ABI (its items, or the JSON text getabi answers); `[]` with a full event signature. */
  readonly abi: Abi
  /** An event of the ABI by name or by topic0, or a full signature; default every event of the ABI. */
  readonly event?: string | undefined
}

/**
 * How many rows of an `events` source were decoded, and how many kept raw.
 *
 * @since 0.1.0
 * @category models
 */
export interface DecodeCounts {
  readonly decoded: number
  readonly undecoded: number
}

/**
 * The `events` source: a block source, plus the decoder and its counts.
 *
 * @since 0.1.0
 * @category models
 */
export interface EventsSource extends BlockSource<DecodedEvent, Readonly<Record<string, unknown>>> {
  readonly decoder: Decoder
  /** Rows decoded and kept undecoded by this source's streams so far (every run of it adds to them). */
  readonly counts: Effect.Effect<DecodeCounts>
}

/**
 * `decoder.decode` of a log, in the schema's encoded form (what a file writes): the same row with the
 * log's block number, time and index as decimal text (`DecimalInt`); every other column's encoded
 * value is its value (strings, bigints, flags, JSON values).
 */
const encodedRowOf = (decode: Decoder["decode"]) => (log: LogRecord): DecodedEvent => {
  // A fresh object of `decode`'s, shared with nothing: changed in place.
  const row = decode(log) as unknown as Record<string, unknown>
  row.blockNumber = String(log.blockNumber)
  row.timeStamp = String(log.timeStamp)
  row.logIndex = String(log.logIndex)
  return row as unknown as DecodedEvent
}

/**
 * Event logs decoded by an ABI (the `events` data set): the `logs` source of the same filters, every
 * batch decoded. With `event`, the logs query filters on its topic0 (a `topic0` of your own must be the
 * same). The ABI and the event are checked before any request is sent. The source's progress cell
 * (`Progress`) counts `decodedRows` and `undecodedRows`.
 *
 * @example
 * const source = yield* Sources.events({ address: token, abi, event: "Transfer", fromBlock: 19_000_000 })
 * yield* Exports.toFile(source, { out: "out/transfers.jsonl" })
 *
 * @since 0.1.0
 * @category sources
 */
export const events = (query: EventsQuery): Effect.Effect<EventsSource, StreamError, ExplorerClient> =>
  Effect.gen(function*() {
    const { abi, event, ...filters } = query
    const chainId = query.chainId ?? (yield* ExplorerClient).defaultChainId
    const made = yield* decoder(abi, { event, chainId })
    if (made.topic0 !== undefined && filters.topic0 !== undefined && filters.topic0.toLowerCase() !== made.topic0) {
      return yield* abiProblem(chainId, "topic0", `${filters.topic0} is not the topic0 of ${made.signature} (${made.topic0})`)
    }
    const source = yield* logs.source({ ...filters, topic0: made.topic0 ?? filters.topic0 })
    const counts = { decoded: 0, undecoded: 0 }
    const encodedRow = encodedRowOf(made.decode)
    /** Counts a batch's decoded and undecoded rows (here and in the progress cell). */
    const counted = <Row extends DecodedEvent>(batch: BlockBatch<unknown>, rows: ReadonlyArray<Row>, options: StreamOptions | undefined) =>
      Effect.suspend(() => {
        let missed = 0
        for (const row of rows) if (row.event === "") missed++
        counts.decoded += rows.length - missed
        counts.undecoded += missed
        return Effect.as(
          Progress.update(options?.progress, (p) => ({
            ...p,
            decodedRows: (p.decodedRows ?? 0) + rows.length - missed,
            undecodedRows: (p.undecodedRows ?? 0) + missed
          })),
          { rows, completeThrough: batch.completeThrough, firstBlock: batch.firstBlock, undecodedRows: missed } satisfies BlockBatch<Row>
        )
      })
    const decodeBatch = (decode: (log: LogRecord) => DecodedEvent) => (batch: BlockBatch<LogRecord>, options: StreamOptions | undefined) =>
      Effect.suspend(() => counted(batch, batch.rows.map(decode), options))
    // A log's file record (the logs' file form: numbers as decimal text, checked on the wire, never
    // decoded) decoded as a row in its file form: the log's own columns are already text.
    const fileRow = (record: unknown): DecodedEvent => made.decode(record as LogRecord)
    const lineBatches = source.lineBatches
    return {
      _tag: "Blocks",
      dataset: "events",
      chainId: source.chainId,
      plan: source.plan,
      callsPerSecond: source.callsPerSecond,
      query: {
        ...source.query,
        abi: made.abiHash,
        ...(made.signature === undefined ? {} : { event: made.signature })
      },
      schema: made.schema,
      fromBlock: source.fromBlock,
      toBlock: source.toBlock,
      latestBlock: source.latestBlock,
      // Read in partitions as logs are: the options (the bound a cut lowers) go to the logs' batches.
      parallel: source.parallel,
      countsDecoding: true,
      batches: (range, options) => Stream.mapEffect(source.batches(range, options), (batch) => decodeBatch(made.decode)(batch, options)),
      // Exports: each row built in its file form from the log's file record, neither the log's typed
      // record built nor the row encoded again (bench/RESULTS.md section 2).
      encodedBatches: (range, options) =>
        lineBatches === undefined
          ? Stream.mapEffect(source.batches(range, options), (batch) =>
            decodeBatch(encodedRow)(batch, options) as Effect.Effect<BlockBatch<Readonly<Record<string, unknown>>>>)
          : Stream.mapEffect(
            lineBatches(range, (records) => Either.right(records.map(fileRow)), options),
            (batch) => counted(batch, batch.rows, options) as Effect.Effect<BlockBatch<Readonly<Record<string, unknown>>>>
          ),
      decoder: made,
      counts: Effect.sync(() => ({ ...counts }))
    } satisfies EventsSource
  })

/**
 * A contract's ABI as fetched: the contract, the implementation behind it when it is a proxy, and the ABI.
 *
 * @since 0.1.0
 * @category models
 */
export interface FetchedAbi {
  readonly chainId: number
  readonly address: string
  /** The implementation whose ABI was merged in, when the contract is a proxy. */
  readonly implementation: string | null
  /** The implementation's ABI items (if a proxy) followed by the contract's own. */
  readonly abi: ReadonlyArray<unknown>
}

/**
 * Fetches a contract's ABI: getsourcecode (its ABI, and whether it is a proxy) and, for a proxy, the
 * implementation's ABI with getabi, whose items come first (a proxy's own events, e.g. `Upgraded`,
 * stay decodable). An unverified contract fails with `InvalidInputError`; an unverified implementation
 * with the server's `NotOkError`.
 *
 * @example
 * const { abi } = yield* Events.fetchAbi({ chainId: 1, address: usdc })
 *
 * @since 0.1.0
 * @category abi
 */
export const fetchAbi = (args: { readonly chainId?: number | undefined; readonly address: string }): Effect.Effect<FetchedAbi, StreamError, ExplorerClient> =>
  Effect.gen(function*() {
    const client = yield* ExplorerClient
    const chainId = args.chainId ?? client.defaultChainId
    const address = args.address.toLowerCase()
    const [record] = yield* client.getsourcecode({ chainId, address })
    const own = record === undefined ? Either.left("no answer") : itemsOf(record.ABI)
    if (Either.isLeft(own)) {
      return yield* new InvalidInputError({
        chainId,
        module: "contract",
        action: "getsourcecode",
        parameter: "abi",
        detail: `${address} has no verified ABI on chain ${chainId} (${record?.ABI.slice(0, 60) ?? "no record"}): give the ABI yourself`
      })
    }
    const implementation = record?.Proxy === true && record.Implementation !== null ? record.Implementation.toLowerCase() : null
    if (implementation === null || implementation === address) return { chainId, address, implementation: null, abi: own.right }
    const text = yield* client.getabi({ chainId, address: implementation })
    const inner = itemsOf(text)
    if (Either.isLeft(inner)) {
      return yield* new InvalidInputError({ chainId, module: "contract", action: "getabi", parameter: "abi", detail: `the ABI of ${implementation} is not usable: ${inner.left}` })
    }
    return { chainId, address, implementation, abi: [...inner.right, ...own.right] }
  })

const CachedAbi = Schema.parseJson(Schema.Struct({
  chainId: Schema.Number,
  address: Schema.String,
  implementation: Schema.NullOr(Schema.String),
  abi: Schema.Array(Schema.Unknown)
}))

/**
 * `fetchAbi` with an on-disk cache: `<dir>/<chainId>/<address>.json` is read when present, and written
 * (atomically, by a rename) after a fetch. A cache file that cannot be read is fetched again; one that
 * cannot be written is left out (the ABI is still used). Delete the file to fetch the ABI again (after
 * a proxy's upgrade, say).
 *
 * @example
 * const { abi } = yield* Events.cachedAbi({ chainId: 1, address: usdc, dir: "/home/me/.cache/explorer-etl/abi" })
 *
 * @since 0.1.0
 * @category abi
 */
export const cachedAbi = (args: { readonly chainId?: number | undefined; readonly address: string; readonly dir: string }) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const chainId = args.chainId ?? (yield* ExplorerClient).defaultChainId
    const folder = path.join(args.dir, String(chainId))
    const file = path.join(folder, `${args.address.toLowerCase()}.json`)
    const hit = yield* fs.readFileString(file).pipe(
      Effect.flatMap(Schema.decodeUnknown(CachedAbi)),
      Effect.option
    )
    if (hit._tag === "Some") return hit.value satisfies FetchedAbi
    const fetched = yield* fetchAbi({ chainId, address: args.address })
    const temp = `${file}.${Date.now()}.tmp`
    yield* Schema.encode(CachedAbi)(fetched).pipe(
      Effect.flatMap((text) =>
        fs.makeDirectory(folder, { recursive: true }).pipe(
          Effect.zipRight(fs.writeFileString(temp, text + "\n")),
          Effect.zipRight(fs.rename(temp, file))
        )
      ),
      Effect.catchAll(() => Effect.ignore(fs.remove(temp)))
    )
    return fetched
  })
