/**
 * The files of an export and the durable primitives that write them. {@link layout} names every file an
 * export to `out` keeps — the file, its manifest, checkpoint and lock beside it, the temporary file it is
 * written into, the spools of its partitions — and is the only place those names are spelled. The
 * primitives: a buffered, hashing, fsync-able data file, an atomic small-file write (temporary file +
 * fsync + rename + folder fsync), and a streaming sha256 of a file.
 *
 * A rename is atomic on POSIX file systems within one folder, so every temporary file lives beside its
 * target. Folder fsyncs make the rename itself durable; they are best effort (Windows cannot open a
 * folder for syncing, and nothing is lost there but the durability of the rename across a power cut).
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { createHash, type Hash } from "node:crypto"
import { fileSystemError, type SinkError } from "./SinkError.js"

// ---------------------------------------------------------------------------------------------------------
// The layout of an export: every file name spelled once

/** `<out>.manifest.json`: what the published file holds (see `Manifest`). */
export const manifestPath = (out: string): string => `${out}.manifest.json`

/** `<out>.state.json`: the checkpoint of a block-ordered export (see `Checkpoint`). */
export const statePath = (out: string): string => `${out}.state.json`

/** `<out>.lock`: one writer per output (see `Lock`). */
export const lockPath = (out: string): string => `${out}.lock`

/** `.<name>.partial`: the file being written, beside `<name>`; it becomes the output by a rename. */
export const partialName = (name: string): string => `.${name}.partial`

/** `.<name>.tmp`: a small file being written atomically (`writeAtomic`), beside `<name>`. */
export const tmpName = (name: string): string => `.${name}.tmp`

/** `<tempName>.p<index>`: the spool of partition or part `index`, beside the temporary file. */
export const spoolName = (tempName: string, index: number): string => `${tempName}.p${index}`

/** `<spool>.tmp`: a part's spool being written (its own spools are named after it), renamed once complete. */
export const partTempName = (spoolFile: string): string => `${spoolFile}.tmp`

/** The index of spool `file` of the temporary file `tempName`, or `undefined` when it is not one of its spools. */
export const spoolIndex = (tempName: string, file: string): number | undefined => {
  const prefix = `${tempName}.p`
  const digits = file.startsWith(prefix) ? file.slice(prefix.length) : ""
  return /^\d+$/.test(digits) ? Number(digits) : undefined
}

/** The files of one export, all in the output's folder so that every rename is atomic. */
export interface Layout {
  /** The published file. */
  readonly out: string
  /** Its folder, where every companion lives. */
  readonly folder: string
  /** `.<name>.partial`: the file being written; it becomes `out` by a rename once complete. */
  readonly tempName: string
  readonly temp: string
  /** `<out>.state.json`: the checkpoint. */
  readonly statePath: string
  /** `<out>.manifest.json`: the manifest. */
  readonly manifestPath: string
  /** `<out>.lock`: the lock. */
  readonly lockPath: string
}

/** The files of an export to `out`. */
export const layout = (path: Path.Path, out: string): Layout => {
  const folder = path.dirname(out)
  const tempName = partialName(path.basename(out))
  return {
    out,
    folder,
    tempName,
    temp: path.join(folder, tempName),
    statePath: statePath(out),
    manifestPath: manifestPath(out),
    lockPath: lockPath(out)
  }
}

/** A published export's files: the file, its manifest and its checkpoint (what moves when it moves). */
export const publishedFiles = (out: string): ReadonlyArray<string> => [out, manifestPath(out), statePath(out)]

// ---------------------------------------------------------------------------------------------------------
// Durable primitives

/**
 * Written bytes are gathered in a buffer of this size, made once per open file, and written when it is
 * full. Texts are encoded straight into it: a page's text encoded on its own (~1 MB of log lines) made an
 * array over the allocator's large size, with its own pages, several times slower to make than to fill.
 */
const bufferLimit = 128 * 1024

const textEncoder = new TextEncoder()

/** `sha256:<hex>` of a digest. */
const hashText = (hash: Hash): string => `sha256:${hash.digest("hex")}`

/**
 * An open data file being written: appends are buffered and hashed, `sync` makes everything appended so
 * far durable. `bytes` counts every byte appended (the file's length once flushed).
 * Used by one fiber at a time.
 */
export interface DataFile {
  readonly path: string
  /** Bytes appended so far, including the buffered ones. */
  readonly bytes: () => number
  readonly append: (text: string) => Effect.Effect<void, SinkError>
  /** Appends texts one after the other (as `append` of their concatenation, without making it). */
  readonly appendTexts: (texts: ReadonlyArray<string>) => Effect.Effect<void, SinkError>
  /** Appends bytes as they are (a spool's content copied into the file). */
  readonly appendBytes: (chunk: Uint8Array) => Effect.Effect<void, SinkError>
  /** Writes the buffer out (no fsync). */
  readonly flush: Effect.Effect<void, SinkError>
  /** Writes the buffer out and fsyncs the file. */
  readonly sync: Effect.Effect<void, SinkError>
  /** `sha256:<hex>` of the whole file as appended (call once, after the last append); "" for an unhashed file. */
  readonly contentHash: () => string
}

/** A hash that hashes nothing: for files whose content is copied elsewhere, never published (spools). */
const noHash = { update: () => noHash, copy: () => noHash, digest: () => "" } as unknown as Hash

/**
 * Opens `path` for writing at `start` bytes, truncating anything after (a torn tail past the last
 * checkpoint). The content hash continues `prefix` when the caller already hashed the first `start`
 * bytes (`copyHashed`), else those bytes are read back and hashed; `"unhashed"`: no hash at all (a
 * spool, whose bytes are hashed where they are copied to). `start = 0` creates or empties the file. After a failed write the file refuses to sync, so no checkpoint can count bytes that may be
 * missing. The file is closed with the scope.
 */
export const openData = (
  path: string,
  start: number,
  prefix?: Hash | "unhashed"
): Effect.Effect<DataFile, SinkError, FileSystem.FileSystem | Scope.Scope> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const hash = prefix === "unhashed" ? noHash : prefix ?? createHash("sha256")
    const file = yield* fs.open(path, { flag: start === 0 ? "w" : "r+" }).pipe(
      Effect.mapError(fileSystemError(path, "opening the temporary file"))
    )
    if (start > 0) {
      yield* file.truncate(start).pipe(Effect.mapError(fileSystemError(path, "truncating to the last checkpoint")))
      yield* file.seek(start, "start")
      if (prefix === undefined) {
        yield* fs.stream(path, { bytesToRead: start }).pipe(
          Stream.runForEach((chunk) => Effect.sync(() => hash.update(chunk))),
          Effect.mapError(fileSystemError(path, "reading the checkpointed part"))
        )
      }
    }
    let bytes = start
    let buffer: Uint8Array | undefined
    let used = 0
    /** The buffer whose bytes are being written: not filled again until the write is over. */
    let writing: Uint8Array | undefined
    let broken: SinkError | undefined
    /** The buffer to fill: made at the first append, and again only if a write of it is still under way. */
    const room = (): Uint8Array => {
      if (buffer === undefined || buffer === writing) buffer = new Uint8Array(bufferLimit)
      return buffer
    }
    const write = (chunk: Uint8Array): Effect.Effect<void, SinkError> =>
      file.writeAll(chunk).pipe(
        Effect.mapError(fileSystemError(path, "writing")),
        Effect.tapError((e) => Effect.sync(() => (broken = e)))
      )
    const flush: Effect.Effect<void, SinkError> = Effect.suspend(() => {
      if (broken !== undefined) return Effect.fail(broken)
      if (used === 0 || buffer === undefined) return Effect.void
      const full = buffer
      const chunk = full.subarray(0, used)
      used = 0
      writing = full
      return Effect.ensuring(write(chunk), Effect.sync(() => void (writing === full && (writing = undefined))))
    }).pipe(Effect.uninterruptible)
    const appendBytes = (chunk: Uint8Array): Effect.Effect<void, SinkError> =>
      Effect.suspend(() => {
        if (chunk.byteLength === 0) return Effect.void
        hash.update(chunk)
        bytes += chunk.byteLength
        // A chunk as large as the buffer goes as it is, after what the buffer holds.
        if (chunk.byteLength >= bufferLimit) return Effect.zipRight(flush, write(chunk))
        if (used + chunk.byteLength > bufferLimit) {
          return Effect.zipRight(flush, Effect.sync(() => void (room().set(chunk, used), (used += chunk.byteLength))))
        }
        room().set(chunk, used)
        used += chunk.byteLength
        return Effect.void
      }).pipe(Effect.uninterruptible)
    const appendTexts = (texts: ReadonlyArray<string>): Effect.Effect<void, SinkError> =>
      Effect.gen(function*() {
        if (broken !== undefined) return yield* Effect.fail(broken)
        for (let text of texts) {
          while (text.length > 0) {
            const into = room()
            const { read, written } = textEncoder.encodeInto(text, into.subarray(used))
            hash.update(into.subarray(used, used + written))
            used += written
            bytes += written
            // Room for no more of it (a character takes up to 4 bytes): write the buffer out.
            if (read < text.length) {
              text = text.slice(read)
              yield* flush
            } else text = ""
          }
        }
      }).pipe(Effect.uninterruptible)
    const append = (text: string): Effect.Effect<void, SinkError> => text.length === 0 ? Effect.void : appendTexts([text])
    const sync = flush.pipe(
      Effect.zipRight(file.sync.pipe(Effect.mapError(fileSystemError(path, "fsync")))),
      Effect.uninterruptible
    )
    const contentHash = () => (hash === noHash ? "" : hashText(hash.copy()))
    return { path, bytes: () => bytes, append, appendTexts, appendBytes, flush, sync, contentHash }
  })

/**
 * Copies `from` to a new file `to` (created or emptied) and fsyncs it: the base of an incremental run.
 * Returns the length and the running hash of the copy (still open for more data).
 */
export const copyHashed = (
  from: string,
  to: string
): Effect.Effect<{ readonly bytes: number; readonly hash: Hash }, SinkError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const hash = createHash("sha256")
    const file = yield* fs.open(to, { flag: "w" }).pipe(Effect.mapError(fileSystemError(to, "creating the temporary file")))
    let bytes = 0
    yield* fs.stream(from).pipe(
      Stream.mapError(fileSystemError(from, "reading the previous output")),
      Stream.runForEach((chunk) => {
        hash.update(chunk)
        bytes += chunk.byteLength
        return file.writeAll(chunk).pipe(Effect.mapError(fileSystemError(to, "writing")))
      })
    )
    yield* file.sync.pipe(Effect.mapError(fileSystemError(to, "fsync")))
    return { bytes, hash }
  }).pipe(Effect.scoped)

/** `sha256:<hex>` of a running hash, leaving it usable. */
export const digest = (hash: Hash): string => hashText(hash.copy())

/** `sha256:<hex>` of a file's content, streamed. */
export const hashFile = (path: string): Effect.Effect<string, SinkError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const hash = createHash("sha256")
    yield* fs.stream(path).pipe(
      Stream.runForEach((chunk) => Effect.sync(() => hash.update(chunk))),
      Effect.mapError(fileSystemError(path, "reading"))
    )
    return hashText(hash)
  })

/** fsyncs a folder so a rename into it survives a power cut; best effort (a no-op where unsupported). */
export const syncFolder = (folder: string): Effect.Effect<void, never, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const handle = yield* fs.open(folder, { flag: "r" })
    yield* handle.sync
  }).pipe(Effect.scoped, Effect.ignore)

/** Renames `from` over `to` (atomic within a folder) and fsyncs the folder. */
export const publish = (
  from: string,
  to: string
): Effect.Effect<void, SinkError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    yield* fs.rename(from, to).pipe(Effect.mapError(fileSystemError(to, `renaming ${path.basename(from)} into place`)))
    yield* syncFolder(path.dirname(to))
  })

/**
 * Writes a small file atomically: `.<name>.tmp` beside it, fsync, rename over `target`, fsync the
 * folder. A reader sees the old content or the new one, never a mix.
 */
export const writeAtomic = (
  target: string,
  text: string
): Effect.Effect<void, SinkError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const temp = path.join(path.dirname(target), tmpName(path.basename(target)))
    yield* Effect.gen(function*() {
      const file = yield* fs.open(temp, { flag: "w" })
      yield* file.writeAll(textEncoder.encode(text))
      yield* file.sync
    }).pipe(Effect.scoped, Effect.mapError(fileSystemError(temp, "writing")))
    yield* publish(temp, target)
  }).pipe(
    // Small and quick: an interruption waits for it rather than leave the temporary file behind.
    Effect.uninterruptible
  )

/** Removes a file if it exists; failures are ignored (cleanup after a failure must not hide the failure). */
export const removeQuietly = (path: string): Effect.Effect<void, never, FileSystem.FileSystem> =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.remove(path, { force: true })).pipe(Effect.ignore)

/** The size of a file, or none when it does not exist. */
export const sizeOf = (path: string): Effect.Effect<number | undefined, SinkError, FileSystem.FileSystem> =>
  Effect.flatMap(FileSystem.FileSystem, (fs) =>
    fs.stat(path).pipe(
      Effect.map((info): number | undefined => Number(info.size)),
      Effect.catchIf(
        (e) => e._tag === "SystemError" && e.reason === "NotFound",
        () => Effect.succeed(undefined)
      ),
      Effect.mapError(fileSystemError(path, "stat"))
    ))
