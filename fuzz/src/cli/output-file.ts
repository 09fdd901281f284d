import { accessSync, constants, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError } from './usage-error.js';

/**
 * Resolves an output path (`--json FILE`, `--junit FILE`) and checks, before any work starts, that
 * it can be written: its folder exists and is writable, and the path is not a folder. A run never
 * ends with its verdict lost to a path typo.
 *
 * @param flag - the option's name, for the message.
 * @throws UsageError naming the flag, the path and the problem.
 */
export function checkOutputPath(flag: string, path: string, baseDir: string): string {
  if (path === '') throw new UsageError(`${flag} is empty`);
  const file = resolve(baseDir, path);
  const dir = dirname(file);
  let dirStat;
  try {
    dirStat = statSync(dir);
  } catch {
    throw new UsageError(`${flag} ${path}: the folder ${dir} does not exist`);
  }
  if (!dirStat.isDirectory()) throw new UsageError(`${flag} ${path}: ${dir} is not a folder`);
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    throw new UsageError(`${flag} ${path}: the folder ${dir} is not writable`);
  }
  let fileStat;
  try {
    fileStat = statSync(file);
  } catch {
    return file;
  }
  if (fileStat.isDirectory()) throw new UsageError(`${flag} ${path} is a folder, not a file`);
  return file;
}

/** Writes a whole file at once (a temporary file, then a rename), so a reader never sees half of it. */
export function writeOutputFile(file: string, text: string): void {
  const temporary = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  writeFileSync(temporary, text);
  renameSync(temporary, file);
}
