/**
 * Source-code verifications of the data set (contract/checkverifystatus): the GUID each verification
 * was answered with and the state it is in. Every verified contract passed one verification; three more
 * submissions show the other states — one for the unverified vault still in the queue (it never leaves
 * it: the simulator's clock stands still), one for the vault that failed, and a second submission of the
 * router, which was verified already.
 */
import { hash2, hash3, hashString } from "./hash.js"

/** The states a verification can be in, as checkverifystatus tells them. */
export type VerificationState = "passed" | "pending" | "failed" | "alreadyVerified"

/** One submission: the contract it was for and its state. */
export interface Verification {
  readonly address: string
  readonly state: VerificationState
}

/** The named GUIDs of a populated chain (what `sim.dataset.chain(id).verifications` lists). */
export interface VerificationGuids {
  /** The router's verification: "Pass - Verified". */
  readonly verified: string
  /** A submission for the unverified vault, still in the queue: "Pending in queue". */
  readonly pending: string
  /** A submission for the vault whose bytecode did not match: "Fail - Unable to verify. …". */
  readonly failed: string
  /** A second submission of the router: "Already Verified". */
  readonly alreadyVerified: string
}

/** The verifications of one chain. */
export interface Verifications {
  readonly guids: VerificationGuids
  /** The GUID of the verification a verified contract passed; `undefined` for any other address. */
  readonly guidOf: (address: string) => string | undefined
  /** The submission a GUID belongs to; `undefined` for a GUID the chain does not know. */
  readonly byGuid: (guid: string) => Verification | undefined
}

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
/** Etherscan's GUIDs are 50 characters of lower-case letters and digits. */
const GUID_LENGTH = 50

const salts: Readonly<Record<VerificationState, number>> = { passed: 1, pending: 2, failed: 3, alreadyVerified: 4 }

/** The GUID of a submission for `address` in `state` on the chain of `root` (stable across runs). */
const guid = (root: number, address: string, state: VerificationState): string => {
  const base = hash3(root, hashString(address), salts[state])
  let out = ""
  for (let i = 0; i < GUID_LENGTH; i++) out += ALPHABET[hash2(base, i) % ALPHABET.length]
  return out
}

/**
 * The verifications of a chain: one passed per verified contract, and the three named submissions for
 * `vault` (unverified) and `router` (verified).
 */
export const makeVerifications = (
  root: number,
  verified: Iterable<string>,
  named: { readonly router: string; readonly vault: string }
): Verifications => {
  const table = new Map<string, Verification>()
  const passed = new Map<string, string>()
  for (const address of verified) {
    const g = guid(root, address, "passed")
    table.set(g, { address, state: "passed" })
    passed.set(address, g)
  }
  const add = (address: string, state: VerificationState): string => {
    const g = guid(root, address, state)
    table.set(g, { address, state })
    return g
  }
  const guids: VerificationGuids = {
    verified: passed.get(named.router) ?? add(named.router, "passed"),
    pending: add(named.vault, "pending"),
    failed: add(named.vault, "failed"),
    alreadyVerified: add(named.router, "alreadyVerified")
  }
  return { guids, guidOf: (address) => passed.get(address.toLowerCase()), byGuid: (g) => table.get(g) }
}

/** A chain without a populated data set knows no verification. */
export const noVerifications: Verifications = {
  guids: { verified: "", pending: "", failed: "", alreadyVerified: "" },
  guidOf: () => undefined,
  byGuid: () => undefined
}
