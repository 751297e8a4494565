/**
 * Absolute URIs as RFC 3986 spells them, the `format: uri` of the documents: a scheme,
 * an optional authority (brackets only around an IP literal), a path, a query and a
 * fragment, each of only the characters a URI may hold there, anything else
 * percent-encoded. The WHATWG URL parser that checks the rest accepts (and silently
 * encodes or trims) spaces, non-ASCII characters, backslashes and stray brackets; a URI we
 * store and show back must already be one.
 */
// unreserved and sub-delims (RFC 3986 §2.2, §2.3), or a percent-encoded octet
const CHAR = "(?:[A-Za-z0-9\\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})";
const AUTHORITY = `//(?:(?:${CHAR}|:)*@)?(?:\\[[0-9A-Fa-f:.]+\\]|${CHAR}*)(?::\\d*)?`;
const PATH = `(?:${CHAR}|[:@/])*`;
const QUERY = `(?:\\?(?:${CHAR}|[:@/?])*)?`;
const FRAGMENT = `(?:#(?:${CHAR}|[:@/?])*)?`;

export const ABSOLUTE_URI_PATTERN = new RegExp(
  `^[A-Za-z][A-Za-z0-9+.-]*:(?:${AUTHORITY})?${PATH}${QUERY}${FRAGMENT}$`,
);

/** An http(s) URI with an authority and no fragment: where OAuth sends users back to. */
export const HTTP_URI_WITHOUT_FRAGMENT = new RegExp(`^https?:${AUTHORITY}${PATH}${QUERY}$`);

export const URI_MESSAGE =
  'must be a URI (RFC 3986): percent-encode spaces, non-ASCII characters, backslashes and brackets';

/**
 * For a URL whose `hostname` is not a host (`isHost`): RFC 3986 lets a reg-name hold
 * sub-delims, so `https://*.example.com/cb` is a URI, but no host is called
 * `*.example.com`, and a URL stored with it could never be reached or matched.
 */
export const HOST_NAME_MESSAGE =
  'must name a host: letters, digits, hyphens and dots, or an IP address (no wildcards)';
