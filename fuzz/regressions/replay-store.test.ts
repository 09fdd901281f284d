/**
 * Replays the regression store: each stored failure of the reference is one test, which fails
 * until the bug is fixed and then keeps it fixed. The store is this folder, or the folder
 * `KVFUZZ_REGRESSION_DIR` names (tests use a temporary one). Every file is data: it is checked and
 * its commands rebuilt by the target's codec; nothing in it is evaluated or imported.
 */
import { basename, dirname, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { regressionDir, regressionFiles } from '../src/regressions/regression-store.js';
import { loadRegression, replayRegression, type LoadedRegression } from '../src/regressions/replay-regression.js';
import { describeThrown } from '../src/text/describe-thrown.js';
import { inertLine } from '../src/text/inert-text.js';

/** Longest message excerpt in a test's title (characters). */
const kTitleMessageCharsMax = 120;

const dir = regressionDir();

/** Each file loaded once, when the tests are collected: a file that does not load keeps its error for its test. */
const stored = regressionFiles(dir).map((file): { file: string; name: string; regression: LoadedRegression | null; error: unknown } => {
  const name = relative(dir, file);
  try {
    return { file, name, regression: loadRegression(file), error: null };
  } catch (error) {
    return { file, name, regression: null, error };
  }
});

/** Where a loaded file is wrong for the store: it belongs in its target's folder. */
function misplaced(s: (typeof stored)[number]): string | null {
  if (s.regression === null) return null;
  const folder = dirname(s.file) === dir ? null : basename(dirname(s.file));
  return folder === s.regression.target ? null : `${s.name}: a ${s.regression.target} regression belongs in ${s.regression.target}/`;
}

function title(s: (typeof stored)[number]): string {
  const firstLine = s.regression?.message.split('\n')[0] ?? '';
  return `${inertLine(s.name, 200)}: ${s.regression === null ? 'does not load' : inertLine(firstLine, kTitleMessageCharsMax)}`;
}

describe('fuzz:regressions,replay', () => {
  it(`loads every file in the store (${stored.length} files)`, () => {
    const problems = stored.flatMap((s) => (s.error !== null ? [describeThrown(s.error, 400)] : (misplaced(s) ?? [])));
    expect(problems, problems.join('\n')).toEqual([]);
  });

  for (const s of stored) {
    it(title(s), async () => {
      if (s.regression === null) throw s.error;
      await replayRegression(s.regression);
    });
  }
});
