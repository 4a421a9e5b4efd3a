/**
 * The text of a body's bytes, piece by piece (`textPieces`): what the transport and the decoding
 * workers read list answers from, in a module of its own so that a worker loads no HTTP client.
 */

/**
 * How many bytes at the end of `chunk` begin a UTF-8 character that it does not finish (0 to 3): they
 * are decoded with the next chunk.
 */
const unfinished = (chunk: Uint8Array): number => {
  for (let back = 1; back <= 3 && back <= chunk.length; back++) {
    const byte = chunk[chunk.length - back] as number
    // ASCII ends a character; a byte that leads no character is the decoder's to replace.
    if (byte < 0x80 || byte >= 0xf5) return 0
    if (byte >= 0xc0) return (byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2) > back ? back : 0
  }
  return 0
}

/**
 * The most bytes decoded into one string. A string over V8's large-object size (128 KB) is made in its
 * own pages: decoding a 750 KB body in one piece took 2.5 ms here, in pieces of 32 KB 0.065 ms. A body
 * comes off a socket in chunks of 16-64 KB, but a whole body may come as one chunk (a body handed to a
 * decoding worker, undici's MockAgent). 32 KB: a piece with characters past Latin-1 takes two bytes a
 * character and stays under it too.
 */
const PIECE_BYTES = 32 * 1024

/**
 * The text of a body's bytes, decoded piece by piece as a slice reader asks for it: the pieces of a
 * large answer (a 10,000-row page is ~9 MB) are read without a string of the whole body, which would
 * live as long as the records read from it. UTF-8 as `response.text` decodes it (a byte-order mark
 * dropped, invalid bytes replaced). Each chunk is cut into pieces of at most {@link PIECE_BYTES}, each
 * cut after its last whole character and decoded on its own (the decoder's streaming mode is several
 * times slower), the bytes of a character it splits going with the next one.
 */
export function* textPieces(chunks: ReadonlyArray<Uint8Array>): Generator<string, void, void> {
  const first = new TextDecoder()
  const rest = new TextDecoder("utf-8", { ignoreBOM: true })
  let started = false
  let carried: Uint8Array | undefined
  for (const whole of chunks) for (let at = 0; at < whole.length; at += PIECE_BYTES) {
    const chunk = whole.length <= PIECE_BYTES ? whole : whole.subarray(at, at + PIECE_BYTES)
    let bytes = chunk
    if (carried !== undefined) {
      bytes = new Uint8Array(carried.length + chunk.length)
      bytes.set(carried)
      bytes.set(chunk, carried.length)
      carried = undefined
    }
    const cut = bytes.length - unfinished(bytes)
    if (cut < bytes.length) carried = bytes.slice(cut)
    if (cut === 0) continue
    // A byte-order mark is dropped at the start of the body only.
    const piece = (started ? rest : first).decode(bytes.subarray(0, cut))
    started = true
    if (piece !== "") yield piece
  }
  if (carried !== undefined) yield (started ? rest : first).decode(carried)
}

