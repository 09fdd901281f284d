/**
 * Typed reads of parsed JSON that report the first bad field by its path, e.g.
 * `ratios[3].ciLow is "x", not a positive number`. The caller decides which error class carries
 * the message (an input file's or the history file's).
 *
 * @packageDocumentation
 */

/** How many characters of a bad value a message quotes. */
const kQuotedCharsMax = 60;

/** What a number must be. */
export type NumberKind = 'finite' | 'positive' | 'non-negative' | 'non-negative integer' | 'integer';

/** `value` as a message quotes it: `missing`, or its JSON, shortened. */
export function quote(value: unknown): string {
  if (value === undefined) return 'missing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > kQuotedCharsMax ? `${text.slice(0, kQuotedCharsMax - 1)}…` : text;
}

function numberOk(x: number, kind: NumberKind): boolean {
  if (!Number.isFinite(x)) return false;
  switch (kind) {
    case 'finite':
      return true;
    case 'positive':
      return x > 0;
    case 'non-negative':
      return x >= 0;
    case 'non-negative integer':
      return Number.isSafeInteger(x) && x >= 0;
    case 'integer':
      return Number.isSafeInteger(x);
  }
}

/** Reads fields of one JSON document; every failed read calls `fail` with `path is X, not Y`. */
export class JsonFields {
  /** @param fail - throws the caller's error class with the problem as its message */
  constructor(private readonly fail: (problem: string) => never) {}

  /** Reports `problem` as it is. */
  problem(problem: string): never {
    return this.fail(problem);
  }

  private expected(value: unknown, path: string, what: string): never {
    return this.fail(`${path} is ${quote(value)}, not ${what}`);
  }

  object(value: unknown, path: string): Record<string, unknown> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.expected(value, path, 'an object');
    return value as Record<string, unknown>;
  }

  /** An array; with `nonEmpty`, one with at least one element. */
  array(value: unknown, path: string, nonEmpty = false): unknown[] {
    if (!Array.isArray(value)) this.expected(value, path, 'an array');
    if (nonEmpty && value.length === 0) this.fail(`${path} is empty`);
    return value;
  }

  string(value: unknown, path: string): string {
    if (typeof value !== 'string' || value.length === 0) this.expected(value, path, 'a non-empty string');
    return value;
  }

  boolean(value: unknown, path: string): boolean {
    if (typeof value !== 'boolean') this.expected(value, path, 'true or false');
    return value;
  }

  number(value: unknown, path: string, kind: NumberKind): number {
    if (typeof value !== 'number' || !numberOk(value, kind)) this.expected(value, path, `a ${kind} number`);
    return value;
  }

  /** A number of kind `kind`, or null. */
  numberOrNull(value: unknown, path: string, kind: NumberKind): number | null {
    return value === null ? null : this.number(value, path, kind);
  }

  /** A string or null. */
  stringOrNull(value: unknown, path: string): string | null {
    return value === null ? null : this.string(value, path);
  }

  /** One of `choices`. */
  oneOf<T extends string>(value: unknown, path: string, choices: readonly T[]): T {
    if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) this.expected(value, path, `one of ${choices.map((c) => JSON.stringify(c)).join(', ')}`);
    return value as T;
  }

  /** An ISO 8601 date string that `Date` parses. */
  date(value: unknown, path: string): string {
    const s = this.string(value, path);
    if (Number.isNaN(Date.parse(s))) this.expected(value, path, 'an ISO 8601 date');
    return s;
  }

  /** Fails when two entries share a key: `path[j].key "x" repeats path[i]`. */
  unique<T>(items: readonly T[], path: string, key: (item: T) => string, keyName: string): void {
    const seen = new Map<string, number>();
    items.forEach((item, j) => {
      const k = key(item);
      const i = seen.get(k);
      if (i !== undefined) this.fail(`${path}[${j}].${keyName} ${quote(k)} repeats ${path}[${i}]`);
      seen.set(k, j);
    });
  }
}
