/**
 * ENS for a few names of the data set, answered through eth_call on mainnet and Sepolia (the chains ENS
 * lives on), at ENS's own addresses:
 *
 * - the registry (`resolver(bytes32)`, `owner(bytes32)`): the names, the `eth` node and the names'
 *   reverse nodes (`<address>.addr.reverse`) have the data set's public resolver;
 * - the public resolver: `addr(bytes32)` (zero for a node it holds no address for), `name(bytes32)`
 *   of a reverse node, `supportsInterface` (ERC-165, addr, name; not ENSIP-10 wildcards);
 * - the Universal Resolver, which ethers 6 asks first: `requireResolver(bytes)` (the resolver of the
 *   name or of its nearest parent that has one, with the offset of that parent in the DNS-encoded
 *   name; `ResolverNotFound(bytes)` when none has), `findResolver(bytes)`, and `reverse(bytes,uint256)`
 *   (the address's primary name, forward-checked; an empty name when it has none).
 *
 * Names hash, and calls encode, as ENS and the ABI do (ox's `Ens` and `AbiFunction`).
 */
import * as AbiError from "ox/AbiError"
import * as AbiFunction from "ox/AbiFunction"
import * as Ens from "ox/Ens"
import type * as Hex from "ox/Hex"
import type { ChainData } from "./dataset.js"
import { hexWords } from "./hash.js"
import { names as entities } from "./world.js"

/** The ENS registry's address. */
export const ENS_REGISTRY = "0x00000000000c2e074ec69a0dfb2997ba6c7d2e1e"

/** ENS's Universal Resolver (the proxy ethers 6 calls). */
export const ENS_UNIVERSAL_RESOLVER = "0xeeeeeeee14d718c2b47d9923deab1335e144eeee"

/** The chains ENS lives on: mainnet and Sepolia. */
const ENS_CHAINS: ReadonlySet<number> = new Set([1, 11155111])

const registryFns = {
  resolver: AbiFunction.from("function resolver(bytes32 node) view returns (address)"),
  owner: AbiFunction.from("function owner(bytes32 node) view returns (address)")
}
const resolverFns = {
  addr: AbiFunction.from("function addr(bytes32 node) view returns (address)"),
  name: AbiFunction.from("function name(bytes32 node) view returns (string)"),
  supportsInterface: AbiFunction.from("function supportsInterface(bytes4 interfaceId) view returns (bool)")
}
const universalFns = {
  requireResolver: AbiFunction.from(
    "function requireResolver(bytes name) view returns ((bytes name, uint256 offset, bytes32 node, address resolver, bool extended))"
  ),
  findResolver: AbiFunction.from("function findResolver(bytes name) view returns (address resolver, bytes32 node, uint256 offset)"),
  reverse: AbiFunction.from("function reverse(bytes lookupAddress, uint256 coinType) view returns (string primary, address resolver, address reverseResolver)")
}
const resolverNotFound = AbiError.from("error ResolverNotFound(bytes name)")

/** The interfaces the public resolver implements: ERC-165, addr(bytes32), name(bytes32). */
const INTERFACES: ReadonlySet<string> = new Set([
  AbiFunction.getSelector(resolverFns.supportsInterface),
  AbiFunction.getSelector(resolverFns.addr),
  AbiFunction.getSelector(resolverFns.name)
])

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000"

/** A name of the data set and the address it resolves to (its reverse record names it back). */
export interface EnsName {
  readonly name: string
  readonly address: string
}

interface Registry {
  readonly resolver: string
  readonly names: ReadonlyArray<EnsName>
  /** namehash → the name, for the names and `eth` (which has a resolver and no address). */
  readonly forward: ReadonlyMap<string, EnsName | undefined>
  /** namehash of `<address>.addr.reverse` → the name. */
  readonly reverse: ReadonlyMap<string, EnsName>
}

const registries = new WeakMap<ChainData, Registry | undefined>()

/** The names of a chain: two wallets, the busy wallet and the verified router; none off ENS's chains. */
const registryOf = (c: ChainData): Registry | undefined => {
  if (registries.has(c)) return registries.get(c)
  let r: Registry | undefined
  if (c.populated && ENS_CHAINS.has(c.chainId)) {
    const names: ReadonlyArray<EnsName> = [
      { name: "alice.eth", address: c.addr(entities.wallet(0)) },
      { name: "bob.eth", address: c.addr(entities.wallet(1)) },
      { name: "busy.sim.eth", address: c.busyAddress },
      { name: "router.sim.eth", address: c.addr(entities.router) }
    ]
    r = {
      resolver: c.addr("ens-public-resolver"),
      names,
      forward: new Map<string, EnsName | undefined>([
        [Ens.namehash("eth"), undefined],
        ...names.map((n): readonly [string, EnsName] => [Ens.namehash(n.name), n])
      ]),
      reverse: new Map(names.map((n) => [Ens.namehash(`${n.address.slice(2)}.addr.reverse`), n]))
    }
  }
  registries.set(c, r)
  return r
}

/** The ENS names of a chain's data set (empty off mainnet and Sepolia). */
export const ensNames = (c: ChainData): ReadonlyArray<EnsName> => registryOf(c)?.names ?? []

/** Whether an address is one of a chain's ENS contracts (registry, Universal Resolver, public resolver). */
export const isEnsContract = (c: ChainData, address: string): boolean => {
  const r = registryOf(c)
  return r !== undefined && (address === ENS_REGISTRY || address === ENS_UNIVERSAL_RESOLVER || address === r.resolver)
}

/** The made-up code of an ENS contract (eth_getCode): anything not "0x". */
export const ensCode = (c: ChainData, address: string): string =>
  "0x6080604052" + hexWords(c.root, 0xe75, address === ENS_REGISTRY ? 1 : address === ENS_UNIVERSAL_RESOLVER ? 2 : 3, 16)

/** What a call to an ENS contract gives: its return data, or a revert (with a custom error's data). */
export type EnsAnswer =
  | { readonly _tag: "return"; readonly data: string }
  | { readonly _tag: "revert"; readonly data: string | undefined }

/** The labels of a DNS-encoded name (length-prefixed labels, a zero length last); undefined if malformed. */
const dnsLabels = (hex: string): ReadonlyArray<string> | undefined => {
  const bytes = Buffer.from(hex.slice(2), "hex")
  const labels: Array<string> = []
  for (let at = 0; at < bytes.length;) {
    const length = bytes[at] as number
    if (length === 0) return at === bytes.length - 1 ? labels : undefined
    labels.push(bytes.subarray(at + 1, at + 1 + length).toString("utf8"))
    at += 1 + length
  }
  return undefined
}

/** The nearest of a name and its parents that has a resolver: its node and byte offset in the DNS form. */
const nearestWithResolver = (r: Registry, labels: ReadonlyArray<string>): { readonly node: Hex.Hex; readonly offset: number } | undefined => {
  let offset = 0
  for (let i = 0; i < labels.length; i++) {
    const node = Ens.namehash(labels.slice(i).join("."))
    if (r.forward.has(node) || r.reverse.has(node)) return { node, offset }
    offset += 1 + Buffer.byteLength(labels[i] as string, "utf8")
  }
  return undefined
}

const ok = (data: string): EnsAnswer => ({ _tag: "return", data })
const reverted: EnsAnswer = { _tag: "revert", data: undefined }

/** A call to one of a chain's ENS contracts; a function they do not have reverts without data. */
export const ensCall = (c: ChainData, to: string, data: string): EnsAnswer => {
  const r = registryOf(c)
  if (r === undefined) return reverted
  const selector = data.slice(0, 10).toLowerCase()
  const input = data as Hex.Hex
  try {
    if (to === ENS_REGISTRY) {
      if (selector === AbiFunction.getSelector(registryFns.resolver)) {
        const [node] = AbiFunction.decodeData(registryFns.resolver, input)
        return ok(AbiFunction.encodeResult(registryFns.resolver, (r.forward.has(node) || r.reverse.has(node) ? r.resolver : ZERO_ADDRESS) as Hex.Hex))
      }
      if (selector === AbiFunction.getSelector(registryFns.owner)) {
        const [node] = AbiFunction.decodeData(registryFns.owner, input)
        const owner = r.forward.get(node)?.address ?? r.reverse.get(node)?.address ?? ZERO_ADDRESS
        return ok(AbiFunction.encodeResult(registryFns.owner, owner as Hex.Hex))
      }
      return reverted
    }
    if (to === ENS_UNIVERSAL_RESOLVER) {
      if (selector === AbiFunction.getSelector(universalFns.requireResolver) || selector === AbiFunction.getSelector(universalFns.findResolver)) {
        const [name] = AbiFunction.decodeData(universalFns.requireResolver, input)
        const labels = dnsLabels(name)
        const found = labels === undefined ? undefined : nearestWithResolver(r, labels)
        if (selector === AbiFunction.getSelector(universalFns.findResolver)) {
          return ok(AbiFunction.encodeResult(universalFns.findResolver, [
            found === undefined ? ZERO_ADDRESS : r.resolver as Hex.Hex,
            found?.node ?? `0x${"0".repeat(64)}`,
            BigInt(found?.offset ?? 0)
          ]))
        }
        if (found === undefined) return { _tag: "revert", data: AbiError.encode(resolverNotFound, [name]) }
        return ok(AbiFunction.encodeResult(universalFns.requireResolver, {
          name,
          offset: BigInt(found.offset),
          node: found.node,
          resolver: r.resolver as Hex.Hex,
          extended: false
        }))
      }
      if (selector === AbiFunction.getSelector(universalFns.reverse)) {
        const [lookup] = AbiFunction.decodeData(universalFns.reverse, input)
        const named = r.reverse.get(Ens.namehash(`${lookup.slice(2).toLowerCase()}.addr.reverse`))
        return ok(AbiFunction.encodeResult(universalFns.reverse, [
          named?.name ?? "",
          named === undefined ? ZERO_ADDRESS : r.resolver as Hex.Hex,
          named === undefined ? ZERO_ADDRESS : r.resolver as Hex.Hex
        ]))
      }
      return reverted
    }
    if (selector === AbiFunction.getSelector(resolverFns.addr)) {
      const [node] = AbiFunction.decodeData(resolverFns.addr, input)
      return ok(AbiFunction.encodeResult(resolverFns.addr, (r.forward.get(node)?.address ?? ZERO_ADDRESS) as Hex.Hex))
    }
    if (selector === AbiFunction.getSelector(resolverFns.name)) {
      const [node] = AbiFunction.decodeData(resolverFns.name, input)
      return ok(AbiFunction.encodeResult(resolverFns.name, r.reverse.get(node)?.name ?? ""))
    }
    if (selector === AbiFunction.getSelector(resolverFns.supportsInterface)) {
      const [id] = AbiFunction.decodeData(resolverFns.supportsInterface, input)
      return ok(AbiFunction.encodeResult(resolverFns.supportsInterface, INTERFACES.has(id.toLowerCase())))
    }
    return reverted
  } catch {
    // calldata that does not decode: the contract reverts, as Solidity's decoder does
    return reverted
  }
}
