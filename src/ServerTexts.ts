/**
 * The explorer's own words: the exact `result` texts and `message` values of the facts file (§1.2,
 * §5), shared by the simulator (which says them) and the client's classifier (which reads them).
 */

/** `message` of an empty account list (txlist, txlistinternal, token transfers). */
export const NO_TRANSACTIONS_FOUND = "No transactions found"
/** `message` of an empty getLogs (and other record lists). */
export const NO_RECORDS_FOUND = "No records found"

export const MISSING_OR_INVALID_API_KEY = "Missing/Invalid API Key"
export const INVALID_API_KEY = "Invalid API Key"
export const INVALID_API_KEY_ERR2 = "Invalid API Key (#err2)|8"
export const TOO_MANY_INVALID_KEY_ATTEMPTS = "Too many invalid api key attempts, please try again later"
export const MAX_RATE_LIMIT_REACHED_WITH_HINT = "Max rate limit reached, please use API Key for higher rate limit"
export const MAX_RATE_LIMIT_REACHED = "Max rate limit reached"
/** The per-second limit, with the plan's (or the throttled operations') calls per second. */
export const maxCallsPerSec = (perSecond: number): string => `Max calls per sec rate limit reached (${perSecond}/sec)`
export const MAX_CALLS_PER_SEC_V1 = "Max calls per sec rate limit reached (2/sec). Please switch to API V2"
export const MAXIMUM_RATE_LIMIT_REACHED = "Maximum rate limit reached"
/** The daily cap (Part A.2; the real text is not attested). */
export const MAX_DAILY_RATE_LIMIT_REACHED = "Max daily rate limit reached"
export const UNSUPPORTED_CHAIN =
  "Missing or unsupported chainid parameter (required for v2 api), please see chainlist for the list of supported chainids"
export const unsupportedChainVariant = (chainId: number | string): string =>
  `Error! Missing or unsupported chainid parameter (${chainId})`
export const FREE_NOT_SUPPORTED_FOR_CHAIN =
  "Free API access is not supported for this chain. Please upgrade your api plan for full chain coverage."
export const FREE_TEMPORARILY_UNAVAILABLE =
  "Free API access is temporarily unavailable due to unusually high network activity"
export const API_PRO_ENDPOINT =
  "Sorry, it looks like you are trying to access an API Pro endpoint. Contact us to upgrade to API Pro."
export const DEPRECATED_V1 = "You are using a deprecated V1 endpoint, switch to Etherscan API V2."
export const INVALID_ACTION = "Error! Missing Or invalid Action name"
export const INVALID_MODULE = "Error! Missing Or invalid Module name"
export const INVALID_PARAMETER = "Error! Missing or invalid parameter"
export const INVALID_ADDRESS = "Error! Invalid address format"
export const INVALID_CONTRACT_ADDRESS = "Error! Invalid contract address format"
export const SOURCE_NOT_VERIFIED = "Contract source code not verified"
export const BLOCK_ALREADY_PASSED = "Error! Block number already pass"
export const NO_CLOSEST_BLOCK = "Error! No closest block found"
/** The window text, with the plan's window (1,000 or 10,000). */
export const resultWindowTooLarge = (window: number): string =>
  `Result window is too large, PageNo x Offset size must be less than or equal to ${window}`
export const QUERY_TIMEOUT = "Query Timeout occured. Please select a smaller result dataset"
export const SERVER_TOO_BUSY = "Unexpected err, timeout occurred or server too busy. Please try again later"
/** topholders on chain 999 (Part A.6: our wording, the real text is unknown). */
export const CHAIN_NOT_SUPPORTED_FOR_ENDPOINT = "Error! Chain not supported for this endpoint"
