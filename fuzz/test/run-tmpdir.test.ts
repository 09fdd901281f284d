import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script of the CI folder, without type declarations
import setupRunTmpdir from '../../ci/vitest-run-tmpdir.mjs';

// The guarantee that a test run leaves nothing in the system temp dir (vitest.config.ts's globalSetup).
describe('repo:test-run,tmpdir', () => {
  it('gives the test worker and the processes it spawns the run directory as their temp dir', () => {
    expect(basename(tmpdir())).toMatch(/^kvfuzz-test-run-/);
    const child = spawnSync(process.execPath, ['-p', 'require("node:os").tmpdir()'], { encoding: 'utf8' });
    expect(child.stdout.trim()).toBe(tmpdir());
  });

  it('removes the run directory with what is in it, and restores the temp dir', () => {
    const outer = tmpdir();
    const teardown = (setupRunTmpdir as () => () => void)();
    const runDir = tmpdir();
    try {
      expect(dirname(runDir)).toBe(outer);
      expect([process.env.TEMP, process.env.TMP]).toEqual([runDir, runDir]);
      mkdirSync(join(runDir, 'kvfuzz-left-'));
      writeFileSync(join(runDir, 'kvfuzz-left-', 'file.json'), '{}');
    } finally {
      teardown();
    }
    expect(existsSync(runDir)).toBe(false);
    expect(tmpdir()).toBe(outer);
  });
});
