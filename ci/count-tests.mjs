#!/usr/bin/env node
// Sums the vitest JSON reports (<package>/test-results/*.json) of this run and
// prints a line per package, then, as the very last line, `N passed, N failed`
// (with `, N skipped` when some were skipped).
//
//   node ci/count-tests.mjs [--root DIR] [--turbo-exit N] [--ci] [FILE...]
//
//   --root DIR      search DIR/packages/*, DIR/fuzz, DIR/bench (default: the repo root)
//   --turbo-exit N  exit status of the turbo run; non-zero makes this exit non-zero
//   --ci            no skipped tests allowed (also on when the CI env var is set and
//                   not "false"/"0")
//   FILE...         count exactly these report files instead of searching
//
// Exit status: 0 only when turbo succeeded, no test failed, at least one test ran,
// no test file failed to load, and (under CI) nothing was skipped.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPORT_DIR = 'test-results';

function parseArgs(argv) {
  const opts = {
    root: resolve(dirname(fileURLToPath(import.meta.url)), '..'),
    turboExit: 0,
    ci: !!process.env.CI && !['false', '0'].includes(process.env.CI.toLowerCase()),
    files: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (a.includes('=')) return a.slice(a.indexOf('=') + 1);
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--root' || a.startsWith('--root=')) opts.root = resolve(value());
    else if (a === '--turbo-exit' || a.startsWith('--turbo-exit=')) opts.turboExit = Number(value());
    else if (a === '--ci') opts.ci = true;
    else if (a === '--no-ci') opts.ci = false;
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else opts.files.push(resolve(a));
  }
  return opts;
}

function packageDirs(root) {
  const dirs = [];
  const pk = join(root, 'packages');
  if (existsSync(pk)) {
    for (const d of readdirSync(pk).sort()) {
      const p = join(pk, d);
      if (statSync(p).isDirectory()) dirs.push(p);
    }
  }
  for (const d of ['fuzz', 'bench']) if (existsSync(join(root, d))) dirs.push(join(root, d));
  return dirs;
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function pkgInfo(dir) {
  const pj = readJson(join(dir, 'package.json')) ?? {};
  return { name: pj.name ?? dir, hasTest: typeof pj.scripts?.test === 'string' };
}

// A path relative to the cwd when it lies below it, else as is.
function shortPath(p) {
  const r = relative(process.cwd(), p);
  return r && !r.startsWith('..') ? r : p;
}

const num = (x) => (Number.isFinite(x) ? x : 0);

function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`[count] ${e.message}`);
    return 2;
  }

  const problems = [];
  const notes = [];
  let reports = [];
  if (opts.files.length) {
    reports = opts.files.map((f) => ({ file: f, name: shortPath(f) }));
  } else {
    for (const dir of packageDirs(opts.root)) {
      const info = pkgInfo(dir);
      const reportDir = join(dir, REPORT_DIR);
      // A package may run vitest more than once, each run writing its own report.
      const files = existsSync(reportDir) ? readdirSync(reportDir).filter((f) => f.endsWith('.json')).sort() : [];
      for (const f of files) reports.push({ file: join(reportDir, f), name: files.length === 1 ? info.name : `${info.name} (${f})` });
      if (files.length === 0 && info.hasTest) notes.push(`${info.name}: has a test script but wrote no report in ${REPORT_DIR}/`);
    }
  }

  let passed = 0, failed = 0, skipped = 0;
  for (const r of reports) {
    const j = readJson(r.file);
    if (!j || typeof j !== 'object') {
      problems.push(`${r.name}: cannot read ${shortPath(r.file)} as JSON`);
      console.log(`[count] ${r.name}: unreadable report`);
      continue;
    }
    const p = num(j.numPassedTests);
    let f = num(j.numFailedTests);
    const s = num(j.numPendingTests) + num(j.numTodoTests);
    // A test file that failed to load (syntax/import error, top-level throw) has
    // status "failed" and no failed tests of its own: count each as one failure.
    const brokenFiles = (j.testResults ?? []).filter(
      (t) => t.status === 'failed' && !(t.assertionResults ?? []).some((a) => a.status === 'failed'),
    );
    f += brokenFiles.length;
    for (const t of brokenFiles) {
      const msg = String(t.message ?? '').split('\n')[0].slice(0, 200);
      problems.push(`${r.name}: test file failed to run: ${relative(opts.root, t.name ?? '') || t.name}${msg ? ` (${msg})` : ''}`);
    }
    if (j.success === false && f === 0) {
      const why = (j.testResults ?? []).length === 0 ? 'no test files found?' : 'unhandled errors?';
      problems.push(`${r.name}: vitest reported success=false (${why})`);
    }
    const files = (j.testResults ?? []).length;
    console.log(
      `[count] ${r.name}: passed ${p}, failed ${f}, skipped ${s} (${files} test file${files === 1 ? '' : 's'})`,
    );
    passed += p;
    failed += f;
    skipped += s;
  }

  for (const n of notes) console.log(`[count] note: ${n}`);
  if (opts.turboExit !== 0) problems.push(`turbo run exited with status ${opts.turboExit}`);
  if (failed > 0) problems.push(`${failed} test${failed === 1 ? '' : 's'} failed`);
  if (passed + failed === 0) problems.push(reports.length ? '0 tests ran' : '0 tests ran (no vitest report was written)');
  if (opts.ci && skipped > 0) problems.push(`${skipped} test${skipped === 1 ? '' : 's'} skipped; no skipped tests are allowed in CI`);
  for (const p of problems) console.log(`[count] FAIL: ${p}`);

  // The closing line: alone, last, exactly `N passed, N failed[, N skipped]`.
  console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
  return problems.length ? 1 : 0;
}

process.exitCode = main();
