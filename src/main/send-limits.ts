/** The quick-retry bounds of every send through a channel (deliveries and alerts alike). */

/** No single wait between retries is longer (a Retry-After included). */
export const MAX_RETRY_WAIT_MS = 60_000;
/** One send's time limit. */
export const SEND_TIMEOUT_MS = 30_000;
