/**
 * Absolute URIs as RFC 3986 spells them, the `format: uri` of the documents: a scheme,
 * then only the characters a URI may hold, anything else percent-encoded. The WHATWG URL
 * parser that checks the rest accepts (and silently encodes or trims) spaces, non-ASCII
 * characters and backslashes; a URI we store and show back must already be one.
 */
const CHARACTERS = "A-Za-z0-9\\-._~:/?#\\[\\]@!$&'()*+,;=";

/** One URI character or percent-encoded octet; without `#` where no fragment may follow. */
export const uriCharacter = ({ fragment = true } = {}) =>
  `(?:[${fragment ? CHARACTERS : CHARACTERS.replace('#', '')}]|%[0-9A-Fa-f]{2})`;

export const ABSOLUTE_URI_PATTERN = new RegExp(`^[A-Za-z][A-Za-z0-9+.-]*:${uriCharacter()}+$`);

export const URI_MESSAGE =
  'must be a URI (RFC 3986): percent-encode spaces, non-ASCII characters and backslashes';
