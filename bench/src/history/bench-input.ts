/**
 * The part of a history record taken from a `bench/1` report (`pnpm bench --json FILE`): mode,
 * margin, machine summary and every ratio with its interval.
 *
 * @packageDocumentation
 */
import type { Verdict } from '../stats/verdict.js';
import type { JsonFields } from './json-fields.js';
import { expectSchema, type InputDocument } from './read-input.js';
import type { HistoryMachine, HistoryRatio, HistoryRecord } from './types.js';

/** Every verdict a ratio may carry (bench/README.md, "How a run works" 6). */
const kVerdicts: readonly Verdict[] = ['pass', 'fail', 'inconclusive'];
/** The isolations a run may have used (`file`: reports from before every case got its own children). */
export const kIsolations = ['case', 'file'] as const;
/** The layouts a run may have used (`modules`: the removed `--layout modules`). */
export const kLayouts = ['bundle', 'modules'] as const;
/** How a run's intervals may have been made; a report without the field used a bootstrap. */
export const kIntervals = ['order-statistic'] as const;
/** How a run may have made a round's ratio; a report without the field took the ratio of the two medians. */
export const kRoundRatios = ['slice-pairs'] as const;

/** The most looks a run may name: a report with more is not one `pnpm bench` wrote. */
const kLooksMax = 16;

/** The record fields a bench report supplies. */
export type BenchPart = Pick<HistoryRecord, 'benchCreatedAt' | 'mode' | 'filter' | 'isolation' | 'layout' | 'interval' | 'roundRatio' | 'looks' | 'margin' | 'confidence' | 'machine' | 'ratios'>;

/** Reads one ratio entry: positive numbers with `ciLow ≤ ratio ≤ ciHigh`, and `metric` / `informational` when present. */
export function readRatio(f: JsonFields, value: unknown, path: string): HistoryRatio {
  const r = f.object(value, path);
  const ratio = {
    name: f.string(r['name'], `${path}.name`),
    ratio: f.number(r['ratio'], `${path}.ratio`, 'positive'),
    ciLow: f.number(r['ciLow'], `${path}.ciLow`, 'positive'),
    ciHigh: f.number(r['ciHigh'], `${path}.ciHigh`, 'positive'),
    verdict: f.oneOf(r['verdict'], `${path}.verdict`, kVerdicts),
    rounds: f.number(r['rounds'], `${path}.rounds`, 'non-negative integer'),
  };
  if (!(ratio.ciLow <= ratio.ratio && ratio.ratio <= ratio.ciHigh)) f.problem(`${path}: ratio ${ratio.ratio} lies outside its interval [${ratio.ciLow}, ${ratio.ciHigh}]`);
  // Optional fields are kept only when present, so a checks ratio's record stays as it was.
  const metric = r['metric'] === undefined ? undefined : f.string(r['metric'], `${path}.metric`);
  const informational = r['informational'] === undefined ? undefined : f.boolean(r['informational'], `${path}.informational`);
  return { ...ratio, ...(metric === undefined ? {} : { metric }), ...(informational === undefined ? {} : { informational }) };
}

/** Reads a non-empty `ratios[]` with unique names. */
export function readRatios(f: JsonFields, value: unknown, path: string): HistoryRatio[] {
  const ratios = f.array(value, path, true).map((r, i) => readRatio(f, r, `${path}[${i}]`));
  f.unique(ratios, path, (r) => r.name, 'name');
  return ratios;
}

/** Reads the rounds at which a run's intervals were read: 1 to 16 positive integers, increasing. */
export function readLooks(f: JsonFields, value: unknown, path: string): number[] {
  const items = f.array(value, path, true);
  if (items.length > kLooksMax) f.problem(`${path} has ${items.length} entries, more than ${kLooksMax}`);
  const looks = items.map((x, i) => f.number(x, `${path}[${i}]`, 'non-negative integer'));
  looks.forEach((rounds, i) => {
    if (rounds < 1 || (i > 0 && rounds <= (looks[i - 1] as number))) f.problem(`${path}[${i}] is ${rounds}, not above ${i > 0 ? String(looks[i - 1]) : '0'}`);
  });
  return looks;
}

function readMachine(f: JsonFields, value: unknown): HistoryMachine {
  const m = f.object(value, 'machine');
  const cpu = f.object(m['cpu'], 'machine.cpu');
  const os = f.object(m['os'], 'machine.os');
  const taskset = f.object(m['taskset'], 'machine.taskset');
  return {
    cpu: f.string(cpu['model'], 'machine.cpu.model'),
    cores: f.number(cpu['cores'], 'machine.cpu.cores', 'non-negative integer'),
    node: f.string(m['node'], 'machine.node'),
    os: [f.string(os['platform'], 'machine.os.platform'), f.string(os['release'], 'machine.os.release'), f.string(os['arch'], 'machine.os.arch')].join(' '),
    pinned: f.boolean(taskset['used'], 'machine.taskset.used'),
  };
}

/**
 * Takes the tracked fields out of a `bench/1` report. An A/A calibration run is refused: its
 * ratios measure the harness, not the checks.
 *
 * @throws HistoryInputError naming the first bad field.
 */
export function benchPart(input: InputDocument): BenchPart {
  const f = input.fields;
  const d = expectSchema(input, 'bench/1', 'pnpm bench --json FILE');
  if (f.boolean(d['aa'], 'aa')) f.problem('aa is true: an A/A calibration run measures the harness, not the checks, and is not history');
  const settings = f.object(d['settings'], 'settings');
  return {
    benchCreatedAt: f.date(d['createdAt'], 'createdAt'),
    mode: f.oneOf(d['mode'], 'mode', ['quick', 'full'] as const),
    filter: f.stringOrNull(d['filter'], 'filter'),
    // A report written before the setting existed ran every case of a file in one pair of children.
    isolation: f.oneOf(settings['isolation'] ?? 'file', 'settings.isolation', kIsolations),
    // Recorded only when the report says: before the setting, children ran the bundle or tsx.
    ...(settings['layout'] === undefined ? {} : { layout: f.oneOf(settings['layout'], 'settings.layout', kLayouts) }),
    ...(settings['interval'] === undefined ? {} : { interval: f.oneOf(settings['interval'], 'settings.interval', kIntervals) }),
    ...(settings['roundRatio'] === undefined ? {} : { roundRatio: f.oneOf(settings['roundRatio'], 'settings.roundRatio', kRoundRatios) }),
    ...(settings['looks'] === undefined ? {} : { looks: readLooks(f, settings['looks'], 'settings.looks') }),
    margin: f.number(settings['margin'], 'settings.margin', 'non-negative'),
    confidence: f.number(settings['confidence'], 'settings.confidence', 'positive'),
    machine: readMachine(f, d['machine']),
    ratios: readRatios(f, d['ratios'], 'ratios'),
  };
}
