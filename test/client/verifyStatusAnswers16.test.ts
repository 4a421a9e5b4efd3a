/**
 * checkverifystatus answers the simulator does not give, from a fake explorer: a status-1 text the
 * client does not know is a DecodeError, a status-0 one keeps the error its words say (a NotOkError
 * when none is known), a "Fail - …" sent with status 1 is still a failed verification; one request each.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import { clientOn, driven, fakeHttp, notOk, ok } from "./helpers.js"

describe("checkverifystatus answers the simulator does not give", () => {
  it.effect("a status-1 text it does not know is a DecodeError; a status-0 one keeps the error its words say; neither is retried", () =>
    Effect.gen(function*() {
      const guid = "ezq878u486pzijkvvmerl6a9mzwhv6sefgvqi5tkwceejc7tvsq"
      const cases = [
        { reply: ok("In progress"), tag: "DecodeError" },
        { reply: notOk("Unable to verify"), tag: "NotOkError" },
        { reply: notOk("Invalid API Key"), tag: "InvalidApiKeyError" },
        { reply: ok("Fail - Unable to verify"), tag: "Failed" }
      ] as const
      for (const c of cases) {
        const fake = fakeHttp(() => c.reply)
        const client = yield* clientOn(fake)
        const got = yield* Effect.exit(driven(client.checkverifystatus({ guid })))
        expect(Exit.match(got, { onFailure: (cause) => Cause.squash(cause), onSuccess: (state) => state }), c.tag).toMatchObject({ _tag: c.tag })
        expect(fake.seen).toHaveLength(1)
        expect(fake.seen[0]?.params).toMatchObject({ module: "contract", action: "checkverifystatus", guid })
      }
    }).pipe(Effect.scoped))
})
