import { ConfigError } from './errors.js';

/**
 * A config field that must be a positive integer.
 *
 * @param field - the field's name, for the message.
 * @throws ConfigError `<field> <value> is not a positive integer`.
 * @internal Shared with the sibling packages' config resolvers.
 */
export function positiveIntegerField(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw new ConfigError(`${field} ${String(value)} is not a positive integer`);
  }
  return value;
}

/**
 * A boolean config field, `fallback` when absent.
 *
 * @throws ConfigError `<field> <value> is not a boolean`.
 * @internal Shared with the sibling packages' config resolvers.
 */
export function booleanField(field: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new ConfigError(`${field} ${String(value)} is not a boolean`);
  return value;
}
