// Vitest globalSetup: the run's temporary files (the tests', their workers' and every process they
// spawn) go to one run directory, removed when the run ends, so a test run leaves nothing in the
// system temp dir. Workers are started after globalSetup and inherit its process.env.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The variables `os.tmpdir()` and other tools (Python's tempfile, Chromium) read, POSIX first. */
const kTmpVariables = ['TMPDIR', 'TEMP', 'TMP'];

export default function setup() {
  const saved = kTmpVariables.map((name) => [name, process.env[name]]);
  const runDir = mkdtempSync(join(tmpdir(), 'kvfuzz-test-run-'));
  for (const name of kTmpVariables) process.env[name] = runDir;
  return () => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(runDir, { recursive: true, force: true });
  };
}
