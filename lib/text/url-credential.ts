/**
 * Query parameters that carry a credential by their name (OAuth 2.0's `access_token`, RFC 6750
 * §2.3, and the names APIs give keys and secrets). A URL holding one is kept with its system and
 * shown on every read, so the credential would be stored in plain text: such a URL is refused,
 * and the credential goes as the token (sent as `Authorization: Bearer`, never stored). S3's
 * presigned URLs (`X-Amz-Signature`, valid for at most seven days) pass, unless they carry a
 * session token.
 */
const CREDENTIAL_PARAMETERS = new Set([
  'access_token',
  'accesstoken',
  'access-token',
  'auth_token',
  'id_token',
  'refresh_token',
  'private_token',
  'token',
  'api_key',
  'apikey',
  'api-key',
  'x-api-key',
  'password',
  'passwd',
  'secret',
  'client_secret',
  'authorization',
  // Google's and others' API keys; Azure's shared access signatures (valid for as long as their
  // issuer chose, years included); AWS's temporary session token.
  'key',
  'sig',
  'x-amz-security-token',
]);

/**
 * The first parameter of `url`'s query, or of its fragment read as one, whose name says it holds a
 * credential, or `undefined`. The fragment is never sent, but it is kept and shown with the URL
 * all the same, and OAuth's implicit flow hands out `#access_token=…`.
 */
export function credentialParameter(url: URL): string | undefined {
  for (const name of url.searchParams.keys()) if (CREDENTIAL_PARAMETERS.has(name.toLowerCase())) return name;
  // A server may split its query at `;` too (the HTML 4 recommendation, and some frameworks
  // still do), where the URL parser reads `?a=1;token=…` as one parameter `a`.
  for (const [, name] of url.search.matchAll(SEMICOLON_PARAMETER)) {
    const read = safeDecode(name!);
    if (CREDENTIAL_PARAMETERS.has(read.toLowerCase())) return read;
  }
  // A fragment has no grammar of its own: single-page apps route in it (`#/callback?access_token=…`,
  // `#!/cb?token=…`, `#state=1;token=…`), so every `name=` in it after a `#`, `?`, `&`, `;` or `/`
  // is read as a parameter.
  for (const [, name] of url.hash.matchAll(FRAGMENT_PARAMETER)) {
    const read = safeDecode(name!);
    if (CREDENTIAL_PARAMETERS.has(read.toLowerCase())) return read;
  }
  return undefined;
}

/** A `name=` in a query after a `;`. */
const SEMICOLON_PARAMETER = /;([^=&;]*)=/g;

/** A `name=` in a fragment, after its `#` or a separator a router or a form may use. */
const FRAGMENT_PARAMETER = /[#?&;/!]([^=#?&;/!]*)=/g;

/**
 * `url` as an error may repeat it: everything before its last `@` but the scheme replaced by `…`
 * (`withoutUserInfo`), and the value of every credential parameter, in the query or the fragment,
 * by `…`. Whatever a refused URL carries, the
 * answer never repeats the secret.
 */
export function withoutCredentials(url: string): string {
  // The credential parameters first, on the whole text: a value may hold an `@` (`?token=ab@cd`),
  // and the user info's cut at the last `@` would take the parameter's name with it. A value runs
  // to the next `&`, or in the query to a `#` too, as the URL parser reads it: `?token=x;SECRET` is one value, so
  // ending it at a `;` (or a `/`, `!` or `?`) would repeat the rest. A name is found after any
  // separator a query or a fragment may use, inside another parameter's value too
  // (`#state=1;token=…`).
  const masked: [start: number, end: number][] = [];
  // In the fragment a `#` is one more character (the fragment runs to the end): a value there
  // runs to the next `&` only.
  const fragment = url.indexOf('#');
  for (const match of url.matchAll(PARAMETER_NAME)) {
    // As the URL parser reads the name: tabs and line breaks dropped (`to\tken` is `token`).
    const name = safeDecode(match[1]!)
      .replace(/[\t\n\r]/g, '')
      .toLowerCase();
    if (!CREDENTIAL_PARAMETERS.has(name)) continue;
    const start = match.index + match[0].length;
    const inFragment = fragment >= 0 && match.index >= fragment;
    let end = start;
    while (end < url.length && url[end] !== '&' && (inFragment || url[end] !== '#')) end++;
    masked.push([start, end]);
  }
  let withoutParameters = url;
  if (masked.length > 0) {
    let written = 0;
    let text = '';
    for (const [start, end] of masked) {
      // A value that holds the next name's (`?token=a;key=b`) was masked whole already.
      if (start < written) continue;
      text += `${url.slice(written, start)}…`;
      written = end;
    }
    withoutParameters = text + url.slice(written);
  }
  // The user info after, the one in the query of another URL (`?next=https://u:p@…`) too.
  return withoutUserInfo(withoutParameters);
}

/** A parameter's `name=`, after a separator a query, a fragment or a router may use. */
const PARAMETER_NAME = /[?&#;/!]([^=&#?;/!]*)=/g;

/**
 * The URL with everything before its last `@` masked, but for a scheme and slashes at its start
 * (`http://`, `http//`, `https:/`): a password may hold `/`, `?`, `#` or `@`, or read as a port
 * (`http://u:pa?ss@host`, `https://u:pa@ss/w@host`, `http://u:123/ss@host`, `user:pass@host`),
 * and a URL in the query of another may carry one too, so no parser finds where it ends. An `@`
 * in a path or a query costs the message what stands before it.
 */
function withoutUserInfo(url: string): string {
  const at = url.lastIndexOf('@');
  if (at < 0) return url;
  const scheme = /^[a-z][a-z0-9+.-]*:?\/{1,2}/i.exec(url)?.[0] ?? '';
  return `${scheme}…${url.slice(at)}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
