/**
 * The explorer's own words: the exact `result` texts and `message` values of the facts file (§1.2,
 * §5), as the simulator says them. The client's classifier keeps its own patterns; its tests feed it
 * these texts, so the client is checked against what the server says, not against itself.
 */

/** `message` of an empty account list (txlist, txlistinternal, token transfers). */
export const NO_TRANSACTIONS_FOUND = "No transactions found"
/** `message` of an empty getcontractcreation (recorded, with a `null` result). */
export const NO_DATA_FOUND = "No data found"
/** `message` of an empty getLogs (and other record lists). */
export const NO_RECORDS_FOUND = "No records found"

/** A request without `apikey` (V2 has no anonymous tier). */
export const MISSING_OR_INVALID_API_KEY = "Missing/Invalid API Key"
/** A key the service does not know. */
export const INVALID_API_KEY = "Invalid API Key"
/** A variant of the unknown-key text seen in 2025 (the simulator never says it). */
export const INVALID_API_KEY_ERR2 = "Invalid API Key (#err2)|8"
/** More than 5 unknown-key attempts from one IP within 30 s. */
export const TOO_MANY_INVALID_KEY_ATTEMPTS = "Too many invalid api key attempts, please try again later"
/** The docs' generic rate-limit text (the simulator says the per-second one). */
export const MAX_RATE_LIMIT_REACHED_WITH_HINT = "Max rate limit reached, please use API Key for higher rate limit"
/** The short rate-limit variant of clients' fixtures. */
export const MAX_RATE_LIMIT_REACHED = "Max rate limit reached"
/** The per-second limit, with the plan's (or the throttled operations') calls per second. */
export const maxCallsPerSec = (perSecond: number): string => `Max calls per sec rate limit reached (${perSecond}/sec)`
/** The per-second limit of the legacy V1 endpoints. */
export const MAX_CALLS_PER_SEC_V1 = "Max calls per sec rate limit reached (2/sec). Please switch to API V2"
/** The docs' example body of addresstokennftbalance. */
export const MAXIMUM_RATE_LIMIT_REACHED = "Maximum rate limit reached"
/** The daily cap (Part A.2; the real text is not attested). */
export const MAX_DAILY_RATE_LIMIT_REACHED = "Max daily rate limit reached"
/** A missing, unknown, deprecated or repeated `chainid`. */
export const UNSUPPORTED_CHAIN =
  "Missing or unsupported chainid parameter (required for v2 api), please see chainlist for the list of supported chainids"
/** The unsupported-chain variant of a test fixture, naming the id (unverified). */
export const unsupportedChainVariant = (chainId: number | string): string =>
  `Error! Missing or unsupported chainid parameter (${chainId})`
/** A free key on a paid-only chain (every operation but getsourcecode and getabi). */
export const FREE_NOT_SUPPORTED_FOR_CHAIN =
  "Free API access is not supported for this chain. Please upgrade your api plan for full chain coverage. https://etherscan.io/apis"
/** Free access paused under load. */
export const FREE_TEMPORARILY_UNAVAILABLE =
  "Free API access is temporarily unavailable due to unusually high network activity. To maintain uninterrupted service, we recommend upgrading to a paid plan: https://etherscan.io/apis"
/** A PRO or Pro Plus operation called with a lower plan. */
export const API_PRO_ENDPOINT =
  "Sorry, it looks like you are trying to access an API Pro endpoint. Contact us to upgrade to API Pro."
/** Any call to the V1 path `/api`. */
export const DEPRECATED_V1 = "You are using a deprecated V1 endpoint, switch to Etherscan API V2."
/** A missing or unknown `action` of a known module. */
export const INVALID_ACTION = "Error! Missing Or invalid Action name"
/** A missing or unknown `module`. */
export const INVALID_MODULE = "Error! Missing Or invalid Module name"
/** A missing or malformed parameter. */
export const INVALID_PARAMETER = "Error! Missing or invalid parameter"
/** A malformed `address`. */
export const INVALID_ADDRESS = "Error! Invalid address format"
/** A malformed `contractaddress`. */
export const INVALID_CONTRACT_ADDRESS = "Error! Invalid contract address format"
/** checkverifystatus of a verification waiting its turn (status "0", recorded by hardhat-verify's tests). */
export const VERIFY_PENDING = "Pending in queue"
/** checkverifystatus of a verification that passed (status "1", Etherscan's docs). */
export const VERIFY_PASSED = "Pass - Verified"
/** checkverifystatus of a verification whose bytecode did not match (status "0"; as foundry's tests against Etherscan read it). */
export const VERIFY_FAILED =
  "Fail - Unable to verify. Compiled contract deployment bytecode does NOT match the transaction deployment bytecode."
/** checkverifystatus of a submission for a contract verified already (status "0": our choice, hardhat-verify reads the text only). */
export const ALREADY_VERIFIED = "Already Verified"
/** checkverifystatus of a GUID nobody submitted: Blockscout's Etherscan-compatible text (Etherscan's own is not recorded). */
export const UNKNOWN_UID = "Unknown UID"
/** getabi of an unverified contract. */
export const SOURCE_NOT_VERIFIED = "Contract source code not verified"
/** getblockcountdown for a block already mined. */
export const BLOCK_ALREADY_PASSED = "Error! Block number already pass"
/** getblocknobytime with no block on the asked side of the timestamp. */
export const NO_CLOSEST_BLOCK = "Error! No closest block found"
/** The window text, with the plan's window (1,000 or 10,000). */
export const resultWindowTooLarge = (window: number): string =>
  `Result window is too large, PageNo x Offset size must be less than or equal to ${window}`
/** A query the service gave up on (injected as a fault). */
export const QUERY_TIMEOUT = "Query Timeout occured. Please select a smaller result dataset"
/** A transient server failure (injected as a fault). */
export const SERVER_TOO_BUSY = "Unexpected err, timeout occurred or server too busy. Please try again later"
/** topholders on chain 999 (Part A.6: our wording, the real text is unknown). */
export const CHAIN_NOT_SUPPORTED_FOR_ENDPOINT = "Error! Chain not supported for this endpoint"
/** verifysourcecode for an address that holds no contract (the text foundry's verifier waits on). */
export const noContractCodeAt = (address: string): string => `Unable to locate ContractCode at ${address}`
/** verifysourcecode for a contract verified already. */
export const SOURCE_ALREADY_VERIFIED = "Contract source code already verified"
/** checkproxyverification when the proxy's own source is not verified (Etherscan's docs). */
export const proxyNotVerified = (address: string): string =>
  `The proxy contract at ${address} does not seem to be verified. Please verify and publish the contract source before proceeding with this proxy verification.`
/** checkproxyverification when no implementation is found behind the proxy. */
export const PROXY_IMPLEMENTATION_NOT_DETECTED = "A corresponding implementation contract was unfortunately not detected for the proxy address."
/** checkproxyverification of a proxy whose implementation was found (status "1"). */
export const proxyVerified = (address: string, implementation: string): string =>
  `The proxy's (${address}) implementation contract is found at ${implementation} and is successfully updated.`
