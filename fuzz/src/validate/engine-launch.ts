import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BadInput } from '../bad-input.js';
import { inertLine } from '../text/inert-text.js';
import type { ProviderLaunch } from './provider-launch.js';

/** Engines `pnpm validate --engine NAME` runs through an adapter of this repository. */
export const kEngines = ['sglang'] as const;
export type EngineName = (typeof kEngines)[number];

/** The adapter of each engine: a program speaking the protocol (adapters/<engine>/README.md). */
const kAdapterOf: Readonly<Record<EngineName, string>> = {
  sglang: fileURLToPath(new URL('../../../adapters/sglang/kvfuzz_sglang.py', import.meta.url)),
};

/** Debian's interpreter, where its `python3-torch` lives; another python3 earlier on PATH may lack torch. */
const kDebianPython = '/usr/bin/python3';
/** The longest line of the adapter's `--check` answer kept for a message. */
const kCheckMessageCharsMax = 400;

/** The Python an engine adapter runs with: `KVFUZZ_PYTHON`, else Debian's, else the first on PATH. */
export function enginePython(): string {
  const chosen = process.env['KVFUZZ_PYTHON'];
  if (chosen !== undefined && chosen !== '') return chosen;
  return existsSync(kDebianPython) ? kDebianPython : 'python3';
}

/**
 * The engine's source tree named by `--engine-src`, checked to be a folder (the adapter checks what
 * is in it). Null when none is named: the adapter then imports the installed package.
 *
 * @throws BadInput naming the path when it is missing or not a folder.
 */
export function engineSource(path: string | undefined, baseDir: string): string | null {
  if (path === undefined) return null;
  const dir = resolve(baseDir, path);
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new BadInput(`--engine-src ${inertLine(path, 200)}: no such folder (looked at ${dir})`);
  }
  if (!isDir) throw new BadInput(`--engine-src ${inertLine(path, 200)} is not a folder`);
  return dir;
}

/**
 * Checks that the engine's adapter can run here (Python, torch, the engine's files) with its
 * `--check` mode, then returns how to start it as a provider.
 *
 * @param timeoutMs - the longest wait for the check (the adapter imports torch).
 * @throws BadInput with one line saying what is missing and how to get it.
 */
export function engineLaunch(engine: EngineName, source: string | null, timeoutMs: number): ProviderLaunch {
  const python = enginePython();
  const script = kAdapterOf[engine];
  const args = [script, ...(source === null ? [] : ['--engine-src', source])];
  const check = spawnSync(python, [...args, '--check'], { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 1024 * 1024 });
  if (check.error !== undefined) {
    const code = (check.error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new BadInput(`the ${engine} engine needs Python 3 with torch, and ${python} was not found: run bash ci/setup.sh as root (Debian's python3 and python3-torch), or set KVFUZZ_PYTHON`);
    throw new BadInput(`the ${engine} adapter's check did not finish (${code ?? 'error'} after ${timeoutMs} ms; --start-timeout sets the wait)`);
  }
  const line = (check.stdout ?? '').trim().split('\n').at(-1) ?? '';
  let answer: { ok?: unknown; error?: unknown };
  try {
    answer = JSON.parse(line) as { ok?: unknown; error?: unknown };
  } catch {
    const stderr = inertLine((check.stderr ?? '').trim().split('\n').at(-1) ?? '', kCheckMessageCharsMax);
    throw new BadInput(`the ${engine} adapter's check with ${python} failed (exit ${check.status ?? check.signal})${stderr === '' ? '' : `: ${stderr}`}`);
  }
  if (answer.ok !== true || check.status !== 0) {
    throw new BadInput(`the ${engine} engine cannot run: ${inertLine(typeof answer.error === 'string' ? answer.error : 'its check said no', kCheckMessageCharsMax)}`);
  }
  return { file: python, args, memoryMib: null };
}
