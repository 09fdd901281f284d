/**
 * Opens a page in Debian's headless Chromium (the `chromium` package, installed by ci/setup.sh;
 * never a downloaded browser) and returns the DOM after the page's scripts ran
 * (`--dump-dom`). The history report's test reads the charts' render signals from it.
 *
 * @packageDocumentation
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Names the Chromium binary goes by on Debian and elsewhere, in the order searched on PATH. */
const kChromiumNames = ['chromium', 'chromium-browser'];
/** Environment variable that names the binary explicitly. */
export const kChromiumEnv = 'KVFUZZ_CHROMIUM';
/** How to get Chromium, for error messages. */
export const kChromiumFix = `run bash ci/setup.sh as root (it runs apt-get install -y --no-install-recommends chromium), or set ${kChromiumEnv} to a Chromium binary`;
/**
 * Longest a page load may take: Chromium starts in 1–2 s here; a busy CI machine gets slack, and a
 * hung browser is still cut off.
 */
export const kDumpDomTimeoutMs = 20_000;

/** Chromium is not installed (or `KVFUZZ_CHROMIUM` names no executable). */
export class ChromiumMissingError extends Error {
  readonly code = 'CHROMIUM_MISSING';
  constructor(detail: string) {
    super(`headless Chromium is needed to check that the history report's charts render, but ${detail}; ${kChromiumFix}`);
    this.name = 'ChromiumMissingError';
  }
}

/** Chromium ran but did not print a DOM. */
export class ChromiumRunError extends Error {
  readonly code = 'CHROMIUM_RUN';
  constructor(message: string) {
    super(message);
    this.name = 'ChromiumRunError';
  }
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Finds the Chromium binary: `KVFUZZ_CHROMIUM`, else `chromium` or `chromium-browser` on PATH.
 *
 * @throws ChromiumMissingError naming where it looked.
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string {
  const named = env[kChromiumEnv];
  if (named !== undefined && named !== '') {
    if (executable(named)) return named;
    throw new ChromiumMissingError(`${kChromiumEnv}=${named} is not an executable file`);
  }
  const dirs = (env['PATH'] ?? '').split(delimiter).filter((d) => d !== '');
  for (const name of kChromiumNames) {
    for (const dir of dirs) {
      const path = join(dir, name);
      if (executable(path)) return path;
    }
  }
  throw new ChromiumMissingError(`none of ${kChromiumNames.join(', ')} is on PATH`);
}

/**
 * Loads `file` in headless Chromium and returns the serialised DOM once the load event has fired.
 * Runs with a throw-away profile, no sandbox (CI runs as root) and no GPU.
 *
 * @param chromium - the binary, from {@link findChromium}
 * @param file - an HTML file on disk
 * @throws ChromiumRunError when Chromium fails, times out or prints no DOM.
 */
export function dumpDom(chromium: string, file: string, timeoutMs = kDumpDomTimeoutMs): string {
  const profile = mkdtempSync(join(tmpdir(), 'kvfuzz-chromium-'));
  try {
    const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--no-default-browser-check', `--user-data-dir=${profile}`, '--dump-dom', pathToFileURL(file).href];
    const r = spawnSync(chromium, args, { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
    const tail = (r.stderr ?? '').trim().split('\n').slice(-5).join('\n');
    if (r.error !== undefined) throw new ChromiumRunError(`${chromium} did not finish within ${timeoutMs} ms or did not start (${r.error.message})\n${tail}`);
    if (r.status !== 0 || !r.stdout.includes('</html>')) throw new ChromiumRunError(`${chromium} --dump-dom exited ${String(r.status ?? r.signal)} without a DOM:\n${tail}`);
    return r.stdout;
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}
