import { readFileSync } from 'node:fs';
import { findTarget } from '../fuzz-targets.js';
import type { Regression } from './regression.js';

export function loadRegression(file: string | URL): Regression {
  const regression = JSON.parse(readFileSync(file, 'utf8')) as Regression;
  if (regression.kvfuzz !== 'kvfuzz-regression/1') throw new Error(`${String(file)} is not a kvfuzz regression (kvfuzz: ${String(regression.kvfuzz)})`);
  return regression;
}

/**
 * Replays a stored failure's shrunk program against the reference. Throws what the oracle finds
 * while the bug is there; returns once it is fixed. (The program is the replay that survives model
 * changes; the seed and path replay the original batch only while the model's arbitraries are the
 * same — `pnpm fuzz --replay FILE` tries both.) A target whose model awaits answers with a promise.
 */
export function replayRegression(regression: Regression): void | Promise<void> {
  const target = findTarget(regression.target);
  if (target === undefined) throw new Error(`regression ${regression.signature}: no target named ${regression.target}`);
  return target.replayProgram(regression.geometry, regression.program);
}

/** {@link replayRegression} of a stored file; a promise for a target whose model awaits (the GPU). */
export function replayRegressionFile(file: string | URL): void | Promise<void> {
  return replayRegression(loadRegression(file));
}
