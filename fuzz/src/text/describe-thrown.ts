import { inertLine } from './inert-text.js';

/** Reads one property of a thrown value without letting a throwing getter or proxy escape. */
function readField(value: object, key: 'name' | 'message'): string | undefined {
  try {
    const field: unknown = (value as Record<string, unknown>)[key];
    return typeof field === 'string' ? field : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Any thrown value as one inert, bounded line — `Name: message` for an error, the value's text
 * otherwise. Never throws, whatever was thrown: `null`, a proxy, an object whose getters or
 * `toString` throw.
 *
 * @param maxChars - the longest line (characters).
 */
export function describeThrown(value: unknown, maxChars = 300): string {
  if (value === null || value === undefined) return `${String(value)} was thrown`;
  if (typeof value === 'object' || typeof value === 'function') {
    const name = readField(value, 'name');
    const message = readField(value, 'message');
    if (message !== undefined) return inertLine(name !== undefined && name !== '' ? `${name}: ${message}` : message, maxChars);
    let text: string;
    try {
      text = String(value);
    } catch {
      text = `an unprintable ${typeof value}`;
    }
    return inertLine(text, maxChars);
  }
  try {
    return inertLine(String(value), maxChars);
  } catch {
    return `an unprintable ${typeof value}`;
  }
}
