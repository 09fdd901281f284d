/**
 * Reading one `bench-history/1` record back from the history file, field by field, so a hand
 * edit that breaks a line is reported with its line and field.
 *
 * @packageDocumentation
 */
import { kIntervals, kIsolations, kLayouts, kRoundRatios, readLooks, readRatios } from './bench-input.js';
import { fuzzRun, readFuzzTarget } from './fuzz-input.js';
import type { JsonFields } from './json-fields.js';
import { readMutants } from './kill-table-input.js';
import { kHistorySchema, type CommitInfo, type HistoryFuzz, type HistoryKillTable, type HistoryRecord } from './types.js';

/** A full git sha. */
const kShaPattern = /^[0-9a-f]{40}$/;

/** Reads a commit: 40-hex sha, ISO date, subject, dirty flag. */
export function readCommit(f: JsonFields, value: unknown, path: string): CommitInfo {
  const c = f.object(value, path);
  const sha = f.string(c['sha'], `${path}.sha`);
  if (!kShaPattern.test(sha)) f.problem(`${path}.sha is ${JSON.stringify(sha)}, not a 40-digit lower-case hex sha`);
  return {
    sha,
    date: f.date(c['date'], `${path}.date`),
    subject: typeof c['subject'] === 'string' ? c['subject'] : f.problem(`${path}.subject is not a string`),
    dirty: f.boolean(c['dirty'], `${path}.dirty`),
  };
}

function readFuzz(f: JsonFields, value: unknown): HistoryFuzz | null {
  if (value === null) return null;
  const z = f.object(value, 'fuzz');
  const targets = f.array(z['targets'], 'fuzz.targets', true).map((t, i) => readFuzzTarget(f, t, `fuzz.targets[${i}]`));
  return fuzzRun(f, z, 'fuzz.', targets);
}

function readKillTable(f: JsonFields, value: unknown): HistoryKillTable | null {
  if (value === null) return null;
  const k = f.object(value, 'killTable');
  return {
    seed: f.number(k['seed'], 'killTable.seed', 'integer'),
    timePerMutantSeconds: f.number(k['timePerMutantSeconds'], 'killTable.timePerMutantSeconds', 'positive'),
    mutants: readMutants(f, k['mutants'], 'killTable.mutants'),
  };
}

/**
 * Checks a parsed line of the history file and returns it as a record.
 *
 * @param f - reads fields, failing with the history file's error class
 */
export function parseHistoryRecord(f: JsonFields, doc: unknown): HistoryRecord {
  const d = f.object(doc, 'the record');
  if (d['kvfuzz'] !== kHistorySchema) f.problem(`kvfuzz is ${JSON.stringify(d['kvfuzz']) ?? 'missing'}, not "${kHistorySchema}"`);
  const m = f.object(d['machine'], 'machine');
  return {
    kvfuzz: kHistorySchema,
    commit: readCommit(f, d['commit'], 'commit'),
    recordedAt: f.date(d['recordedAt'], 'recordedAt'),
    benchCreatedAt: f.date(d['benchCreatedAt'], 'benchCreatedAt'),
    mode: f.oneOf(d['mode'], 'mode', ['quick', 'full'] as const),
    filter: f.stringOrNull(d['filter'], 'filter'),
    ...(d['isolation'] === undefined ? {} : { isolation: f.oneOf(d['isolation'], 'isolation', kIsolations) }),
    ...(d['layout'] === undefined ? {} : { layout: f.oneOf(d['layout'], 'layout', kLayouts) }),
    ...(d['interval'] === undefined ? {} : { interval: f.oneOf(d['interval'], 'interval', kIntervals) }),
    ...(d['roundRatio'] === undefined ? {} : { roundRatio: f.oneOf(d['roundRatio'], 'roundRatio', kRoundRatios) }),
    ...(d['looks'] === undefined ? {} : { looks: readLooks(f, d['looks'], 'looks') }),
    margin: f.number(d['margin'], 'margin', 'non-negative'),
    confidence: f.number(d['confidence'], 'confidence', 'positive'),
    machine: {
      cpu: f.string(m['cpu'], 'machine.cpu'),
      cores: f.number(m['cores'], 'machine.cores', 'non-negative integer'),
      node: f.string(m['node'], 'machine.node'),
      os: f.string(m['os'], 'machine.os'),
      pinned: f.boolean(m['pinned'], 'machine.pinned'),
    },
    ratios: readRatios(f, d['ratios'], 'ratios'),
    fuzz: readFuzz(f, d['fuzz']),
    killTable: readKillTable(f, d['killTable']),
  };
}

/** The key at most one record holds: commit sha and mode. */
export function recordKey(record: Pick<HistoryRecord, 'commit' | 'mode'>): string {
  return `${record.commit.sha} ${record.mode}`;
}

/** Records in chart order: by commit date, then by when they were recorded. */
export function chartOrder(records: readonly HistoryRecord[]): HistoryRecord[] {
  return [...records].sort((a, b) => Date.parse(a.commit.date) - Date.parse(b.commit.date) || Date.parse(a.recordedAt) - Date.parse(b.recordedAt));
}
