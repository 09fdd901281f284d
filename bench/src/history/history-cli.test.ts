import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../cli/cli-io.js';
import type { HistoryChartData } from '../report/history-charts.js';
import { GitCommitError } from './errors.js';
import { historyMain, type HistoryCliDeps } from './history-cli.js';
import { fakeCommit, fixtureBenchReport, fixtureFuzzCampaign, fixtureHistory, fixtureKillTable, kFixturePoints } from './history-fixture.js';
import type { CommitInfo, HistoryRecord } from './types.js';

function captureIo(baseDir: string): CliIo & { stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  return { out: (s) => (out += s), err: (s) => (err += s), baseDir, tty: false, stdout: () => out, stderr: () => err };
}

const lastLine = (s: string): string => s.trim().split('\n').at(-1) ?? '';

/** A temporary directory with the three inputs written as bench.json, fuzz.json and kill.json. */
function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kvfuzz-history-'));
  writeFileSync(join(dir, 'bench.json'), JSON.stringify(fixtureBenchReport([['pkg:op:a 1×1', 1.0], ['pkg:op:b 8×64', 1.2]])));
  writeFileSync(join(dir, 'fuzz.json'), JSON.stringify(fixtureFuzzCampaign([['allocator', 150_000, 6000], ['host-pool', 90_000, 5000]])));
  writeFileSync(join(dir, 'kill.json'), JSON.stringify(fixtureKillTable([['m-one', 'allocator', 24], ['m-two', 'host-pool', 1200]])));
  return dir;
}

function deps(commit: CommitInfo = fakeCommit('e', 5)): HistoryCliDeps {
  return { gitCommit: () => commit, now: () => new Date('2026-11-29T12:00:00Z') };
}

function run(dir: string, argv: readonly string[], d: HistoryCliDeps = deps()): { status: number; out: string; err: string } {
  const io = captureIo(dir);
  const status = historyMain([...argv, '--history', 'history.jsonl'], io, d);
  return { status, out: io.stdout(), err: io.stderr() };
}

const historyLines = (dir: string): string[] => readFileSync(join(dir, 'history.jsonl'), 'utf8').trim().split('\n');

describe('bench:history,add', () => {
  it('appends one record with every ratio, the fuzz rates and the times to detect; summary last', () => {
    const dir = workspace();
    const r = run(dir, ['add', '--bench', 'bench.json', '--fuzz', 'fuzz.json', '--kill-table', 'kill.json', '--json', 'added.json']);
    expect(r.status, r.err).toBe(0);
    expect(lastLine(r.out)).toBe('bench:history add: added eeeeeeeeeeee quick — 2 ratios (1 pass, 1 fail), 2 fuzz targets, 2 mutants; line 1 of history.jsonl (1 record)');
    const lines = historyLines(dir);
    expect(lines).toHaveLength(1);
    const record = JSON.parse(lines[0] as string) as HistoryRecord;
    expect(record).toMatchObject({ kvfuzz: 'bench-history/1', commit: { sha: 'e'.repeat(40), dirty: false }, mode: 'quick', margin: 0.03, recordedAt: '2026-11-29T12:00:00.000Z', filter: null });
    expect(record.machine).toEqual({ cpu: 'Test CPU', cores: 2, node: 'v20.19.0', os: 'linux 6.1.0 x64', pinned: true });
    expect(record.ratios.map((x) => [x.name, x.ratio, x.verdict])).toEqual([['pkg:op:a 1×1', 1.0, 'pass'], ['pkg:op:b 8×64', 1.2, 'fail']]);
    expect(record.fuzz?.targets.map((t) => [t.target, t.commandsPerSecond, t.runsPerSecond])).toEqual([['allocator', 15000, 600], ['host-pool', 9000, 500]]);
    expect(record.killTable?.mutants.map((m) => [m.mutant, m.killed, m.detectMs])).toEqual([['m-one', true, 24], ['m-two', true, 1200]]);
    expect(JSON.parse(readFileSync(join(dir, 'added.json'), 'utf8'))).toEqual(record);
  });

  /** Adds a one-ratio report whose `settings` carry `setting` too, at commit `digit` of day `day`. */
  const addWithSetting = (dir: string, setting: Record<string, unknown>, digit: string, day: number): ReturnType<typeof run> => {
    const bench = fixtureBenchReport([['pkg:op:a 1×1', 1.0]]);
    writeFileSync(join(dir, 'setting.json'), JSON.stringify({ ...bench, settings: { ...(bench['settings'] as object), ...setting } }));
    return run(dir, ['add', '--bench', 'setting.json'], deps(fakeCommit(digit, day)));
  };

  it('records how the run isolated its cases: a report from before the setting ran per file', () => {
    const dir = workspace();
    expect(run(dir, ['add', '--bench', 'bench.json'], deps(fakeCommit('a', 1))).status).toBe(0);
    expect(addWithSetting(dir, { isolation: 'case' }, 'b', 2).status).toBe(0);
    const bad = addWithSetting(dir, { isolation: 'process' }, 'c', 3);
    expect(bad.status).toBe(2);
    expect(bad.err).toMatch(/settings\.isolation/);
    expect(historyLines(dir).map((l) => (JSON.parse(l) as HistoryRecord).isolation)).toEqual(['file', 'case']);
    // A line written before the field existed still reads, without it.
    const old = JSON.parse(historyLines(dir)[0] as string) as Record<string, unknown>;
    delete old['isolation'];
    writeFileSync(join(dir, 'history.jsonl'), `${JSON.stringify(old)}\n`);
    expect(run(dir, ['list']).status).toBe(0);
  });

  it('records how the run loaded the code when the report says, and refuses a layout it does not know', () => {
    const dir = workspace();
    expect(run(dir, ['add', '--bench', 'bench.json'], deps(fakeCommit('a', 1))).status).toBe(0);
    expect(addWithSetting(dir, { layout: 'modules' }, 'b', 2).status).toBe(0);
    const bad = addWithSetting(dir, { layout: 'tsx' }, 'c', 3);
    expect(bad.status).toBe(2);
    expect(bad.err).toMatch(/settings\.layout/);
    expect(historyLines(dir).map((l) => (JSON.parse(l) as HistoryRecord).layout)).toEqual([undefined, 'modules']);
    expect(run(dir, ['list']).status).toBe(0);
  });

  it('records how the run made its intervals when the report says, and refuses a method it does not know', () => {
    const dir = workspace();
    expect(run(dir, ['add', '--bench', 'bench.json'], deps(fakeCommit('a', 1))).status).toBe(0);
    expect(addWithSetting(dir, { interval: 'order-statistic' }, 'b', 2).status).toBe(0);
    const bad = addWithSetting(dir, { interval: 'bootstrap' }, 'c', 3);
    expect(bad.status).toBe(2);
    expect(bad.err).toMatch(/settings\.interval/);
    expect(historyLines(dir).map((l) => (JSON.parse(l) as HistoryRecord).interval)).toEqual([undefined, 'order-statistic']);
    expect(run(dir, ['list']).status).toBe(0);
  });

  it('records the rounds at which the run read its intervals, and refuses looks that do not increase', () => {
    const dir = workspace();
    expect(run(dir, ['add', '--bench', 'bench.json'], deps(fakeCommit('a', 1))).status).toBe(0);
    expect(addWithSetting(dir, { looks: [10, 20, 40, 80] }, 'b', 2).status).toBe(0);
    for (const [looks, digit] of [[[10, 10], 'c'], [[0, 10], 'd'], [[], 'e'], [Array.from({ length: 17 }, (_, i) => i + 1), 'f'], [[10, 2.5], '1']] as const) {
      const bad = addWithSetting(dir, { looks }, digit, 3);
      expect(bad.status, JSON.stringify(looks)).toBe(2);
      expect(bad.err).toMatch(/^pnpm bench:history: .*settings\.looks/);
    }
    expect(historyLines(dir).map((l) => (JSON.parse(l) as HistoryRecord).looks)).toEqual([undefined, [10, 20, 40, 80]]);
    expect(run(dir, ['list']).status).toBe(0);
  });

  it('keeps a ratio\'s metric and informational flag when the report has them', () => {
    const dir = workspace();
    const bench = fixtureBenchReport([['pkg:op:a 1×1', 1.0], ['gpu:free:batch 64', 0.5]]);
    (bench['ratios'] as Record<string, unknown>[])[1] = { ...(bench['ratios'] as object[])[1], metric: 'gpu / cpu', informational: true };
    writeFileSync(join(dir, 'bench.json'), JSON.stringify(bench));
    expect(run(dir, ['add', '--bench', 'bench.json']).status).toBe(0);
    const record = JSON.parse(historyLines(dir)[0] as string) as HistoryRecord;
    expect(record.ratios[0]).not.toHaveProperty('metric');
    expect(record.ratios[1]).toMatchObject({ metric: 'gpu / cpu', informational: true });
  });

  it('--dirty marks the record as taken with uncommitted changes', () => {
    const dir = workspace();
    const r = run(dir, ['add', '--bench', 'bench.json', '--commit', 'HEAD~1', '--dirty']);
    expect(lastLine(r.out)).toMatch(/^bench:history add: added eeeeeeeeeeee \(dirty\) quick/);
    expect((JSON.parse(historyLines(dir)[0] as string) as HistoryRecord).commit.dirty).toBe(true);
  });

  it('fuzz and kill table are optional', () => {
    const dir = workspace();
    const r = run(dir, ['add', '--bench', 'bench.json']);
    expect(r.status, r.err).toBe(0);
    expect(lastLine(r.out)).toMatch(/2 ratios \(1 pass, 1 fail\), no fuzz throughput, no kill table; line 1/);
    expect(JSON.parse(historyLines(dir)[0] as string)).toMatchObject({ fuzz: null, killTable: null });
  });

  it('refuses the same commit and mode twice (exit 1, file unchanged); --replace rewrites that line only', () => {
    const dir = workspace();
    expect(run(dir, ['add', '--bench', 'bench.json']).status).toBe(0);
    expect(run(dir, ['add', '--bench', 'bench.json'], deps(fakeCommit('f', 6))).status).toBe(0);
    const before = readFileSync(join(dir, 'history.jsonl'), 'utf8');

    const dup = run(dir, ['add', '--bench', 'bench.json', '--fuzz', 'fuzz.json']);
    expect(dup.status).toBe(1);
    expect(dup.err).toMatch(/commit eeeeeeeeeeee \(quick\) is already recorded on line 1 \(recorded 2026-11-29T12:00:00\.000Z\); pass --replace/);
    expect(readFileSync(join(dir, 'history.jsonl'), 'utf8')).toBe(before);

    const replaced = run(dir, ['add', '--bench', 'bench.json', '--fuzz', 'fuzz.json', '--replace']);
    expect(replaced.status, replaced.err).toBe(0);
    expect(lastLine(replaced.out)).toMatch(/^bench:history add: replaced eeeeeeeeeeee quick .*; line 1 of history\.jsonl \(2 records\)$/);
    const lines = historyLines(dir);
    expect(lines).toHaveLength(2);
    expect((JSON.parse(lines[0] as string) as HistoryRecord).fuzz).not.toBeNull();
    expect(lines[1]).toBe(before.trim().split('\n')[1]);
  });

  it('the same commit in the other mode is a new record', () => {
    const dir = workspace();
    writeFileSync(join(dir, 'full.json'), JSON.stringify(fixtureBenchReport([['pkg:op:a 1×1', 1.0]], 'full')));
    expect(run(dir, ['add', '--bench', 'bench.json']).status).toBe(0);
    const r = run(dir, ['add', '--bench', 'full.json']);
    expect(r.status, r.err).toBe(0);
    expect(lastLine(r.out)).toMatch(/added eeeeeeeeeeee full .* line 2 of history\.jsonl \(2 records\)/);
  });

  it('appends after a last line that lacks its newline', () => {
    const dir = workspace();
    expect(run(dir, ['add', '--bench', 'bench.json']).status).toBe(0);
    writeFileSync(join(dir, 'history.jsonl'), readFileSync(join(dir, 'history.jsonl'), 'utf8').trimEnd());
    const r = run(dir, ['add', '--bench', 'bench.json'], deps(fakeCommit('f', 6)));
    expect(lastLine(r.out)).toMatch(/line 2 of history\.jsonl \(2 records\)/);
    expect(historyLines(dir)).toHaveLength(2);
  });

  it('rejects bad inputs with exit 2, naming the file and the field, and writes nothing', () => {
    const bench = fixtureBenchReport([['pkg:op:a 1×1', 1.01]]);
    const ratio0 = (patch: Record<string, unknown>): unknown => ({ ...bench, ratios: [{ ...(bench['ratios'] as object[])[0], ...patch }] });
    const cases: [string, unknown, RegExp][] = [
      ['bench', '{not json', /HistoryInputError: --bench input\.json: is not JSON/],
      ['bench', { ...bench, kvfuzz: 'bench/0' }, /--bench input\.json: kvfuzz is "bench\/0", not "bench\/1" \(write it with pnpm bench --json FILE\)/],
      ['bench', { ...bench, aa: true }, /aa is true: an A\/A calibration run/],
      ['bench', { ...bench, mode: 'slow' }, /mode is "slow", not one of "quick", "full"/],
      ['bench', { ...bench, ratios: [] }, /ratios is empty/],
      ['bench', ratio0({ ciLow: 'x' }), /ratios\[0\]\.ciLow is "x", not a positive number/],
      ['bench', ratio0({ ratio: 0 }), /ratios\[0\]\.ratio is 0, not a positive number/],
      ['bench', ratio0({ ciHigh: 1.0 }), /ratios\[0\]: ratio 1\.01 lies outside its interval \[0\.9898, 1\]/],
      ['bench', ratio0({ verdict: 'ok' }), /ratios\[0\]\.verdict is "ok", not one of "pass", "fail", "inconclusive"/],
      ['bench', { ...bench, ratios: [(bench['ratios'] as object[])[0], (bench['ratios'] as object[])[0]] }, /ratios\[1\]\.name "pkg:op:a 1×1" repeats ratios\[0\]/],
      ['bench', { ...bench, machine: { ...(bench['machine'] as object), cpu: null } }, /machine\.cpu is null, not an object/],
      ['fuzz', { kvfuzz: 'kill-table/1' }, /--fuzz input\.json: kvfuzz is "kill-table\/1", not "fuzz-campaign\/1"/],
      ['fuzz', { ...fixtureFuzzCampaign([['allocator', 1, 1]]), targets: [{ target: 'allocator', mutant: 'free-without-unique', runs: 1, commands: 1, elapsedMs: 1, failed: true }] }, /targets\[0\]\.mutant is "free-without-unique": a campaign against a planted mutant/],
      ['fuzz', { ...fixtureFuzzCampaign([['allocator', 1, 1]]), targets: [{ target: 'allocator', mutant: null, runs: -1, commands: 1, elapsedMs: 1, failed: false }] }, /targets\[0\]\.runs is -1, not a non-negative integer number/],
      ['kill-table', { ...fixtureKillTable([['m', 'allocator', 5]]), rows: [{ mutant: 'm', target: 'allocator', mode: 'contract', killed: true, detectMs: null }] }, /--kill-table input\.json: rows\[0\]\.detectMs is null, but killed is true/],
      ['kill-table', { ...fixtureKillTable([['m', 'allocator', 5]]), timePerMutantSeconds: 0 }, /timePerMutantSeconds is 0, not a positive number/],
    ];
    for (const [flag, doc, message] of cases) {
      const dir = workspace();
      writeFileSync(join(dir, 'input.json'), typeof doc === 'string' ? doc : JSON.stringify(doc));
      const argv = flag === 'bench' ? ['add', '--bench', 'input.json'] : ['add', '--bench', 'bench.json', `--${flag}`, 'input.json'];
      const r = run(dir, argv);
      expect(r.status, `${flag} ${JSON.stringify(doc).slice(0, 80)}`).toBe(2);
      expect(r.err).toMatch(message);
      expect(existsSync(join(dir, 'history.jsonl'))).toBe(false);
    }
  });

  it('names a missing input file', () => {
    const r = run(workspace(), ['add', '--bench', 'nope.json']);
    expect(r.status).toBe(2);
    expect(r.err).toMatch(/--bench nope\.json: cannot be read \(ENOENT\)/);
  });

  it('exits 2 when git cannot name the commit', () => {
    const failing: HistoryCliDeps = {
      gitCommit: (rev) => {
        throw new GitCommitError(rev, 'git rev-parse exited 128: fatal: not a git repository');
      },
      now: () => new Date(),
    };
    const r = run(workspace(), ['add', '--bench', 'bench.json', '--commit', 'v9'], failing);
    expect(r.status).toBe(2);
    expect(r.err).toMatch(/GitCommitError: git cannot resolve "v9": git rev-parse exited 128/);
  });
});

describe('bench:history,usage', () => {
  it('bad usage exits 2 with the reason on stderr', () => {
    const cases: [string[], RegExp][] = [
      [[], /give a command: add, report or list/],
      [['plot'], /"plot" is not a command/],
      [['add'], /add needs --bench FILE/],
      [['add', '--bench', 'b.json', '--out', 'x.html'], /--out does not apply to add/],
      [['report', '--bench', 'b.json'], /--bench does not apply to report/],
      [['report', 'extra'], /unexpected argument "extra"/],
      [['list', '--bogus'], /Unknown option '--bogus'/],
    ];
    for (const [argv, message] of cases) {
      const r = run(workspace(), argv);
      expect(r.status, argv.join(' ')).toBe(2);
      expect(r.err).toMatch(/^pnpm bench:history: /);
      expect(r.err).toMatch(message);
    }
  });

  it('--help exits 0', () => {
    const r = run(workspace(), ['--help']);
    expect(r.status).toBe(0);
    expect(r.out).toMatch(/^Usage: pnpm bench:history add --bench FILE/);
  });
});

describe('bench:history,report', () => {
  const withHistory = (records: readonly HistoryRecord[]): string => {
    const dir = workspace();
    writeFileSync(join(dir, 'history.jsonl'), records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    return dir;
  };

  it('writes the HTML and the chart data: one chart per metric with its points; summary last', () => {
    const dir = withHistory(fixtureHistory());
    const r = run(dir, ['report', '--out', 'report/history.html', '--json', 'charts.json']);
    expect(r.status, r.err).toBe(0);
    expect(lastLine(r.out)).toBe('bench:history report: 6 charts (2 ratios, 2 fuzz targets, 2 mutants) over 4 records of 4 commits; wrote report/history.html');
    const html = readFileSync(join(dir, 'report/history.html'), 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<div class="charts" id="charts-ratio"></div>');
    expect(html).toContain('Permission is hereby granted'); // uPlot's MIT licence travels with its code
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/); // self-contained
    const data = JSON.parse(readFileSync(join(dir, 'charts.json'), 'utf8')) as HistoryChartData;
    expect(html.indexOf('<section id="summary">')).toBeLessThan(html.indexOf('<section id="section-ratio">'));
    expect(data.commits.map((c) => `${c.short}${c.dirty ? '*' : ''} ${c.mode}`)).toEqual(['aaaaaaa* quick', 'bbbbbbb full', 'ccccccc quick', 'ddddddd full']);
    expect(Object.fromEntries(data.charts.map((c) => [c.metric, c.points]))).toEqual(kFixturePoints);
  });

  it('an empty history gives a page without charts and a note', () => {
    const r = run(workspace(), ['report', '--out', 'h.html']);
    expect(r.status).toBe(0);
    expect(r.err).toMatch(/holds no record yet/);
    expect(lastLine(r.out)).toMatch(/^bench:history report: 0 charts .* over 0 records of 0 commits/);
  });

  it('a malformed history line exits 2 naming the line and the field', () => {
    const [first, second] = fixtureHistory() as [HistoryRecord, HistoryRecord];
    const dir = withHistory([first]);
    writeFileSync(join(dir, 'history.jsonl'), `${readFileSync(join(dir, 'history.jsonl'), 'utf8')}\n${JSON.stringify({ ...second, commit: { ...second.commit, sha: 'abc' } })}\n`);
    const r = run(dir, ['report', '--out', 'h.html']);
    expect(r.status).toBe(2);
    expect(r.err).toMatch(/HistoryFileError: \S*history\.jsonl line 3: commit\.sha is "abc", not a 40-digit lower-case hex sha/);
  });

  it('list prints one row per record and the count last', () => {
    const r = run(withHistory(fixtureHistory()), ['list']);
    expect(r.status, r.err).toBe(0);
    expect(r.out).toMatch(/aaaaaaaaaaaa\*\s+2026-11-01\s+quick\s+1/);
    expect(lastLine(r.out)).toBe('bench:history list: 4 records of 4 commits in history.jsonl');
  });
});
