/**
 * A list operation's records as a file writes them (`fileRecords`, `fileRecordsMapped`): the answer's
 * records read a slice of text at a time, transcoded from the wire's encoding straight to the file
 * schema's (schemas/fastPath.ts), with the schemas' own way for whatever the transcoder is unsure of;
 * the codecs built once per operation and file schema.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type * as Errors from "../ExplorerError.js"
import type { ListOperationName, ResultOf } from "../ExplorerClient.js"
import * as Schemas from "../schemas/index.js"
import type * as Classify from "./classify.js"
import * as Decode from "./decode.js"
import type { SliceReader } from "./transport.js"

/** What a slice reader made of a list answer: the mapped records, or the mapping's own failure. */
export type Sliced<B = unknown, E = unknown> =
  | { readonly _tag: "Sliced"; readonly rows: ReadonlyArray<B> }
  | { readonly _tag: "SliceFailed"; readonly error: E }

/** The opening of a list answer as the API writes it (a message without escapes). */
const LIST_ANSWER = /^\{"status":"1","message":"[^"\\]*","result":\[/

/**
 * The text of records parsed at a time: their objects die young, before the next slice is parsed. Kept
 * under V8's large-object size (128 KB), so the slice's text (copied once when `[` and `]` are added)
 * is a young-generation string: with 256 KB slices a 1,000-row getLogs page took ~45 % longer to parse
 * than in one piece, with 48 KB about as long.
 */
const SLICE_CHARS = 48 * 1024

const isSpace = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9

/**
 * How far into a body the opening `{"status":"1","message":"…","result":[` is looked for: a body whose
 * first this many characters do not hold `"result":[` is read whole.
 */
const HEAD_CHARS = 4096

/**
 * The records of a list answer `{"status":"1","message":"…","result":[…]}` given as consecutive
 * pieces of its text (the body as it came off the connection, decoded piece by piece, so that no
 * string of the whole body is ever made), parsed about 48 KB of text at a time and handed to `each` in
 * order, which gives their mapped form, its own failure, or undefined (give up). A slice ends where one
 * record's `}` meets the next one's `{` (`},{`): the first such meeting 48 KB or more into what is left.
 * Such a cut inside a string or a nested value leaves the slice unparseable (an open string or
 * bracket), so when every slice parses, the slices are exactly the records of the whole answer.
 * Undefined (read the answer whole, which gives the usual classification and errors) when the body is
 * not that shape, a slice does not parse (a torn or malformed body), or `each` gives up. The slices do
 * not depend on how the text is cut into pieces.
 *
 * A generator that yields after each slice, so that its caller may give the event loop back between
 * two slices (the transport does, every few milliseconds).
 */
export function* sliceSteps<B, E>(
  pieces: Iterable<string>,
  each: (records: Array<unknown>) => Either.Either<ReadonlyArray<B>, E> | undefined
): Generator<void, Sliced<B, E> | undefined, void> {
  const next = pieces[Symbol.iterator]()
  /** The text read and not yet parsed. */
  let text = ""
  let ended = false
  const more = (): boolean => {
    const piece = next.next()
    if (piece.done === true) ended = true
    else text += piece.value
    return !ended
  }
  while (!text.includes(`"result":[`) && text.length < HEAD_CHARS && more());
  const head = LIST_ANSWER.exec(text)
  if (head === null) return undefined
  text = text.slice(head[0].length)
  const out: Array<B> = []
  const parse = (slice: string): Sliced<B, E> | undefined | "parsed" => {
    let records: unknown
    try {
      records = JSON.parse(`[${slice}]`)
    } catch {
      return undefined
    }
    const mapped = each(records as Array<unknown>)
    if (mapped === undefined) return undefined
    if (Either.isLeft(mapped)) return { _tag: "SliceFailed", error: mapped.left }
    for (const b of mapped.right) out.push(b)
    return "parsed"
  }
  // Where the next `},{` may start: 48 KB in, or where the last search left off (text only grows).
  let from = SLICE_CHARS
  while (!ended) {
    const cut = text.indexOf("},{", from)
    if (cut < 0) {
      from = Math.max(SLICE_CHARS, text.length - 2)
      more()
      continue
    }
    const parsed = parse(text.slice(0, cut + 1))
    if (parsed !== "parsed") return parsed
    text = text.slice(cut + 2)
    from = SLICE_CHARS
    yield
  }
  // The rest: the last records, then `]}`, which closes the list and the answer.
  let end = text.length
  while (end > 0 && isSpace(text.charCodeAt(end - 1))) end--
  if (end < 2 || text.charCodeAt(end - 1) !== 125 || text.charCodeAt(end - 2) !== 93) return undefined
  end -= 2
  // What is left over 48 KB is cut as above (the last piece may have brought several slices).
  while (end > 0) {
    const cut = text.indexOf("},{", SLICE_CHARS)
    const stop = cut < 0 || cut >= end ? end : cut + 1
    const parsed = parse(text.slice(0, stop))
    if (parsed !== "parsed") return parsed
    if (stop === end) break
    text = text.slice(stop + 1)
    end -= stop + 1
    yield
  }
  return { _tag: "Sliced", rows: out }
}

/** The codecs of one operation and file schema: the transcoder, and the schemas' way for what it leaves. */
interface FileCodec {
  readonly transcode: ((input: unknown) => ReadonlyArray<unknown> | undefined) | undefined
  readonly encodeRows: (rows: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<unknown>, ParseResult.ParseError>
}

/** A cache of {@link FileCodec}s, per operation and file schema, built at first use (one per client). */
export const makeCodecs = () => {
  const codecs = new Map<string, Map<unknown, FileCodec>>()
  return (name: ListOperationName, row: Schema.Schema.AnyNoContext): FileCodec => {
    let byRow = codecs.get(name)
    if (byRow === undefined) codecs.set(name, byRow = new Map())
    let codec = byRow.get(row)
    if (codec === undefined) {
      const wire = Decode.listRecord(Decode.Results[name])
      const file = "fields" in row && row.ast._tag === "TypeLiteral" ? (row as unknown as Schema.Struct<Schema.Struct.Fields>) : undefined
      codec = {
        transcode: wire === undefined || file === undefined ? undefined : Schemas.transcodeRecords(wire, file),
        encodeRows: Schema.encode(Schema.Array(row as Schema.Schema<unknown, unknown, never>))
      }
      byRow.set(row, codec)
    }
    return codec
  }
}

/**
 * The two steps of `fileRecordsMapped` for the client's pipeline: `slices` reads the answer's body
 * (undefined when there is no transcoder), `decode` makes `map`'s results of what the pipeline got —
 * the sliced records, an answer read whole, or the rows of a followed download link.
 */
export const steps = <K extends ListOperationName, I, B, E>(
  decoder: Decode.Decoder,
  codec: FileCodec,
  name: K,
  map: (records: ReadonlyArray<I>) => Either.Either<ReadonlyArray<B>, E>
): {
  readonly slices: SliceReader<Sliced<B, E>> | undefined
  readonly decode: (
    ctx: Classify.CallContext,
    got: Decode.Got<ResultOf<K>> | Sliced<B, E>
  ) => Effect.Effect<ReadonlyArray<B>, Errors.ExplorerError | E>
} => {
  const { encodeRows, transcode } = codec
  const schema = Decode.resultSchema(name)
  const fast = Decode.fastResult(name)
  const viaSchemas = (ctx: Classify.CallContext, rows: ResultOf<K>) =>
    encodeRows(rows as unknown as ReadonlyArray<unknown>).pipe(
      Effect.map((encoded) => encoded as ReadonlyArray<I>),
      Effect.mapError((error) => decoder.failure(ctx, "a record does not fit the file's schema", error))
    )
  // A slice the transcoder is unsure of sends the whole answer the long way (below).
  const slices: SliceReader<Sliced<B, E>> | undefined = transcode === undefined ? undefined : (pieces) =>
    sliceSteps(pieces, (records) => {
      const rows = transcode(records) as ReadonlyArray<I> | undefined
      return rows === undefined ? undefined : map(rows)
    })
  const whole = (ctx: Classify.CallContext, answer: Classify.Answer): Effect.Effect<ReadonlyArray<I>, Errors.ExplorerError> => {
    if (answer._tag === "Result" && transcode !== undefined) {
      const rows = transcode(answer.result) as ReadonlyArray<I> | undefined
      if (rows !== undefined) return Effect.succeed(rows)
    }
    // Anything the transcoder is not sure of goes the long way, which gives the usual errors.
    return Effect.flatMap(decoder.answer(ctx, schema, answer, fast), (rows) => viaSchemas(ctx, rows))
  }
  const decode = (
    ctx: Classify.CallContext,
    got: Decode.Got<ResultOf<K>> | Sliced<B, E>
  ): Effect.Effect<ReadonlyArray<B>, Errors.ExplorerError | E> => {
    if (got._tag === "Sliced") return Effect.succeed(got.rows)
    if (got._tag === "SliceFailed") return Effect.fail(got.error)
    const rows = got._tag === "Rows" ? viaSchemas(ctx, got.rows) : whole(ctx, got.answer)
    return Effect.flatMap(rows, (records) => map(records))
  }
  return { slices, decode }
}
