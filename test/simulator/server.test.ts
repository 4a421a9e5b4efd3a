import { describe, expect, it } from "@effect/vitest"
import { Console, Effect, Fiber } from "effect"
import { request as httpRequest } from "node:http"
import * as Plan from "../../src/Plan.js"
import * as Texts from "../../src/simulator/texts.js"
import { Core } from "../../src/simulator/core.js"
import * as Simulator from "../../src/simulator/index.js"
import { get, sleepReal } from "./helpers.js"

/** The current Console, except that `log` keeps what is printed. */
const capture = (lines: Array<string>): Effect.Effect<Console.Console> =>
  Console.consoleWith((base) =>
    Effect.succeed({
      ...base,
      log: (...args: ReadonlyArray<unknown>) => Effect.sync(() => void lines.push(args.map(String).join(" ")))
    })
  )

describe("serve", () => {
  it.live("prints the base URL and the demo keys, serves until interrupted", () =>
    Effect.gen(function*() {
      const lines: Array<string> = []
      const console = yield* capture(lines)
      const fiber = yield* Effect.fork(Simulator.serve({ seed: 2, keys: { SECRETKEY0000000000000000000000000: "proplus" } }).pipe(Effect.withConsole(console)))
      for (let k = 0; k < 250 && lines.length === 0; k++) yield* sleepReal(20)
      const text = lines.join("\n")
      const baseUrl = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(text)?.[1]
      expect(baseUrl).toBeDefined()
      for (const plan of Plan.plans) expect(text).toContain(Simulator.demoKeys[plan])
      expect(text).not.toContain("SECRETKEY")
      const answer = yield* get(`${baseUrl}/v2/api?chainid=1&module=stats&action=ethsupply&apikey=SECRETKEY0000000000000000000000000`)
      expect(JSON.parse(answer.text).status).toBe("1")
      yield* Fiber.interrupt(fiber)
      const after = yield* Effect.either(Effect.tryPromise(() => fetch(`${baseUrl}/v2/api`)))
      expect(after._tag).toBe("Left")
    }))
})

describe("HTTP details", () => {
  it.scoped("POST with a form body (chainid only from the query), unknown paths, the chain list", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.make({ seed: 2 })
      const post = (query: string, body: string) =>
        Effect.promise(() =>
          fetch(`${sim.baseUrl}/v2/api?${query}`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body
          }).then((r) => r.json() as Promise<{ status: string; result: unknown }>)
        )
      const ok = yield* post("chainid=1", `module=stats&action=ethsupply&apikey=${sim.demoKeys.free}`)
      expect(ok.status).toBe("1")
      const bodyChain = yield* post("", `chainid=1&module=stats&action=ethsupply&apikey=${sim.demoKeys.free}`)
      expect(bodyChain.result).toBe(Texts.UNSUPPORTED_CHAIN)
      expect((yield* get(`${sim.baseUrl}/nope`)).status).toBe(404)
      const list = JSON.parse((yield* get(`${sim.baseUrl}/v2/chainlist`)).text)
      expect(list.totalcount).toBe(list.result.length)
      expect(list.result[0]).toMatchObject({ chainname: "Ethereum Mainnet", chainid: "1", status: 1 })
    }))

  it.scoped("a POST body over 1 MB is answered 413, with or without its length announced; one under it is read", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.make({ seed: 2 })
      const form = `module=stats&action=ethsupply&apikey=${sim.demoKeys.free}&pad=`
      // node:http rather than fetch: the server answers 413 before the body has all arrived and closes the
      // connection, which fetch reports as a failed upload; the answer's status is what is checked.
      const send = (body: string, announced: boolean) =>
        Effect.async<{ status: number; text: string }, Error>((resume) => {
          const bytes = Buffer.from(body)
          let answered = false
          const request = httpRequest(`${sim.baseUrl}/v2/api?chainid=1`, {
            method: "POST",
            headers: {
              "content-type": "application/x-www-form-urlencoded",
              // Without a length the body is sent chunked: its size known only once it has all arrived.
              ...(announced ? { "content-length": String(bytes.length) } : {})
            }
          }, (response) => {
            answered = true
            let text = ""
            response.setEncoding("utf8").on("data", (d: string) => void (text += d))
            response.on("end", () => resume(Effect.succeed({ status: response.statusCode ?? 0, text })))
            response.on("error", () => resume(Effect.succeed({ status: response.statusCode ?? 0, text })))
          })
          request.on("error", (e) => {
            if (!answered) resume(Effect.fail(e))
          })
          for (let i = 0; i < bytes.length; i += 64 * 1024) request.write(bytes.subarray(i, i + 64 * 1024))
          request.end()
        })
      const under = yield* send(form + "x".repeat(1024 * 1024 - form.length - 16), true)
      expect(under.status).toBe(200)
      expect(JSON.parse(under.text).status).toBe("1")
      for (const announced of [true, false]) {
        const over = yield* send(form + "x".repeat(2 * 1024 * 1024), announced)
        expect(over.status, `announced: ${announced}`).toBe(413)
      }
    }))

  it("download URLs expire after five minutes", () => {
    const core = new Core({ seed: 2 })
    core.baseUrl = "http://sim.test"
    const now = Date.UTC(2025, 5, 1)
    const { answer } = core.handle({ chainid: "1", module: "nametag", action: "getlabelmasterlist", apikey: Simulator.demoKeys.proplus }, "ip", now)
    expect(answer._tag).toBe("body")
    const url = answer._tag === "body" ? (JSON.parse(answer.body) as { result: string }).result : ""
    const file = url.slice("http://sim.test/downloads/".length).split("?")[0] ?? ""
    const fresh = core.download(file, now + 4 * 60_000)
    expect(fresh._tag === "body" && fresh.status).toBe(200)
    const stale = core.download(file, now + 5 * 60_000 + 1)
    expect(stale._tag === "body" && stale.status).toBe(403)
    expect(stale._tag === "body" && stale.body).toContain("Request has expired")
  })
})
