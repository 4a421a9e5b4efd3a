/**
 * Wire records of every operation, shaped like the recorded answers in test/fixtures/real-responses
 * (values taken from them where one exists), for the client's fake explorer.
 */

export const ADDRESS = "0xddbd2b932c763ba5b1b7ae3b362eac3e8d40121a"
export const TOKEN = "0x9f8f72aa9304c8b593d555f12ef6589cc3a579a2"
export const TX_HASH = "0x40eb908387324f2b575b4879cd9d7188f69c8fc9d87c901b9e2daaea4b442170"
export const BLOCK_HASH = "0xf564fb2d4d8d5b1b5da0d5b0d6e8c2f57b7d8b0d0f2dfb7d1bb3f3e5ab40aab4"
export const TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"

export const normalTransaction = {
  blockNumber: "23467053",
  blockHash: BLOCK_HASH,
  timeStamp: "1759129619",
  hash: TX_HASH,
  nonce: "8",
  transactionIndex: "184",
  from: ADDRESS,
  to: TOKEN,
  value: "0",
  gas: "73271",
  gasPrice: "238744402",
  input: "0x5c19a95c",
  methodId: "0x5c19a95c",
  functionName: "delegate(address to)",
  contractAddress: "",
  cumulativeGasUsed: "22498564",
  txreceipt_status: "1",
  gasUsed: "48847",
  confirmations: "589",
  isError: "0"
}

export const internalTransaction = {
  blockNumber: "2535479",
  timeStamp: "1477837690",
  hash: TX_HASH,
  from: ADDRESS,
  to: "",
  value: "0",
  contractAddress: "0x2c1ba59d6f58433fb1eaee7d20b26ed83bda51a3",
  input: "",
  type: "create",
  gas: "254791",
  gasUsed: "46750",
  traceId: "0",
  isError: "0",
  errCode: ""
}

const transferBase = {
  blockNumber: "4730207",
  timeStamp: "1513240363",
  hash: TX_HASH,
  nonce: "155",
  blockHash: BLOCK_HASH,
  from: ADDRESS,
  contractAddress: TOKEN,
  to: "0x4e83362442b8d1bec281594cea3050c8eb01311c"
}

export const erc20Transfer = {
  ...transferBase,
  value: "5901522149285533025181",
  tokenName: "Maker",
  tokenSymbol: "MKR",
  tokenDecimal: "18",
  transactionIndex: "81",
  gas: "940000",
  gasPrice: "32010000000",
  gasUsed: "77759",
  cumulativeGasUsed: "2523379",
  input: "deprecated",
  methodId: "0xbe040fb0",
  functionName: "redeem()",
  confirmations: "7968350"
}

export const erc721Transfer = {
  ...transferBase,
  tokenID: "202106",
  tokenName: "CryptoKitties",
  tokenSymbol: "CK",
  tokenDecimal: "0",
  transactionIndex: "81",
  gas: "940000",
  gasPrice: "32010000000",
  gasUsed: "77759",
  cumulativeGasUsed: "2523379",
  input: "deprecated",
  methodId: "0x454a2ab3",
  functionName: "bid(uint256 _tokenId)",
  confirmations: "7968350"
}

export const erc1155Transfer = {
  blockNumber: "13472395",
  timeStamp: "1634973285",
  hash: TX_HASH,
  nonce: "19",
  blockHash: BLOCK_HASH,
  transactionIndex: "129",
  gas: "140000",
  gasPrice: "52000000000",
  gasUsed: "105030",
  cumulativeGasUsed: "11236815",
  input: "deprecated",
  methodId: "0x3e6b214b",
  functionName: "",
  contractAddress: TOKEN,
  from: ADDRESS,
  to: "0x83f564d180b58ad9a02a449105568189ee7de8cb",
  tokenID: "10371",
  tokenValue: "1",
  tokenName: "parallel",
  tokenSymbol: "LL",
  confirmations: "1484418"
}

export const log = {
  address: TOKEN,
  topics: [TOPIC, "0x000000000000000000000000ddbd2b932c763ba5b1b7ae3b362eac3e8d40121a"],
  data: "0x",
  blockNumber: "0xc48174",
  blockHash: BLOCK_HASH,
  timeStamp: "0x60f9ce56",
  gasPrice: "0x2e90edd000",
  gasUsed: "0x247205",
  logIndex: "0x",
  transactionHash: TX_HASH,
  transactionIndex: "0x"
}

export const tokenInfo = {
  contractAddress: "0x0e3a2a1f2146d86a604adc220b4967a898d7fe07",
  tokenName: "Gods Unchained Cards",
  symbol: "CARD",
  divisor: "0",
  tokenType: "ERC721",
  totalSupply: "6972003",
  blueCheckmark: "true",
  description: "",
  website: "https://godsunchained.com/",
  email: "",
  blog: "",
  reddit: "",
  slack: "",
  facebook: "",
  twitter: "",
  bitcointalk: "",
  github: "",
  telegram: "",
  wechat: "",
  linkedin: "",
  discord: "",
  whitepaper: "",
  tokenPriceUSD: "0.000000000000000000"
}

export const nftBalance = { TokenAddress: TOKEN, TokenName: "Gods Unchained", TokenSymbol: "GODS", TokenQuantity: "2" }
export const tokenBalance = {
  TokenAddress: "0xffffffff2ba8f66d4e51811c5190992176930278",
  TokenName: "Furucombo",
  TokenSymbol: "COMBO",
  TokenQuantity: "1861606940000000000",
  TokenDivisor: "18",
  TokenPriceUSD: "0.000891470000000000"
}
export const topHolder = {
  TokenHolderAddress: "0x0000000000000000000000000000000000000000",
  TokenHolderQuantity: "2696124.3026660371030000",
  TokenHolderAddressType: "C"
}
export const tokenHolder = { TokenHolderAddress: "0xa5b7d615ec2b3d9cdd9f8d9b5a8b6fa9a1d600a3", TokenHolderQuantity: "2" }
export const contractSource = {
  SourceCode: "contract Test12345 {}",
  ABI: "[{\"type\":\"function\",\"name\":\"x\"}]",
  ContractName: "Test12345",
  CompilerVersion: "v0.4.26+commit.4563c3fc",
  CompilerType: "solc",
  OptimizationUsed: "1",
  Runs: "200",
  ConstructorArguments: "",
  EVMVersion: "Default",
  Library: "",
  ContractFileName: "",
  LicenseType: "None",
  Proxy: "0",
  Implementation: "",
  SwarmSource: "bzzr://f6b9",
  SimilarMatch: ""
}
export const dailyGasUsed = { UTCDate: "2019-02-01", unixTimeStamp: "1548979200", gasUsed: "32761450415" }
export const dailyTx = { UTCDate: "2019-02-01", unixTimeStamp: "1548979200", transactionCount: 498856 }
export const fundedBy = {
  block: 53708500,
  timeStamp: "1708349932",
  fundingAddress: "0x6969174fd72466430a46e18234d0b530c9fd5f49",
  fundingTxn: "0xbc0c7a5a3ee8a50f4b4ef4f2a3a3e4a7e3ba2fc1dfb1dc9fc7c4a6d5fb1a9946",
  value: "1000000000000000"
}
export const addressTag = {
  address: ADDRESS,
  nametag: "Coinbase 10",
  internal_nametag: "",
  url: "https://www.coinbase.com/",
  shortdescription: "",
  notes_1: "",
  notes_2: "",
  labels: ["Coinbase", "Exchange"],
  labels_slug: ["coinbase", "exchange"],
  reputation: 0,
  other_attributes: [],
  lastupdatedtimestamp: 1721899658
}
export const labelMaster = {
  labelname: "Axelar",
  labelslug: "axelar",
  shortdescription: "Axelar delivers secure cross-chain communication.",
  notes: "",
  lastupdatedtimestamp: 1712897117
}
export const abi = "[{\"constant\":true,\"inputs\":[],\"name\":\"name\",\"outputs\":[{\"name\":\"\",\"type\":\"string\"}],\"type\":\"function\"}]"
