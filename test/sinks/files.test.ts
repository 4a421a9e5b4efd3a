/**
 * A data file being written (sinks/Files.ts `openData`): whatever mix of texts and bytes is appended,
 * of whatever sizes (beside, across and beyond its buffer, characters of 1 to 4 bytes cut at its end),
 * with flushes and syncs in between, the file holds exactly those bytes, in order, and its content hash
 * is theirs.
 */
import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc } from "effect"
import { createHash } from "node:crypto"
import { openData } from "../../src/sinks/Files.js"

type Step =
  | { readonly _tag: "texts"; readonly texts: ReadonlyArray<string> }
  | { readonly _tag: "bytes"; readonly bytes: Uint8Array }
  | { readonly _tag: "flush" }
  | { readonly _tag: "sync" }

// Texts of ASCII runs and characters of 2 to 4 bytes, from a few bytes to well past the 128 KB buffer.
const text = fc.tuple(fc.integer({ min: 0, max: 200_000 }), fc.constantFrom("", "é", "€", "😀", "é€😀"), fc.integer({ min: 0, max: 5_000 }))
  .map(([ascii, mark, repeat]) => "a".repeat(ascii) + mark.repeat(repeat))
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.array(text, { minLength: 1, maxLength: 4 }).map((texts) => ({ _tag: "texts" as const, texts })) },
  {
    weight: 2,
    arbitrary: fc.integer({ min: 1, max: 300_000 }).map((n) => ({ _tag: "bytes" as const, bytes: Uint8Array.from({ length: n }, (_, i) => i % 251) }))
  },
  { weight: 1, arbitrary: fc.constant({ _tag: "flush" as const }) },
  { weight: 1, arbitrary: fc.constant({ _tag: "sync" as const }) }
)

describe("openData", () => {
  it.effect("the file holds every appended text and byte in order, and its hash is theirs", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      let run = 0
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(fc.array(step, { maxLength: 12 }), (steps) =>
            Effect.runPromise(Effect.scoped(Effect.gen(function*() {
              const path = `${dir}/data-${run++}`
              const file = yield* openData(path, 0)
              const expected: Array<Uint8Array> = []
              for (const s of steps) {
                if (s._tag === "texts") {
                  yield* file.appendTexts(s.texts)
                  for (const t of s.texts) expected.push(new TextEncoder().encode(t))
                } else if (s._tag === "bytes") {
                  yield* file.appendBytes(s.bytes)
                  expected.push(s.bytes)
                } else if (s._tag === "flush") yield* file.flush
                else yield* file.sync
              }
              yield* file.sync
              const want = Buffer.concat(expected)
              const got = yield* fs.readFile(path)
              expect(file.bytes()).toBe(want.length)
              expect(Buffer.from(got).equals(want)).toBe(true)
              expect(file.contentHash()).toBe(`sha256:${createHash("sha256").update(want).digest("hex")}`)
            })).pipe(Effect.provide(NodeContext.layer)))
          ),
          { numRuns: 40 }
        )
      )
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer)), 120_000)
})
