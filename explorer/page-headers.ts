/**
 * The explorer page may load and connect to its own origin only: scripts, its worker, styles and
 * `fetch` to the API. A shared link's structure lives in the URL fragment, which no request
 * carries. Inline styles are allowed for the SVG export's embedded style sheet. The local server
 * and the CDK stack's CloudFront response headers send this same policy.
 */
export const PAGE_CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; worker-src 'self'; connect-src 'self'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data: blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
