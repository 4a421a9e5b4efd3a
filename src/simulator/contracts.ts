/**
 * Verified contract sources and ABIs of the data set (contract/getsourcecode, contract/getabi), and
 * the unverified answer shape (facts §2.6, §2.18).
 */
import { hexWords } from "./hash.js"
import type { Verified } from "./world.js"

type AbiItem = Readonly<Record<string, unknown>>

const fn = (name: string, inputs: ReadonlyArray<readonly [string, string]>, outputs: ReadonlyArray<string>, mutability: string): AbiItem => ({
  inputs: inputs.map(([n, t]) => ({ internalType: t, name: n, type: t })),
  name,
  outputs: outputs.map((t) => ({ internalType: t, name: "", type: t })),
  stateMutability: mutability,
  type: "function"
})
const ev = (name: string, inputs: ReadonlyArray<readonly [string, string, boolean]>): AbiItem => ({
  anonymous: false,
  inputs: inputs.map(([n, t, indexed]) => ({ indexed, internalType: t, name: n, type: t })),
  name,
  type: "event"
})

const abis: Readonly<Record<Verified["kind"], ReadonlyArray<AbiItem>>> = {
  erc20: [
    ev("Approval", [["owner", "address", true], ["spender", "address", true], ["value", "uint256", false]]),
    ev("Transfer", [["from", "address", true], ["to", "address", true], ["value", "uint256", false]]),
    fn("allowance", [["owner", "address"], ["spender", "address"]], ["uint256"], "view"),
    fn("approve", [["spender", "address"], ["value", "uint256"]], ["bool"], "nonpayable"),
    fn("balanceOf", [["account", "address"]], ["uint256"], "view"),
    fn("batchTransfer", [["recipients", "address[]"], ["values", "uint256[]"]], [], "nonpayable"),
    fn("decimals", [], ["uint8"], "view"),
    fn("name", [], ["string"], "view"),
    fn("symbol", [], ["string"], "view"),
    fn("totalSupply", [], ["uint256"], "view"),
    fn("transfer", [["to", "address"], ["value", "uint256"]], ["bool"], "nonpayable"),
    fn("transferFrom", [["from", "address"], ["to", "address"], ["value", "uint256"]], ["bool"], "nonpayable")
  ],
  erc721: [
    ev("Transfer", [["from", "address", true], ["to", "address", true], ["tokenId", "uint256", true]]),
    fn("balanceOf", [["owner", "address"]], ["uint256"], "view"),
    fn("mint", [], [], "payable"),
    fn("ownerOf", [["tokenId", "uint256"]], ["address"], "view"),
    fn("safeTransferFrom", [["from", "address"], ["to", "address"], ["tokenId", "uint256"]], [], "nonpayable")
  ],
  erc1155: [
    ev("TransferSingle", [["operator", "address", true], ["from", "address", true], ["to", "address", true], ["id", "uint256", false], ["value", "uint256", false]]),
    fn("balanceOf", [["account", "address"], ["id", "uint256"]], ["uint256"], "view"),
    fn("mint", [["to", "address"], ["id", "uint256"], ["amount", "uint256"], ["data", "bytes"]], [], "nonpayable"),
    fn("safeTransferFrom", [["from", "address"], ["to", "address"], ["id", "uint256"], ["amount", "uint256"], ["data", "bytes"]], [], "nonpayable")
  ],
  router: [
    fn("swapExactETHForTokens", [["amountOutMin", "uint256"], ["path", "address[]"], ["to", "address"], ["deadline", "uint256"]], ["uint256[]"], "payable"),
    fn("WETH", [], ["address"], "view"),
    fn("factory", [], ["address"], "view")
  ],
  factory: [
    ev("PairCreated", [["token0", "address", true], ["token1", "address", true], ["pair", "address", false], ["", "uint256", false]]),
    fn("createPair", [["tokenA", "address"], ["tokenB", "address"]], ["address"], "nonpayable"),
    fn("allPairsLength", [], ["uint256"], "view")
  ],
  proxy: [
    ev("Upgraded", [["implementation", "address", true]]),
    fn("implementation", [], ["address"], "view"),
    fn("upgradeTo", [["newImplementation", "address"]], [], "nonpayable")
  ],
  pool: [
    ev("Swap", [["sender", "address", true], ["recipient", "address", true], ["amount0", "int256", false], ["amount1", "int256", false], ["sqrtPriceX96", "uint160", false], ["liquidity", "uint128", false], ["tick", "int24", false]]),
    fn("slot0", [], ["uint160", "int24"], "view"),
    fn("liquidity", [], ["uint128"], "view")
  ]
}

/** The ABI of a verified contract, as the JSON string getabi returns. */
export const abiOf = (v: Verified): string => JSON.stringify(abis[v.kind])

const sourceOf = (v: Verified): string => {
  const body: Readonly<Record<Verified["kind"], string>> = {
    erc20: "    mapping(address => uint256) public balanceOf;\r\n    uint256 public totalSupply;\r\n\r\n    function transfer(address to, uint256 value) external returns (bool) {\r\n        balanceOf[msg.sender] -= value;\r\n        balanceOf[to] += value;\r\n        emit Transfer(msg.sender, to, value);\r\n        return true;\r\n    }\r\n",
    erc721: "    mapping(uint256 => address) public ownerOf;\r\n\r\n    function mint() external payable {\r\n        require(msg.value == 0.05 ether, \"price\");\r\n    }\r\n",
    erc1155: "    mapping(uint256 => mapping(address => uint256)) public balanceOf;\r\n",
    router: "    function swapExactETHForTokens(uint256 amountOutMin, address[] calldata path, address to, uint256 deadline)\r\n        external payable returns (uint256[] memory amounts) {}\r\n",
    factory: "    address[] public allPairs;\r\n\r\n    function createPair(address tokenA, address tokenB) external returns (address pair) {}\r\n",
    proxy: "    // EIP-1967 implementation slot\r\n    bytes32 internal constant _IMPLEMENTATION_SLOT = 0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc;\r\n",
    pool: "    uint128 public liquidity;\r\n\r\n    event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick);\r\n"
  }
  return `// SPDX-License-Identifier: MIT\r\npragma solidity ^0.8.24;\r\n\r\ncontract ${v.contractName} {\r\n${body[v.kind]}}\r\n`
}

/**
 * How a contract's source was verified, as real answers show the four forms: one flat file (the ERC-20s,
 * router, factory, proxy), Solidity standard-JSON input wrapped in an extra pair of braces (`{{…}}`, the
 * ERC-721), a JSON object of files (the ERC-1155), and Vyper (the pool).
 */
export type SourceForm = "flat" | "standardJson" | "multiFile" | "vyper"

/** The source form of a verified contract of the data set. */
export const sourceFormOf = (v: Verified): SourceForm =>
  v.kind === "erc721" ? "standardJson" : v.kind === "erc1155" ? "multiFile" : v.kind === "pool" ? "vyper" : "flat"

const IERC_SOURCE = "// SPDX-License-Identifier: MIT\r\npragma solidity ^0.8.24;\r\n\r\ninterface IERC165 {\r\n    function supportsInterface(bytes4 interfaceId) external view returns (bool);\r\n}\r\n"

const vyperSourceOf = (v: Verified): string =>
  `# @version 0.3.10\r\n"""\r\n@title ${v.contractName}\r\n@license MIT\r\n"""\r\n\r\nliquidity: public(uint128)\r\n\r\n` +
  "event Swap:\r\n    sender: indexed(address)\r\n    recipient: indexed(address)\r\n    amount0: int256\r\n    amount1: int256\r\n" +
  "    sqrtPriceX96: uint160\r\n    liquidity: uint128\r\n    tick: int24\r\n"

/** The `SourceCode` text of a verified contract in its form. */
const sourceCodeOf = (v: Verified): string => {
  const main = `contracts/${v.contractName}.sol`
  switch (sourceFormOf(v)) {
    case "flat":
      return sourceOf(v)
    case "vyper":
      return vyperSourceOf(v)
    case "multiFile":
      return JSON.stringify({ [main]: { content: sourceOf(v) }, "contracts/IERC165.sol": { content: IERC_SOURCE } })
    case "standardJson":
      return "{" + JSON.stringify({
        language: "Solidity",
        sources: { [main]: { content: sourceOf(v) }, "contracts/IERC165.sol": { content: IERC_SOURCE } },
        settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: "paris", outputSelection: { "*": { "*": ["abi", "evm.bytecode"] } } }
      }) + "}"
  }
}

/** The getsourcecode record (docs key order) of a verified contract. */
export const sourceRecord = (v: Verified, root: number, address: string): Readonly<Record<string, string>> => {
  const form = sourceFormOf(v)
  const vyper = form === "vyper"
  return {
  SourceCode: sourceCodeOf(v),
  ABI: abiOf(v),
  ContractName: v.contractName,
  CompilerVersion: vyper ? "vyper:0.3.10" : "v0.8.24+commit.e11b9ed9",
  CompilerType: vyper ? "vyper" : "solc",
  OptimizationUsed: vyper ? "0" : "1",
  Runs: vyper ? "0" : "200",
  ConstructorArguments: v.kind === "proxy" ? "000000000000000000000000" + v.implementation.slice(2) : "",
  EVMVersion: vyper ? "Default" : "paris",
  Library: "",
  ContractFileName: form === "standardJson" || form === "multiFile" ? `contracts/${v.contractName}.sol` : "",
  LicenseType: "MIT",
  Proxy: v.kind === "proxy" ? "1" : "0",
  Implementation: v.implementation,
  SwarmSource: vyper ? "" : "ipfs://" + hexWords(root, 0x5ba2, parseInt(address.slice(2, 10), 16), 8),
  SimilarMatch: ""
  }
}

/** The getsourcecode record of an unverified address (status stays "1"; facts §2.6). */
export const unverifiedRecord: Readonly<Record<string, string>> = {
  SourceCode: "",
  ABI: "Contract source code not verified",
  ContractName: "",
  CompilerVersion: "",
  CompilerType: "",
  OptimizationUsed: "",
  Runs: "",
  ConstructorArguments: "",
  EVMVersion: "Default",
  Library: "",
  ContractFileName: "",
  LicenseType: "Unknown",
  Proxy: "0",
  Implementation: "",
  SwarmSource: "",
  SimilarMatch: ""
}
