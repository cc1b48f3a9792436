/** Why a database could not be reached, by Node's socket error code: the part every connector shares. */
export const NETWORK_ERROR_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'the connection was refused',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve (temporary DNS failure)',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ECONNRESET: 'the server closed the connection',
  EPIPE: 'the server closed the connection',
};
