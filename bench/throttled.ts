/**
 * The throttled PRO operations (2 calls/s on every plan) flat out: `tokenbalancehistory` and
 * `balancehistory` from several fibers at once for a fixed time, against the bench simulator enforcing
 * its windows. Reports the calls as sent (rate, most in any second) and the client's counters.
 *
 * Args: --base-url URL --key KEY --plan PLAN --token A --holder A --block N [--seconds 15] [--fibers 4]
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Client from "../src/ExplorerClient.js"
import type * as Plan from "../src/Plan.js"
import { arg, args, emit, round } from "./lib.js"
import { rateOf, recordingHttp } from "./timing.js"

const a = args()
const seconds = Number(a.seconds ?? "15")
const fibers = Number(a.fibers ?? "4")
const token = arg(a, "token")
const holder = arg(a, "holder")
const block = Number(arg(a, "block"))

const sent: Array<number> = []
const ClientLive = Client.layer({
  apiKey: Redacted.make(arg(a, "key")),
  baseUrl: arg(a, "base-url"),
  plan: arg(a, "plan") as Plan.Plan
}).pipe(Layer.provide(recordingHttp(sent)))

const program = Effect.gen(function*() {
  const client = yield* Client.ExplorerClient
  let answered = 0
  let failed = 0
  const worker = (n: number) =>
    Effect.forever(
      (n % 2 === 0
        ? client.tokenbalancehistory({ chainId: 1, contractAddress: token, address: holder, blockNo: block })
        : client.balancehistory({ chainId: 1, address: holder, blockNo: block })).pipe(
          Effect.match({ onFailure: () => void failed++, onSuccess: () => void answered++ })
        )
    )
  const t0 = performance.now()
  yield* Effect.forEach(Array.from({ length: fibers }, (_, i) => i), worker, { concurrency: "unbounded", discard: true }).pipe(
    Effect.timeout(Duration.seconds(seconds)),
    Effect.ignore
  )
  const elapsed = (performance.now() - t0) / 1000
  return {
    operations: ["tokenbalancehistory", "balancehistory"],
    fibers,
    seconds: round(elapsed, 3),
    answered,
    failed,
    rate: rateOf(sent),
    client: yield* client.stats
  }
})

Effect.runPromise(program.pipe(Effect.provide(ClientLive))).then(emit, (error: unknown) => {
  process.stderr.write(`${String(error)}\n`)
  process.exit(1)
})
