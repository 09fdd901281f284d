import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { BadInput } from '../bad-input.js';
import { findTarget, kFuzzTargets, kRenamedTargets, type DecodedProgram } from '../fuzz-targets.js';
import type { CommandData } from '../models/command-data.js';
import { describeZodIssue } from '../text/describe-zod-issue.js';
import { inertLine } from '../text/inert-text.js';
import { kRegressionBytesMax, kRegressionFormat, kRegressionFormatCode, regressionSchema, type Regression } from './regression.js';

/** A stored failure, checked: the file's fields, and its program rebuilt from data, ready to replay. */
export interface LoadedRegression extends Regression {
  readonly decoded: DecodedProgram;
}

/**
 * The file's bytes, read within the size bound. Opened without blocking, so a FIFO or a device
 * is refused by its type instead of hanging the read.
 */
function readBounded(file: string): Buffer {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new BadInput(code === 'EISDIR' ? `${file} is a directory, not a regression file` : `${file}: cannot be read (${code})`);
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw new BadInput(`${file} is a directory, not a regression file`);
    if (!stat.isFile()) throw new BadInput(`${file} is not a regular file`);
    if (stat.size > kRegressionBytesMax) throw new BadInput(`${file} is ${stat.size} bytes, more than a regression file's ${kRegressionBytesMax}`);
    // One byte past the size fstat gave tells a file that grew while read from one that did not.
    const buffer = Buffer.alloc(stat.size + 1);
    let length = 0;
    while (length < buffer.length) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    if (length > stat.size) throw new BadInput(`${file} grew while it was read`);
    return buffer.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

/** The file's text: UTF-8, nothing else. */
function decodeUtf8(file: string, bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new BadInput(`${file} is not UTF-8 text`);
  }
}

/** A value from the file, quoted and inert, for a message. */
function quote(value: unknown): string {
  return inertLine(JSON.stringify(value) ?? String(value), 80);
}

/**
 * Checks a parsed regression (a file's JSON, or one about to be written) and rebuilds its program.
 *
 * @param name - the file, for messages.
 * @throws BadInput with one line naming the file and the problem.
 */
export function checkRegression(json: unknown, name: string): LoadedRegression {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new BadInput(`${name} is not a kvfuzz regression (${Array.isArray(json) ? 'a JSON array' : `JSON ${json === null ? 'null' : typeof json}`}, not an object)`);
  }
  const format: unknown = (json as { kvfuzz?: unknown }).kvfuzz;
  if (format === kRegressionFormatCode) {
    throw new BadInput(`${name} is a ${kRegressionFormatCode} file: it stores its program as code, which kvfuzz no longer runs; run the campaign again to store it as data`);
  }
  if (typeof format === 'string' && format.startsWith('kvfuzz-regression/') && format !== kRegressionFormat) {
    throw new BadInput(`${name} is format ${quote(format)}, but this kvfuzz reads ${kRegressionFormat}`);
  }
  if (format !== kRegressionFormat) throw new BadInput(`${name} is not a kvfuzz regression (kvfuzz: ${format === undefined ? 'missing' : quote(format)})`);
  const parsed = regressionSchema.safeParse(json);
  if (!parsed.success) throw new BadInput(`${name}: ${describeZodIssue(parsed.error, '')}`);
  const regression = parsed.data as Regression & { readonly commands: readonly CommandData[] };
  const target = findTarget(regression.target);
  const renamed = Object.hasOwn(kRenamedTargets, regression.target) ? kRenamedTargets[regression.target] : undefined;
  if (target === undefined && renamed !== undefined) {
    throw new BadInput(`${name}: target ${quote(regression.target)} is now ${quote(renamed)}: set the file's target to ${quote(renamed)} and move it to ${renamed}/`);
  }
  if (target === undefined) throw new BadInput(`${name}: target ${quote(regression.target)} is not one of ${kFuzzTargets.map((t) => t.name).join(', ')}`);
  try {
    return { ...regression, decoded: target.decode(regression.geometry, regression.commands) };
  } catch (error) {
    if (error instanceof BadInput) throw new BadInput(`${name}: ${error.message}`);
    throw error;
  }
}

/**
 * Reads and checks one stored failure. Nothing in it is evaluated: the program is rebuilt from
 * its data by the target's codec, and the printed `program` is ignored.
 *
 * @throws BadInput with one line naming the file and the problem: missing, a directory, over
 *   `kRegressionBytesMax`, not UTF-8 or JSON, not a regression, format 1 (code), an unknown
 *   target or command, arguments or a geometry out of range.
 */
export function loadRegression(file: string): LoadedRegression {
  const text = decodeUtf8(file, readBounded(file));
  if (text.trim() === '') throw new BadInput(`${file} is empty, not a regression file`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new BadInput(`${file} is not JSON`);
  }
  return checkRegression(json, file);
}

/**
 * Replays a stored failure's program against the reference. Throws what the oracle finds while the
 * bug is there; returns once it is fixed. (The program is the replay that survives model changes;
 * the seed and path replay the original batch only while the model's arbitraries are the same —
 * `pnpm fuzz --replay FILE` tries both.) A target whose model awaits answers with a promise.
 */
export function replayRegression(regression: LoadedRegression): void | Promise<void> {
  return regression.decoded.replay();
}
