/**
 * The one error outbound requests throw. Its message is meant for the person who supplied the
 * URL; it never carries the bearer token, the response body or the raw error of the network
 * layer (those can repeat what the remote server sent).
 */

/**
 * - `URL_NOT_ALLOWED`: the URL (or a redirect it led to) breaks a rule or points into a private
 *   network; answered as 400.
 * - `UPSTREAM_ERROR`: the server could not be reached, was too slow, answered a non-2xx status,
 *   sent too much or redirected too often; answered as 502.
 * - `UPSTREAM_INVALID`: the server answered, but not with JSON; answered as 422.
 */
export type OutboundErrorCode = 'URL_NOT_ALLOWED' | 'UPSTREAM_ERROR' | 'UPSTREAM_INVALID';

export class OutboundError extends Error {
  override readonly name = 'OutboundError';
  readonly code: OutboundErrorCode;

  constructor(code: OutboundErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
