import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';

// The guarantee that a test run leaves nothing in the system temp dir (vitest.config.ts's globalSetup).
describe('bench:test-run,tmpdir', () => {
  it('gives the test worker and the processes it spawns the run directory as their temp dir', () => {
    expect(basename(tmpdir())).toMatch(/^kvfuzz-test-run-/);
    const child = spawnSync(process.execPath, ['-p', 'require("node:os").tmpdir()'], { encoding: 'utf8' });
    expect(child.stdout.trim()).toBe(tmpdir());
  });
});
