/**
 * Text that came from outside kvfuzz — a provider's name, error or stderr, a regression file's
 * message — made inert before it reaches a terminal or a CI log: control characters (escape
 * sequences, CR, NUL, bidirectional overrides, line separators) become visible escapes, and a
 * line that a CI system would read as a command (GitHub Actions' `::error …::`) loses its `::`.
 */

/** What is escaped: C0 controls but tab and newline, DEL, C1 controls, bidi controls, U+2028/9, lone surrogates. */
const kUnsafe = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function escapeChar(c: string): string {
  const code = c.charCodeAt(0);
  if (c === '\r') return '\\r';
  if (c === '\u0000') return '\\0';
  if (c === '\u001b') return '\\e';
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `::` at the start of a line (after blanks): the first colon is shown as `\x3a`. */
const kCommandStart = /^([ \t]*):(?=:)/gm;

/**
 * Multi-line text made inert: newlines stay, every other unsafe character is escaped, and no line
 * starts with `::`.
 */
export function inertText(text: string): string {
  return text.replace(kUnsafe, escapeChar).replace(kCommandStart, '$1\\x3a');
}

/**
 * One line made inert and bounded: newlines and tabs are escaped too, and text past `maxChars`
 * is cut with a note of how much was left out.
 *
 * @param maxChars - the longest result before the note (characters).
 */
export function inertLine(text: string, maxChars = 200): string {
  const cut = text.length > maxChars ? `${text.slice(0, maxChars)}… (${text.length - maxChars} more characters)` : text;
  return inertText(cut.replace(/\n/g, '\\n').replace(/\t/g, '\\t'));
}
