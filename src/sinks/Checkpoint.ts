/**
 * The checkpoint of a block-ordered export: `<out>.state.json` beside the output, always replaced
 * atomically, committed only after the rows it counts are fsynced.
 *
 * ```json
 * { "version": 1, "fingerprint": "sha256:…", "dataset": "logs", "chainIds": [1], "format": "csv",
 *   "phase": "writing", "tempFile": ".logs.csv.partial", "bytes": 52311, "rows": 420,
 *   "fromBlock": 100, "completeThrough": 1234, "updatedAt": "2025-01-01T00:00:00.000Z" }
 * ```
 *
 * - `phase: "writing"`: the temporary file holds the export so far; its first `bytes` bytes are durable
 *   and hold exactly the `rows` rows of blocks `fromBlock..completeThrough` (plus the CSV header; for
 *   Parquet, the magic number and the row groups `parquet` describes).
 *   A partitioned export also lists its `partitions`: later block ranges whose rows wait in spool
 *   files (`.<name>.partial.p<N>`) beside it, each with its own durable length and position.
 * - `phase: "publishing"`: the temporary file is complete and fsynced (`contentHash` set); it is being
 *   renamed over the output.
 * - `phase: "published"`: the output is that file (`bytes`, `contentHash`): the export finished, and a
 *   later `resume` extends it from `completeThrough + 1`.
 *
 * The fingerprint identifies the export (data set, chains, query, format, columns, first block, formula
 * guard), so a checkpoint never continues a different query.
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { createHash } from "node:crypto"
import type { FileFormat } from "./Format.js"
import { fileSystemError, SinkError } from "./SinkError.js"
import * as Files from "./Files.js"
import { writeAtomic } from "./Files.js"
import { State as ParquetState } from "./internal-parquet/state.js"

/**
 * Where an export stands: see the module header.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Phase = Schema.Literal("writing", "publishing", "published")
/**
 * The type of the values of the `Phase` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type Phase = typeof Phase.Type

/**
 * A partition of a partitioned export whose rows wait in a spool file beside the temporary file, to be
 * appended to it once every block before `fromBlock` is there: its first `spoolBytes` bytes are durable
 * and hold exactly the `rows` rows of blocks `fromBlock..completeThrough`; it ends at `toBlock`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Partition = Schema.Struct({
  fromBlock: Schema.Number,
  toBlock: Schema.Number,
  completeThrough: Schema.Number,
  spoolFile: Schema.String,
  spoolBytes: Schema.Number,
  rows: Schema.Number,
  /** Decoded events: how many of those rows the ABI could not decode (absent: none). */
  undecodedRows: Schema.optional(Schema.Number)
}).annotations({ identifier: "ExportPartition" })
/**
 * The type of the values of the `Partition` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type Partition = typeof Partition.Type

/**
 * The content of `<out>.state.json`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const State = Schema.Struct({
  version: Schema.Literal(1),
  /** `sha256:` of the canonical JSON of the export's identity (see `fingerprint`). */
  fingerprint: Schema.String,
  dataset: Schema.String,
  chainIds: Schema.Array(Schema.Number),
  format: Schema.Literal("csv", "jsonl", "parquet"),
  phase: Phase,
  /** The temporary file's name, in the output's folder. */
  tempFile: Schema.String,
  /** Bytes of the file that are durable and accounted for (header included). */
  bytes: Schema.Number,
  /** Rows in those bytes. */
  rows: Schema.Number,
  /**
   * Decoded events (`events`): how many of those rows the ABI could not decode. Absent for other data
   * sets, and in a checkpoint written before it was counted (the manifest then leaves the counts out).
   */
  undecodedRows: Schema.optional(Schema.Number),
  /**
   * Requests sent for the export so far (every attempt; `retries` of them retries), by every run of it
   * that wrote this checkpoint: a resumed run counts on from here. Absent in checkpoints written before.
   */
  calls: Schema.optional(Schema.Number),
  retries: Schema.optional(Schema.Number),
  /** The first block the file covers. */
  fromBlock: Schema.Number,
  /** Every row of blocks `fromBlock..completeThrough` is in those bytes, and no other row. */
  completeThrough: Schema.Number,
  /** `sha256:<hex>` of the complete file (phases `publishing` and `published`). */
  contentHash: Schema.optional(Schema.String),
  /**
   * Phase `writing` of a partitioned export: the partitions read ahead of the temporary file,
   * ascending and contiguous. The temporary file's own reading continues from `completeThrough + 1`
   * to the first partition's `fromBlock − 1`. Absent: one cursor, from `completeThrough + 1`.
   */
  partitions: Schema.optional(Schema.Array(Partition)),
  /**
   * Parquet: the row groups in the temporary file's first `bytes` bytes (`Parquet.State`), from which
   * the footer is written at the end. Phases `publishing`/`published`: the row groups of the complete
   * file (whose `bytes` then count the footer too), so a later run extends it.
   */
  parquet: Schema.optional(ParquetState),
  updatedAt: Schema.String
}).annotations({ identifier: "ExportState" })
/**
 * The type of the values of the `State` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type State = typeof State.Type

const StateJson = Schema.parseJson(State, { space: 2 })

/**
 * What identifies an export: a checkpoint only continues the export with the same fingerprint.
 *
 * @since 0.1.0
 * @category models
 */
export interface Identity {
  readonly dataset: string
  readonly chainIds: ReadonlyArray<number>
  readonly query: unknown
  readonly format: FileFormat
  readonly columns: ReadonlyArray<string>
  /** Block-ordered exports: the first block of the file. */
  readonly fromBlock?: number | undefined
  /** CSV: whether the formula guard is on (it changes the file's bytes). */
  readonly formulaGuard?: boolean | undefined
}

/**
 * A JSON value with object keys sorted, bigints as decimal strings, addresses in lower case and
 * `undefined` members dropped: the same query always hashes the same, whatever the order its keys were
 * written in or the letter case of its addresses (manifests store it so too).
 *
 * @since 0.1.0
 * @category io
 */
export const canonical = (value: unknown): unknown => {
  const lower = canonicalAs(value, true)
  // The form with addresses as typed, for the fingerprint such a query had before (see `fingerprint`).
  if (lower !== null && typeof lower === "object") asTyped.set(lower, canonicalAs(value, false))
  return lower
}

/** A 20-byte address (0x + 40 hex digits), in any letter case. */
const isAddress = (value: string): boolean => /^0x[0-9a-fA-F]{40}$/.test(value)

/** The canonical objects `canonical` returned → the same value with its addresses as typed. */
const asTyped = new WeakMap<object, unknown>()

const canonicalAs = (value: unknown, lowerAddresses: boolean): unknown => {
  // Addresses are case-insensitive (EIP-55 case is only a checksum): one export, whatever the case typed.
  if (lowerAddresses && typeof value === "string" && isAddress(value)) return value.toLowerCase()
  const canonical = (v: unknown) => canonicalAs(v, lowerAddresses)
  if (typeof value === "bigint") return value.toString()
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : canonical(v)))
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key]
      if (v !== undefined && typeof v !== "function") out[key] = canonical(v)
    }
    return out
  }
  return value
}

const hashOf = (identity: unknown, lowerAddresses: boolean): string =>
  `sha256:${createHash("sha256").update(JSON.stringify(canonicalAs(identity, lowerAddresses))).digest("hex")}`

/** A fingerprint → the one the same export had before addresses were lower-cased (when it differs). */
const legacyFingerprints = new Map<string, string>()

/**
 * `sha256:<hex>` of an export's identity, its addresses in lower case. The fingerprint the same
 * identity had before (addresses as typed) is remembered, so `sameExport` accepts a checkpoint written
 * then with the same letter case.
 *
 * @since 0.1.0
 * @category io
 */
export const fingerprint = (identity: Identity): string => {
  const current = hashOf({ version: 1, ...identity }, true)
  const query = identity.query !== null && typeof identity.query === "object" ? asTyped.get(identity.query) : undefined
  const legacy = hashOf({ version: 1, ...identity, query: query ?? identity.query }, false)
  if (legacy !== current) legacyFingerprints.set(current, legacy)
  return current
}

/**
 * Whether a checkpoint's fingerprint `found` is that of the export `fingerprint` (or its legacy form).
 *
 * @since 0.1.0
 * @category guards
 */
export const sameExport = (found: string, fingerprint: string): boolean =>
  found === fingerprint || legacyFingerprints.get(fingerprint) === found

/**
 * `<out>.state.json`.
 *
 * @since 0.1.0
 * @category io
 */
export const statePath = (out: string): string => Files.statePath(out)

/**
 * Reads a checkpoint: none when the file does not exist; `{ unreadable }` when it exists but cannot be
 * read as a state (the caller decides whether that matters).
 *
 * @since 0.1.0
 * @category io
 */
export const read = (
  out: string
): Effect.Effect<Option.Option<State | { readonly unreadable: string }>, SinkError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = statePath(out)
    const exists = yield* fs.exists(path).pipe(Effect.mapError(fileSystemError(path, "checking")))
    if (!exists) return Option.none()
    const text = yield* fs.readFileString(path).pipe(Effect.mapError(fileSystemError(path, "reading")))
    return yield* Schema.decodeUnknown(StateJson)(text).pipe(
      Effect.map((state): State | { readonly unreadable: string } => state),
      Effect.catchTag("ParseError", (e) => Effect.succeed({ unreadable: e.message })),
      Effect.map(Option.some)
    )
  })

/**
 * Commits a checkpoint atomically (the caller has fsynced the data it counts).
 *
 * @since 0.1.0
 * @category io
 */
export const write = (
  out: string,
  state: State
): Effect.Effect<void, SinkError, FileSystem.FileSystem | Path.Path> =>
  Schema.encode(StateJson)(state).pipe(
    Effect.mapError((e) =>
      new SinkError({ reason: "Encode", path: statePath(out), detail: `the state does not encode: ${e.message}` })
    ),
    Effect.flatMap((text) => writeAtomic(statePath(out), text + "\n"))
  )
