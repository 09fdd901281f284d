#!/usr/bin/env node
// Checks commit subjects: `area: what changed`, at most 72 characters (details go in the body).
//   node ci/commit-subjects.mjs            every commit after the first one held to the rule
//   node ci/commit-subjects.mjs --file F   one message file (the commit-msg hook)
// Exits 1 naming each subject that breaks the rule, 2 on bad usage.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The rule holds for the commits after this one; older subjects stay as written. */
export const kLastUnruledCommit = '6217ab9';
/** Git's one-line views and most terminals' tab titles cut near here. */
export const kSubjectLengthMax = 72;
const kSubjectPattern = /^[a-z0-9@][a-z0-9@/._,+ -]*: \S/;

/** The problem with one subject, or null when it keeps the rule. */
export function subjectProblem(subject) {
  if (subject.length > kSubjectLengthMax) return `${subject.length} characters (at most ${kSubjectLengthMax})`;
  if (!kSubjectPattern.test(subject)) return 'not `area: what changed`';
  return null;
}

function subjectsSinceRule(cwd) {
  const out = execFileSync('git', ['log', '--format=%h %s', `${kLastUnruledCommit}..HEAD`], { cwd, encoding: 'utf8' });
  return out.split('\n').filter((line) => line !== '').map((line) => ({ id: line.slice(0, line.indexOf(' ')), subject: line.slice(line.indexOf(' ') + 1) }));
}

function main(argv) {
  let entries;
  if (argv.length === 2 && argv[0] === '--file') {
    const firstLine = readFileSync(argv[1], 'utf8').split('\n').find((line) => !line.startsWith('#')) ?? '';
    entries = [{ id: 'this commit', subject: firstLine }];
  } else if (argv.length === 0) {
    entries = subjectsSinceRule(process.cwd());
  } else {
    process.stderr.write('usage: node ci/commit-subjects.mjs [--file MESSAGE_FILE]\n');
    return 2;
  }
  const bad = entries.map((e) => ({ ...e, problem: subjectProblem(e.subject) })).filter((e) => e.problem !== null);
  for (const e of bad) process.stderr.write(`commit subject of ${e.id}: ${e.problem}: ${JSON.stringify(e.subject.slice(0, 100))}\n`);
  if (bad.length === 0 && argv.length === 0) process.stdout.write(`${entries.length} commit subjects keep \`area: what changed\`, at most ${kSubjectLengthMax} characters\n`);
  return bad.length === 0 ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exit(main(process.argv.slice(2)));
