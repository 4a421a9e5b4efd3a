/**
 * Compressed answers: the client asks for gzip or brotli (a 10,000-row page is ~9 MB of text, a
 * tenth of that compressed) and decodes the body as its bytes come, so a slice reader gets the
 * decompressed chunks as it got the plain ones.
 *
 * A fetch-based `HttpClient` (browsers, `FetchHttpClient`) decodes the body itself and keeps the
 * `Content-Encoding` header; undici and node:http hand over the bytes as sent. Which one it was shows
 * in the first byte: a gzip stream begins with 0x1f 0x8b, and a brotli stream never begins with `{`
 * (an empty stream with bits set in its padding) nor `<` (a reserved bit set) — the first byte of every
 * answer of the API (a JSON object) and of an HTML error page. Such a body is read as it came.
 */
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { createBrotliDecompress, createGunzip } from "node:zlib"

/** The `Accept-Encoding` of every API request. */
export const ACCEPT_ENCODING = "gzip, br"

type Encoding = "gzip" | "br"

/** The encoding a `Content-Encoding` header names, if it is one the client decodes. */
const encodingOf = (header: string | undefined): Encoding | undefined => {
  const value = header?.trim().toLowerCase()
  return value === "gzip" || value === "x-gzip" ? "gzip" : value === "br" ? "br" : undefined
}

/** Whether a body labelled `encoding` whose first chunk is `first` was decoded already (see the module doc). */
const decodedAlready = (encoding: Encoding, first: Uint8Array): boolean =>
  encoding === "gzip" ? first[0] !== 0x1f || (first.length > 1 && first[1] !== 0x8b) : first[0] === 0x7b || first[0] === 0x3c

/**
 * The body of a response as plain bytes, decoded chunk by chunk as they arrive when its
 * `Content-Encoding` is gzip or br; a body that cannot be decoded (cut, corrupt) fails with a
 * `ResponseError` (reason "Decode"), as a body cut mid-way does.
 */
export const plainBody = (
  response: HttpClientResponse.HttpClientResponse
): Stream.Stream<Uint8Array, HttpClientError.ResponseError> => {
  const encoding = encodingOf(response.headers["content-encoding"])
  if (encoding === undefined) return response.stream
  const failure = (cause: unknown) =>
    new HttpClientError.ResponseError({
      request: response.request,
      response,
      reason: "Decode",
      cause,
      description: `the ${encoding} body could not be decoded`
    })
  return Stream.asyncPush<Uint8Array, HttpClientError.ResponseError>((emit) =>
    Effect.gen(function*() {
      const inflater = encoding === "gzip" ? createGunzip() : createBrotliDecompress()
      inflater.on("data", (piece: Buffer) => void emit.single(new Uint8Array(piece.buffer, piece.byteOffset, piece.byteLength)))
      inflater.on("end", () => emit.end())
      inflater.on("error", (cause) => emit.fail(failure(cause)))
      yield* Effect.addFinalizer(() => Effect.sync(() => inflater.destroy()))
      // Undecided until the first chunk; then either decoded or passed on as it came.
      let passThrough: boolean | undefined
      const write = (chunk: Uint8Array) =>
        Effect.async<void>((resume) => {
          if (chunk.length === 0) return resume(Effect.void)
          passThrough ??= decodedAlready(encoding, chunk)
          if (passThrough) {
            emit.single(chunk)
            return resume(Effect.void)
          }
          if (inflater.write(chunk)) resume(Effect.void)
          else inflater.once("drain", () => resume(Effect.void))
        })
      yield* response.stream.pipe(
        Stream.runForEach(write),
        Effect.matchCause({
          onSuccess: () => (passThrough === false ? inflater.end() : emit.end()),
          onFailure: (cause) => emit.halt(cause)
        }),
        Effect.forkScoped
      )
    }), { bufferSize: "unbounded" })
}
