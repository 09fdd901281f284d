import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, type CliRun } from '../support/spawn-cli.js';

/**
 * Hostile providers against `pnpm validate`: each class of misbehaviour ends with the exit status
 * it deserves (1 a violation, 2 a provider that could not be talked to), one summary line saying
 * which, within its timeout plus a little, and no provider process left behind.
 */

const kFixtures = 'test/hostile/fixtures';
/** The call timeout the timing cases run under: a module's load under tsx fits it on a loaded 2-core machine. */
const kCallTimeoutMs = 2_000;
/** The start timeout the timing cases run under. */
const kStartTimeoutMs = 1_500;
/** What a timed-out run may take beyond the validator's own start and the timeout on an idle machine: "a second or two". */
const kSlackMs = 2_000;
/** How long a killed provider's processes get to disappear after the validator has exited. */
const kGoneWaitMs = 2_000;
/** How long the lifecycle cases let a campaign run before they signal the validator. */
const kCampaignBeforeSignalMs = 1_500;

const timeouts = ['--call-timeout', String(kCallTimeoutMs), '--start-timeout', String(kStartTimeoutMs)];
const validate = (args: readonly string[], env: Readonly<Record<string, string>> = {}, onSpawn?: Parameters<typeof spawnCli>[3]): Promise<CliRun> =>
  spawnCli('validate.ts', args, env, onSpawn);
const pidsFile = (): string => join(mkdtempSync(join(tmpdir(), 'kvfuzz-pids-')), 'pids');

function readPids(file: string): number[] {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(Number);
}

/** Whether a process still runs (a zombie has stopped running; it only waits to be reaped). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    if (process.platform === 'linux') return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function expectAllGone(pids: readonly number[]): Promise<void> {
  expect(pids.length).toBeGreaterThan(0);
  const deadline = Date.now() + kGoneWaitMs;
  while (pids.some(running) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(pids.filter(running), 'provider processes still running').toEqual([]);
}

/** The run ended with `status` and one summary line matching `summary`, with no stack trace anywhere. */
function expectVerdict(r: CliRun, status: number, summary: RegExp): void {
  const where = `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
  expect(r.status, where).toBe(status);
  const lines = r.stdout.trimEnd().split('\n');
  expect(lines.at(-1), where).toMatch(summary);
  expect(r.stdout + r.stderr, where).not.toMatch(/^\s+at .*:\d+:\d+\)?$/m);
  expect(r.stderr, where).not.toContain('internal error');
}

let startMs = 0;
/** Two validator starts; on a loaded machine each can take several seconds. */
const kStartProbeMsMax = 60_000;

/**
 * The slack a case gets: {@link kSlackMs}, plus twice the validator's measured start. Under CI every
 * package's tests share two cores, and what follows a timeout (the kill, the reap, the summary) or
 * finds a planted bug slows as the start does: a case once took 3.5 s past a 1.6 s start there. A
 * run that waits out a longer timer or hangs still lands far past the bound.
 */
const slackMs = (): number => kSlackMs + 2 * startMs;

beforeAll(async () => {
  // The validator's own start (Node.js, tsx, its sources) on this machine now: timings are judged on top of it.
  const runs = [await validate(['--cmd', 'exit 0']), await validate([`${kFixtures}/throw-null-at-load.mjs`])];
  startMs = Math.max(...runs.map((r) => r.elapsedMs));
}, kStartProbeMsMax);

/** A module case: its fixture, extra flags, the exit status, the summary line, the timeout or time budget it waits out (0: none), and what the output must (not) hold. */
type ModuleCase = readonly [file: string, args: readonly string[], status: number, summary: RegExp, timeoutMs: number, output: { readonly has?: string | RegExp; readonly hasNot?: string }];

const kModuleCases: readonly ModuleCase[] = [
  ['sync-loop-in-alloc.ts', [], 2, /^sync-loop-in-alloc: the provider failed \(exit 2\) — did not answer alloc within 2000 ms \(--call-timeout\)/, kCallTimeoutMs, {}],
  ['exit-mid-run.ts', [], 2, /^exit-mid-run: the provider failed \(exit 2\) — exited with code 0 while answering alloc/, 0, {}],
  ['oom-in-alloc.ts', ['--provider-memory', '64'], 2, /^oom-in-alloc: the provider failed \(exit 2\) — ran out of memory \(--provider-memory 64 MiB\) while answering alloc/, 0, { has: 'JavaScript heap out of memory' }],
  ['top-level-await.mjs', [], 2, /could not be loaded \(exit 2\) — did not finish loading within 2000 ms \(--call-timeout; a top-level await that never settles\?\)$/, kCallTimeoutMs, {}],
  ['throw-null-at-load.mjs', [], 2, /throw-null-at-load\.mjs: the provider could not be loaded \(exit 2\) — the module threw while loading: null was thrown$/, 0, {}],
  ['unprintable-throw-at-load.mjs', [], 2, /could not be loaded \(exit 2\) — the module threw while loading: an unprintable object$/, 0, {}],
  ['throwing-name-getter.mjs', [], 2, /could not be loaded \(exit 2\) — reading the default export's name threw Error: no name$/, 0, {}],
  ['throwing-create-getter.mjs', [], 2, /could not be loaded \(exit 2\) — reading the default export's create threw TypeError: no create$/, 0, {}],
  ['exit-hook-fake-verdict.mjs', [], 1, /^group-keeps-reps: VIOLATION of [AH]\d+ \(.+\) after/, 0, { hasNot: 'FAKE' }],
  ['patch-fill.ts', [], 1, /^group-keeps-views: VIOLATION of [AH]\d+ \(.+\) after/, 0, {}],
  ['unprintable-throw.ts', [], 1, /^unprintable-throw: VIOLATION of A18 \(.+\) after/, 0, { has: 'ProviderRejection — the provider rejected alloc: an unprintable object' }],
  ['wrong-page-size.ts', [], 1, /^wrong-page-size: VIOLATION of A1 \(.+\) after \d/, 0, { has: /returned an allocator with pageSize \d+; kernelPageSize \d+ × dcpSize \d+ = \d+/ }],
  ['throwing-num-pages.ts', [], 1, /^throwing-num-pages: VIOLATION of A1 \(.+\) after \d/, 0, { has: 'an allocator whose numPages getter threw RangeError: numPages is a secret' }],
  ['plain-array-extend.ts', [], 1, /^plain-array-extend: VIOLATION of A5 \(.+\) after/, 0, { has: 'allocExtend returned an Array, not what the contract names' }],
  ['named-provider-fault.ts', [], 1, /^named-provider-fault: VIOLATION of A18 \(.+\) after/, 0, { has: 'ProviderFault: pretend the bridge broke' }],
  ['console-spam.ts', ['--time', '2'], 0, /^console-spam: no violation — [1-9]\d* runs/, 2_000, { hasNot: 'SPAM' }],
];

describe('fuzz:hostile,providers module', () => {
  it.each(kModuleCases)('%s %j: exit %i with one summary line, in time', async (file, args, status, summary, timeoutMs, output) => {
    const r = await validate([`${kFixtures}/${file}`, '--time', '5', ...timeouts, ...args]);
    expectVerdict(r, status, summary);
    expect(r.elapsedMs - startMs, `took ${Math.round(r.elapsedMs)} ms, the validator starts in ${Math.round(startMs)}`).toBeLessThan(timeoutMs + slackMs());
    if (output.has !== undefined) expect(r.stdout).toMatch(output.has);
    if (output.hasNot !== undefined) expect(r.stdout + r.stderr).not.toContain(output.hasNot);
  });
});

describe('fuzz:hostile,providers cmd', () => {
  it('stops a provider that never answers at the start timeout', async () => {
    const r = await validate(['--cmd', 'cat > /dev/null', ...timeouts]);
    expectVerdict(r, 2, /^cat > \/dev\/null: the provider could not be started \(exit 2\) — did not answer hello within 1500 ms \(--start-timeout\)$/);
    expect(r.elapsedMs - startMs).toBeLessThan(kStartTimeoutMs + slackMs());
  });

  it('stops `sleep 300` at the start timeout and leaves nothing running', async () => {
    const pids = pidsFile();
    const r = await validate(['--cmd', 'echo $$ >> "$KVFUZZ_PIDS_FILE"; exec sleep 300', ...timeouts], { KVFUZZ_PIDS_FILE: pids });
    expectVerdict(r, 2, /did not answer hello within 1500 ms \(--start-timeout\)$/);
    expect(r.elapsedMs - startMs).toBeLessThan(kStartTimeoutMs + slackMs());
    await expectAllGone(readPids(pids));
  });

  it('stops a provider spinning at 100% CPU after hello at the call timeout, and kills it', async () => {
    const pids = pidsFile();
    const r = await validate(['--cmd', `python3 ${kFixtures}/spin_after_hello.py`, ...timeouts], { KVFUZZ_PIDS_FILE: pids });
    expectVerdict(r, 2, /^spin-after-hello: the provider failed \(exit 2\) — did not answer create within 2000 ms \(--call-timeout\)/);
    expect(r.elapsedMs - startMs).toBeLessThan(kCallTimeoutMs + slackMs());
    await expectAllGone(readPids(pids));
  });

  it('refuses slots outside int32 (every slot + 2^32) as a violation', async () => {
    const r = await validate(['--cmd', `python3 ${kFixtures}/int32_overflow.py`, '--time', '5', ...timeouts]);
    expectVerdict(r, 1, /^int32-overflow: VIOLATION of A5 \(.+\) after/);
    expect(r.stdout).toMatch(/returned 42949672\d\d at position 0, not an integer in int32 range/);
  });

  it('stops reading a reply line at 16 MiB', async () => {
    const r = await validate(['--cmd', `python3 ${kFixtures}/huge_reply_line.py`, ...timeouts]);
    expectVerdict(r, 2, /^huge-reply-line: the provider failed \(exit 2\) — wrote a reply line longer than 16777216 bytes while answering create/);
    expect(r.elapsedMs - startMs).toBeLessThan(kCallTimeoutMs + slackMs());
  });

  it.each([
    ['rejections', [], 1],
    ['stderr of a crash', ['crash'], 2],
  ] as const)('escapes terminal controls and workflow commands in the name and %s', async (_what, extra, status) => {
    const r = await validate(['--cmd', ['python3', `${kFixtures}/control_chars.py`, ...extra].join(' '), '--time', '5', ...timeouts]);
    expect(r.status, r.stdout + r.stderr).toBe(status);
    const output = r.stdout + r.stderr;
    for (const raw of ['\u001b', '\u0007', '\r', '\u0000']) expect(output).not.toContain(raw);
    expect(output).not.toMatch(/^\s*::/m);
    expect(output).toContain('evil\\e]0;owned\\x07\\e[2J\\r\\n::error file=x::owned\\0\\r::warning::also');
    if (status === 2) expect(r.stdout).toContain('  | \\x3a:error file=y::from stderr');
    expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(status === 1 ? /: VIOLATION of A18 \(.+\) after/ : /: the provider failed \(exit 2\) — exited with code 3 while answering create/);
  });
});

describe('fuzz:hostile,providers lifecycle', () => {
  it('kills a provider that ignores SIGTERM, and the child it forked, when a call times out', async () => {
    const pids = pidsFile();
    const r = await validate(['--cmd', `sh ${kFixtures}/stubborn_fork.sh`, ...timeouts], { KVFUZZ_PIDS_FILE: pids });
    expectVerdict(r, 2, /^stubborn-fork: the provider failed \(exit 2\) — did not answer create within 2000 ms/);
    expect(readPids(pids)).toHaveLength(2);
    await expectAllGone(readPids(pids));
  });

  it.each([
    ['SIGINT', `${kFixtures}/stubborn-working.mjs`],
    ['SIGKILL', `python3 ${kFixtures}/stubborn_working.py`],
  ] as const)('leaves no provider process behind when the validator gets %s mid-campaign', async (signal, provider) => {
    const pids = pidsFile();
    const args = provider.startsWith('python3') ? ['--cmd', provider] : [provider];
    const r = await validate([...args, '--time', '60', ...timeouts], { KVFUZZ_PIDS_FILE: pids }, (child) => {
      const poll = setInterval(() => {
        if (readPids(pids).length < 2) return;
        clearInterval(poll);
        setTimeout(() => child.kill(signal), kCampaignBeforeSignalMs);
      }, 50);
      child.on('exit', () => clearInterval(poll));
    });
    expect(r.signal, r.stdout + r.stderr).toBe(signal);
    expect(readPids(pids)).toHaveLength(2);
    await expectAllGone(readPids(pids));
  });
});
