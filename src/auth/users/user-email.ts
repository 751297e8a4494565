import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsEmail, IsString, Matches, MaxLength, type ValidationArguments } from 'class-validator';

/** RFC 5321 §4.5.3.1.3 path limit, less the angle brackets; the `users.email` column's. */
export const EMAIL_MAX_LENGTH = 254;

// atext of RFC 5322 §3.2.3: what a dot-atom local part is made of (ASCII only)
const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]";
// a DNS label of letters, digits and hyphens (RFC 1123 §2.1), 1 to 63 characters
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
// a top-level domain as IsEmail's require_tld takes it: letters, or an IDN A-label
// (xn--p1ai); no delegated TLD holds a digit otherwise, so example.c0m is refused
const TLD = '(?:[A-Za-z]{2,63}|[Xx][Nn][A-Za-z0-9-]{1,60}[A-Za-z0-9])';

/**
 * The emails users may have, in any letter case: an ASCII dot-atom local part of at most
 * 64 characters (RFC 5321 §4.5.3.1.1: no mail server need take a longer one), `@`, and a
 * domain name of at least two LDH labels whose last one is a TLD. No quoted local part,
 * no IP literal, no whitespace, nothing beyond ASCII. Every match is also JSON Schema's `format: email` (the ajv-formats
 * pattern) and class-validator's IsEmail with the options below, so the documents (which
 * show this pattern) and the validation say the same. The ceiling is EMAIL_MAX_LENGTH.
 */
export const EMAIL_PATTERN = new RegExp(
  `^(?=[^@]{1,64}@)${ATEXT}+(?:\\.${ATEXT}+)*@(?:${LABEL}\\.)+${TLD}$`,
);

const EMAIL_OPTIONS = {
  allow_display_name: false,
  allow_utf8_local_part: false,
  allow_ip_domain: false,
  allow_underscores: false,
  require_tld: true,
  ignore_max_length: false,
} as const;

const patternMessage = ({ value }: ValidationArguments): string =>
  typeof value === 'string' && value.trim() !== value
    ? 'must not begin or end with whitespace'
    : 'must be an ASCII address with a local part of at most 64 characters and a domain name (no quotes, no IP address)';

/**
 * Stored emails are lower case (the column's CHECK): ASCII letters are lowercased before
 * validation, nothing else is touched, so a value the pattern refuses (whitespace, other
 * scripts, U+212A KELVIN SIGN...) cannot turn into one it accepts.
 */
const lowercaseAscii = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? value.replace(/[A-Z]+/g, (letters) => letters.toLowerCase()) : value;

/**
 * A user's email in a body or a query string: EMAIL_PATTERN at most EMAIL_MAX_LENGTH
 * characters long, taken as sent (no trimming) and lowercased. The document states the
 * pattern, the length and `format: email` from these validators (validation-constraints.ts).
 */
export const IsUserEmail = () =>
  applyDecorators(
    Transform(lowercaseAscii),
    IsString(),
    MaxLength(EMAIL_MAX_LENGTH),
    IsEmail(EMAIL_OPTIONS),
    Matches(EMAIL_PATTERN, { message: patternMessage }),
  );

/**
 * An email typed into the sign-in form, as the account lookup and the per-email attempt
 * limit compare it: without the whitespace a browser may leave around it, lower case.
 * Full Unicode lowercasing, as the API applied before it refused non-ASCII addresses, so
 * accounts created then still sign in; for every address the API accepts now it is the
 * same as the ASCII lowercasing above.
 */
export const signInEmail = (typed: string): string => typed.trim().toLowerCase();
