import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Writes `value` as indented JSON to `path` (its folder made first); nothing when `path` is null. */
export function writeJsonFile(path: string | null, value: unknown): void {
  if (path === null) return;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}
