/**
 * The explorer page loads scripts, its worker and styles from its own origin only, and `fetch`es
 * its own origin (the API) and, for *Test URL* alone, an HTTPS address the user typed. Nothing
 * else: a shared link's structure lives in the URL fragment, which no request carries. Inline
 * styles are allowed for the SVG export's embedded style sheet. The local server and the CDK
 * stack's CloudFront response headers send this same policy.
 */
export const PAGE_CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; worker-src 'self'; connect-src 'self' https:; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data: blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
