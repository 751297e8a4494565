/**
 * A UUID as RFC 9562 spells it: 32 hex digits in groups of 8-4-4-4-12, the `format: uuid`
 * of the documents. Any version and variant: an id we did not mint (the nil UUID, a
 * version 0 test value) names no resource, and that is answered as not found, not as a
 * malformed request. class-validator's IsUUID refuses versions and variants it does not
 * know, which `format: uuid` allows.
 */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const UUID_MESSAGE = 'must be a UUID';
