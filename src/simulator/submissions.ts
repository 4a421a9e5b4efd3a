/**
 * Verifications submitted while the simulator runs (contract/verifysourcecode, contract/verifyproxycontract):
 * each is answered with a GUID; a source verification waits in the queue until its status is first asked
 * for (that answer is "Pending in queue"), then it has passed or failed, and a passed one makes the
 * contract verified for getsourcecode and getabi. The simulator has no compiler: a submission passes when
 * its source declares the contract it names, and fails as a bytecode mismatch otherwise. A proxy
 * verification is decided when it is asked about: the proxy must be verified and hold an implementation.
 */
import { hash2, hash3, hashString } from "./hash.js"

/** A source the simulator accepted for a contract: what getsourcecode then answers. */
export interface SubmittedSource {
  readonly address: string
  readonly sourceCode: string
  readonly contractName: string
  readonly compilerVersion: string
  readonly optimizationUsed: string
  readonly runs: string
  readonly constructorArguments: string
  readonly evmVersion: string
  readonly licenseType: string
  /** The ABI read off the source's function and event declarations (JSON text). */
  readonly abi: string
}

/** What a status poll of a submission answers. */
export type SubmissionState =
  | { readonly _tag: "pending" }
  | { readonly _tag: "passed" }
  | { readonly _tag: "failed" }

interface SourceSubmission {
  readonly _tag: "source"
  readonly source: SubmittedSource
  readonly passes: boolean
  processed: boolean
}

interface ProxySubmission {
  readonly _tag: "proxy"
  readonly address: string
  readonly expectedImplementation: string | undefined
}

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
/** Etherscan's GUIDs are 50 characters of lower-case letters and digits. */
const GUID_LENGTH = 50

const SOLIDITY_TYPE = /^(address|bool|string|bytes\d*|u?int\d*)(\[\d*\])*$/

/** The parameters of a declaration's list, as ABI inputs: `(address to, uint256 value)` → two inputs. */
const paramsOf = (list: string, event: boolean): Array<Record<string, unknown>> =>
  list.split(",").map((p) => p.trim()).filter((p) => p !== "").flatMap((p) => {
    const words = p.split(/\s+/).filter((w) => !["memory", "calldata", "storage", "payable"].includes(w))
    const type = words[0] ?? ""
    if (!SOLIDITY_TYPE.test(type)) return []
    const indexed = words.includes("indexed")
    const name = words.filter((w) => w !== "indexed")[1] ?? ""
    return [event ? { indexed, internalType: type, name, type } : { internalType: type, name, type }]
  })

/** An ABI read off Solidity source: its functions (with their mutability and returns) and events. */
export const abiOfSource = (source: string): string => {
  const items: Array<Record<string, unknown>> = []
  for (const m of source.matchAll(/\bevent\s+(\w+)\s*\(([^)]*)\)/g)) {
    items.push({ anonymous: false, inputs: paramsOf(m[2] ?? "", true), name: m[1], type: "event" })
  }
  for (const m of source.matchAll(/\bfunction\s+(\w+)\s*\(([^)]*)\)([^{;]*)/g)) {
    const tail = m[3] ?? ""
    const mutability = /\bview\b/.test(tail) ? "view" : /\bpure\b/.test(tail) ? "pure" : /\bpayable\b/.test(tail) ? "payable" : "nonpayable"
    const returns = /\breturns\s*\(([^)]*)\)/.exec(tail)
    const outputs = paramsOf(returns?.[1] ?? "", false).map((o) => ({ ...o, name: "" }))
    items.push({ inputs: paramsOf(m[2] ?? "", false), name: m[1], outputs, stateMutability: mutability, type: "function" })
  }
  return JSON.stringify(items)
}

/** The contract a `contractname` names: `contracts/Vault.sol:Vault` → `Vault`. */
const bareName = (name: string): string => name.slice(name.lastIndexOf(":") + 1)

/** The verifications submitted to one chain while the simulator runs. */
export class Submissions {
  private readonly byGuid = new Map<string, SourceSubmission | ProxySubmission>()
  private readonly sources = new Map<string, SubmittedSource>()
  private serial = 0

  constructor(private readonly root: number) {}

  private guid(address: string): string {
    const base = hash3(this.root ^ 0x5b317, hashString(address), ++this.serial)
    let out = ""
    for (let i = 0; i < GUID_LENGTH; i++) out += ALPHABET[hash2(base, i) % ALPHABET.length]
    return out
  }

  /** Queue a source verification; its GUID. It passes if the source declares the named contract. */
  submitSource(source: Omit<SubmittedSource, "abi">): string {
    const name = bareName(source.contractName)
    const declares = new RegExp(`\\b(contract|library)\\s+${name.replace(/[^\w]/g, "")}\\b`).test(source.sourceCode)
    const g = this.guid(source.address)
    this.byGuid.set(g, {
      _tag: "source",
      source: { ...source, contractName: name, abi: abiOfSource(source.sourceCode) },
      passes: name !== "" && declares,
      processed: false
    })
    return g
  }

  /** Queue a proxy verification; its GUID. */
  submitProxy(address: string, expectedImplementation: string | undefined): string {
    const g = this.guid(address)
    this.byGuid.set(g, { _tag: "proxy", address, expectedImplementation })
    return g
  }

  /**
   * The state of a source verification: pending the first time it is asked about (the queue takes it
   * then), passed or failed afterwards; `undefined` for a GUID no source verification of this chain has.
   */
  pollSource(guid: string): SubmissionState | undefined {
    const s = this.byGuid.get(guid)
    if (s === undefined || s._tag !== "source") return undefined
    if (!s.processed) {
      s.processed = true
      if (s.passes && !this.sources.has(s.source.address)) this.sources.set(s.source.address, s.source)
      return { _tag: "pending" }
    }
    return s.passes ? { _tag: "passed" } : { _tag: "failed" }
  }

  /** The proxy verification of a GUID; `undefined` for a GUID no proxy verification of this chain has. */
  proxy(guid: string): { readonly address: string; readonly expectedImplementation: string | undefined } | undefined {
    const s = this.byGuid.get(guid)
    return s?._tag === "proxy" ? s : undefined
  }

  /** The source a passed submission verified for `address`, if any. */
  source(address: string): SubmittedSource | undefined {
    return this.sources.get(address)
  }
}
