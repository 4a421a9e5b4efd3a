/**
 * The script of a decoding worker thread (workerPool.ts starts it): a list answer's bytes in, the
 * file's lines out — the very steps the main thread takes in `fileRecordsMapped` (the text decoded
 * piece by piece, parsed a slice at a time, every record checked and transcoded to the file schema's
 * encoding, each slice written as the file's lines by the sinks' encoder), with the lines given back
 * as one buffer of UTF-8 bytes, where each line ends and the block of each. On anything those steps
 * are unsure of (not a plain list, a torn body, a record the checks refuse, a line the encoder refuses)
 * the worker gives the bytes back untouched and the main thread reads the answer as it always has, so
 * that every error is the one it gives.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { parentPort } from "node:worker_threads"
import type { ListOperationName } from "../ExplorerClient.js"
import * as Schemas from "../schemas/index.js"
import * as Format from "../sinks/Format.js"
import * as FileRecords from "./fileRecords.js"
import { textPieces } from "./textPieces.js"
import type { Job, Reply } from "./workerPool.js"

/** The file lines of a page, appended line by line into a growing buffer of UTF-8 bytes. */
class LineBuffer {
  bytes: Uint8Array
  used = 0
  readonly ends: Array<number> = []
  readonly blocks: Array<number> = []
  private readonly encoder = new TextEncoder()
  constructor(capacity: number) {
    this.bytes = new Uint8Array(Math.max(1024, capacity))
  }
  push(line: string, block: number): void {
    for (;;) {
      const { read, written } = this.encoder.encodeInto(line, this.bytes.subarray(this.used))
      if (read === line.length) {
        this.used += written
        break
      }
      // Not enough room: grown (at least a line's worst case more), the line written again whole.
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.used + line.length * 3))
      grown.set(this.bytes.subarray(0, this.used))
      this.bytes = grown
    }
    this.ends.push(this.used)
    this.blocks.push(block)
  }
}

type Encoder = Format.RowEncoder<unknown>

const codecOf = FileRecords.makeCodecs()
const encoders = new Map<string, Encoder>()

/** The file schema a job names (an export of `Schemas`), if it is a record schema. */
const schemaOf = (name: string): Schema.Schema.AnyNoContext | undefined => {
  const schema: unknown = (Schemas as Record<string, unknown>)[name]
  return Schema.isSchema(schema) ? (schema as Schema.Schema.AnyNoContext) : undefined
}

/** The sinks' encoder of rows already in the file schema's encoding, built once per schema and format. */
const encoderOf = (job: Job, schema: Schema.Schema.AnyNoContext): Encoder | undefined => {
  const key = `${job.schema}:${job.format}:${job.formulaGuard}`
  let encoder = encoders.get(key)
  if (encoder === undefined) {
    const made = Effect.runSync(Effect.either(
      Format.encodedEncoder(schema as Schema.Schema<unknown, unknown, never>, { format: job.format, formulaGuard: job.formulaGuard })
    ))
    if (Either.isLeft(made)) return undefined
    encoder = made.right
    encoders.set(key, encoder)
  }
  return encoder
}

/**
 * The body in chunks as a connection brings them (64 KB): decoded one at a time, its text is held a
 * slice at a time, never as one string of the whole answer (a 10,000-row page: ~6.5 MB).
 */
const chunksOf = (body: Uint8Array): Array<Uint8Array> => {
  const out: Array<Uint8Array> = []
  for (let at = 0; at < body.length; at += CHUNK_BYTES) out.push(body.subarray(at, at + CHUNK_BYTES))
  return out
}
const CHUNK_BYTES = 64 * 1024

/** The lines of a job's answer, or undefined when the main thread is to read it. */
const linesOf = (job: Job): LineBuffer | undefined => {
  const schema = schemaOf(job.schema)
  if (schema === undefined) return undefined
  const { transcode } = codecOf(job.operation as ListOperationName, schema)
  const encoder = encoderOf(job, schema)
  if (transcode === undefined || encoder === undefined) return undefined
  const out = new LineBuffer(job.body.byteLength)
  const steps = FileRecords.sliceSteps(textPieces(chunksOf(new Uint8Array(job.body))), (records) => {
    const rows = transcode(records) as ReadonlyArray<Record<string, unknown>> | undefined
    if (rows === undefined) return undefined
    const lines = encoder.lines(rows)
    // The main thread's encoder gives the failure its file's name.
    if (Either.isLeft(lines)) return undefined
    for (let i = 0; i < rows.length; i++) out.push(lines.right[i] as string, Number((rows[i] as Record<string, unknown>).blockNumber))
    return Either.right([])
  })
  let step = steps.next()
  while (step.done !== true) step = steps.next()
  return step.value?._tag === "Sliced" ? out : undefined
}

const port = parentPort
if (port === null) throw new Error("explorer-etl: linesWorker.js runs as a worker thread")

port.on("message", (job: Job) => {
  let reply: Reply
  let transfer: Array<ArrayBuffer>
  try {
    const lines = linesOf(job)
    if (lines === undefined) {
      reply = { id: job.id, _tag: "ReadOnMain", body: job.body }
      transfer = [job.body]
    } else {
      // A buffer much larger than its lines is cut to size here, not held so on the main thread.
      const bytes = lines.used * 8 < lines.bytes.length * 7 ? lines.bytes.slice(0, lines.used) : lines.bytes
      const ends = Uint32Array.from(lines.ends)
      const blocks = Float64Array.from(lines.blocks)
      reply = { id: job.id, _tag: "Lines", bytes: bytes.buffer as ArrayBuffer, used: lines.used, ends: ends.buffer, blocks: blocks.buffer }
      transfer = [reply.bytes, reply.ends, reply.blocks]
    }
  } catch (error) {
    // A bug, not an answer: the main thread reads the answer itself (and fails there as it would).
    reply = { id: job.id, _tag: "ReadOnMain", body: job.body, defect: String(error) }
    transfer = job.body.byteLength === 0 ? [] : [job.body]
  }
  port.postMessage(reply, transfer)
})
