import { Matches } from 'class-validator';

/**
 * A line of text people read (a name, an address line, a carrier): at least one visible
 * character, and no control character (C0, DEL, C1), line breaks and tabs included. A
 * name of spaces only, or one with a NUL or an escape sequence in it, is refused `422`
 * rather than stored and shown on a packing slip or in a terminal. Checked in one pass
 * (the lookahead is anchored), so a long value costs linear time.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it refuses
export const LINE_PATTERN = /^(?=[\s\S]*\S)[^\u0000-\u001F\u007F-\u009F]*$/;
export const LINE_MESSAGE = 'must hold a visible character and no control characters';

/** Free text (a description, notes): tabs and line breaks allowed, other controls not. */
// eslint-disable-next-line no-control-regex -- control characters are what it refuses
export const TEXT_PATTERN = /^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*$/;
export const TEXT_MESSAGE = 'must not contain control characters other than tab and line breaks';

export const IsLine = () => Matches(LINE_PATTERN, { message: LINE_MESSAGE });
export const IsText = () => Matches(TEXT_PATTERN, { message: TEXT_MESSAGE });
