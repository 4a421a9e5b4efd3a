/**
 * Amounts people can read: `Sources.withDecimals(source)` adds, beside a token amount in the token's
 * smallest unit, the same amount scaled by the token's decimals as an exact decimal string, and beside
 * a unix timestamp its ISO-8601 UTC text. A source transform: exports, resume and the fingerprint (the
 * columns and the query say `decimals`) keep working as for the source itself.
 *
 * | data set         | amount                 | decimals from                    | added columns                                   |
 * |------------------|------------------------|----------------------------------|-------------------------------------------------|
 * | erc20Transfers   | `value`                | each row's `tokenDecimal`        | `valueScaled`, `timeStampIso`                   |
 * | tokenBalances    | `TokenQuantity`        | each row's `TokenDivisor`        | `TokenQuantityScaled`                           |
 * | tokenHolders     | `TokenHolderQuantity`  | tokeninfo of the token (one call)| `TokenHolderQuantityScaled`                     |
 * | topHolders       | `TokenHolderQuantity`  | the server (already divided)     | `TokenHolderQuantityScaled`                     |
 *
 * topholders answers its quantities already divided by the token's decimals, as decimal text
 * (`"2696124.3026660371030000"`): its scaled column is that value written by the same policy (exact, the
 * fraction's trailing zeros dropped), and no tokeninfo call is made.
 *
 * Each added column follows the column it reads. Scaled amounts are exact (bigint arithmetic, never a
 * float): `1234.5678`; trailing zeros of the fraction are dropped and a whole amount has no point
 * (`1.50` is `1.5`, `2.000` is `2`). When the decimals are unknown — tokeninfo has no record of the
 * token, or a row's decimals are not a whole number 0..255 — the scaled column is empty (null in JSONL),
 * never a guess; for tokenHolders the query (and so the manifest) then says `decimals.value: null`.
 * ISO timestamps are UTC, to the second: `2024-03-01T12:00:00Z`.
 *
 * @example
 * import { Exports, Sources } from "explorer-etl"
 * const source = yield* Sources.withDecimals(yield* Sources.erc20Transfers({ contractAddress: usdc }))
 * yield* Exports.toFile(source, { out: "out/usdc.csv" })
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { ExplorerClient } from "../ExplorerClient.js"
import { InvalidInputError, type StreamError } from "../ExplorerError.js"
import type * as Dataset from "./Dataset.js"
import * as Registry from "./datasets/index.js"
import type { BlockRange, BlockSource, RowSource, Source, StreamOptions } from "./Sources.js"

/**
 * `raw` smallest units of a token of `decimals` decimals, as an exact decimal string: `1234.5678`,
 * trailing zeros of the fraction dropped, no point for a whole amount.
 *
 * @example
 * Readable.scale(1_234_567_800n, 6) // "1234.5678"
 *
 * @since 0.1.0
 * @category utils
 */
export const scale = (raw: bigint, decimals: number): string => {
  if (decimals === 0) return raw.toString()
  const negative = raw < 0n
  const abs = negative ? -raw : raw
  const unit = 10n ** BigInt(decimals)
  const fraction = (abs % unit).toString().padStart(decimals, "0").replace(/0+$/, "")
  return `${negative ? "-" : ""}${abs / unit}${fraction === "" ? "" : `.${fraction}`}`
}

/**
 * Unix seconds as ISO-8601 UTC text to the second: `2024-03-01T12:00:00Z`.
 *
 * @since 0.1.0
 * @category utils
 */
export const isoTime = (unixSeconds: number): string => new Date(unixSeconds * 1000).toISOString().replace(/\.000Z$/, "Z")

/**
 * The columns `withDecimals` adds: `<amount>Scaled` (null when the decimals are unknown) and `<time>Iso`.
 *
 * @since 0.1.0
 * @category models
 */
export type ReadableColumns = { readonly [column: `${string}Scaled`]: string | null } & { readonly [column: `${string}Iso`]: string }

/**
 * What `withDecimals` does to each data set that says how (the registry's `decimals`): its amount, where
 * its decimals come from, and the time given an ISO column.
 */
const plans: Readonly<Record<string, Dataset.Decimals>> = Object.fromEntries(
  Registry.list(Registry.library)
    .flatMap((dataset) => (dataset.decimals === undefined ? [] : [[dataset.name, dataset.decimals] as const]))
    .sort(([a], [b]) => a.localeCompare(b))
)

/**
 * The data sets `withDecimals` takes (those of the registry that say how), in name order.
 *
 * @since 0.1.0
 * @category constants
 */
export const datasets: ReadonlyArray<string> = Object.keys(plans)

/** Decimals as a token may report them: a whole number 0..255 (uint8), else unknown. */
const decimalsOf = (value: unknown): number | undefined => {
  const n = typeof value === "number" ? value : typeof value === "string" && /^\d{1,3}$/.test(value) ? Number(value) : Number.NaN
  return Number.isInteger(n) && n >= 0 && n <= 255 ? n : undefined
}

/** An amount as a row holds it (bigint decoded, decimal text encoded), or undefined. */
const amountOf = (value: unknown): bigint | undefined => {
  if (typeof value === "bigint") return value
  if (typeof value === "string" && /^-?\d+$/.test(value)) return BigInt(value)
  return undefined
}

/** A decimal text the server already scaled, written by the policy of `scale`; null when it is not one. */
const normalized = (value: unknown): string | null => {
  if (typeof value !== "string") return null
  const match = /^(-?)(\d+)(?:\.(\d*))?$/.exec(value)
  if (match === null) return null
  const whole = (match[2] as string).replace(/^0+(?=\d)/, "")
  const fraction = (match[3] ?? "").replace(/0+$/, "")
  return `${match[1]}${whole}${fraction === "" ? "" : `.${fraction}`}`
}

/** The token's decimals from tokeninfo: undefined when it has no record of the token. */
const tokenDecimals = (chainId: number, contractAddress: string): Effect.Effect<number | undefined, StreamError, ExplorerClient> =>
  Effect.flatMap(ExplorerClient, (client) =>
    Effect.map(
      client.tokeninfo({ chainId, contractAddress }),
      (rows) => (rows[0] === undefined ? undefined : decimalsOf(rows[0].divisor))
    ))

/**
 * The source with readable amounts (see the module's table): the scaled amount beside the raw one, and
 * the ISO time beside the unix one. tokenHolders asks tokeninfo for the token's decimals once, here.
 * Fails with `InvalidInputError` for a data set it does not know.
 *
 * @example
 * const holders = yield* Sources.withDecimals(yield* Sources.tokenHolders({ contractAddress: token }))
 *
 * @since 0.1.0
 * @category combinators
 */
export const withDecimals = <A, I, E, R>(
  source: Source<A, I, E, R>
): Effect.Effect<Source<A & ReadableColumns, I & ReadableColumns, E, R>, StreamError, ExplorerClient> =>
  Effect.gen(function*() {
    const chainId = typeof source.chainId === "number" ? source.chainId : source.chainId.chainIds[0] ?? 0
    const plan = plans[source.dataset]
    const struct = source.schema as unknown as { readonly fields?: Schema.Struct.Fields }
    if (plan === undefined || struct.fields === undefined || !(plan.amount in struct.fields)) {
      return yield* new InvalidInputError({
        chainId,
        module: "readable",
        action: "decimals",
        parameter: "decimals",
        detail: `amounts with decimals are for ${datasets.join(", ")}; not for ${source.dataset}`
      })
    }
    const scaledColumn = `${plan.amount}Scaled`
    const isoColumn = plan.time === undefined ? undefined : `${plan.time}Iso`
    let fixed: number | undefined
    let decimalsQuery: Readonly<Record<string, unknown>>
    if (plan.decimals._tag === "TokenInfo") {
      const token = String(source.query[plan.decimals.tokenField] ?? "")
      fixed = yield* tokenDecimals(chainId, token)
      decimalsQuery = { from: "tokeninfo", value: fixed ?? null }
    } else if (plan.decimals._tag === "Server") {
      decimalsQuery = { from: "server" }
    } else {
      decimalsQuery = { from: plan.decimals.field }
    }
    const decimalsField = plan.decimals._tag === "Field" ? plan.decimals.field : undefined

    const fields: Record<string, Schema.Struct.Fields[string]> = {}
    for (const [name, field] of Object.entries(struct.fields)) {
      fields[name] = field
      if (name === plan.amount) fields[scaledColumn] = Schema.NullOr(Schema.String)
      if (name === plan.time && isoColumn !== undefined) fields[isoColumn] = Schema.String
    }
    const schema = Schema.Struct(fields) as unknown as Schema.Schema<A & ReadableColumns, I & ReadableColumns>

    // The same for decoded and encoded rows: amounts and decimals are read in either form.
    const serverScaled = plan.decimals._tag === "Server"
    const add = <Row>(row: Row): Row & ReadableColumns => {
      const r = row as Readonly<Record<string, unknown>>
      const decimals = decimalsField === undefined ? fixed : decimalsOf(r[decimalsField])
      const amount = amountOf(r[plan.amount])
      const scaled = serverScaled
        ? normalized(r[plan.amount])
        : decimals === undefined || amount === undefined
        ? null
        : scale(amount, decimals)
      const out: Record<string, unknown> = { ...r, [scaledColumn]: scaled }
      if (isoColumn !== undefined && plan.time !== undefined) {
        const time = Number(r[plan.time])
        out[isoColumn] = Number.isSafeInteger(time) ? isoTime(time) : ""
      }
      return out as Row & ReadableColumns
    }
    const query = { ...source.query, decimals: decimalsQuery }
    if (source._tag === "Rows") {
      const { rows, ...info } = source
      return { ...info, query, schema, rows: (options) => Stream.map(rows(options), add) } satisfies RowSource<A & ReadableColumns, I & ReadableColumns, E, R>
    }
    const { batches, encodedBatches, lineBatches, ...info } = source
    return {
      ...info,
      query,
      schema,
      batches: (range, options) => Stream.map(batches(range, options), (batch) => ({ ...batch, rows: batch.rows.map(add) })),
      ...(encodedBatches === undefined ? {} : {
        encodedBatches: (range, options) => Stream.map(encodedBatches(range, options), (batch) => ({ ...batch, rows: batch.rows.map(add) }))
      }),
      ...(lineBatches === undefined ? {} : {
        lineBatches: <B, E2>(
          range: BlockRange,
          lines: (rows: ReadonlyArray<I & ReadableColumns>) => Either.Either<ReadonlyArray<B>, E2>,
          options?: StreamOptions
        ) => lineBatches(range, (rows) => lines(rows.map(add)), options)
      })
    } satisfies BlockSource<A & ReadableColumns, I & ReadableColumns, E, R>
  })
