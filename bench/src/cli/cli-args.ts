/** What the bench CLIs share in reading their command lines. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './usage-error.js';

/** `parseArgs` (strict, its default), with its errors (an unknown option, a missing value) as {@link UsageError}s. */
export function parseCliArgs<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** An integer flag's value in `[lo, hi]`, or undefined when the flag was not given. */
export function integerFlag(name: string, raw: string | undefined, lo: number, hi: number): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < lo || value > hi) throw new UsageError(`${name} ${raw} is not an integer in [${lo}, ${hi}]`);
  return value;
}
