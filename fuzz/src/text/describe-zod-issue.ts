import type { z } from 'zod';
import { inertLine } from './inert-text.js';

/** Longest issue text kept: a zod message names the bound, never the whole value. */
const kIssueCharsMax = 200;

/**
 * The first problem zod found, as one inert line: where (`args[1].cuts`) and what
 * (`Too big: expected array to have <=64 items`).
 *
 * @param root - the name of the value that was checked (`args`, `geometry`); empty for a whole file.
 */
export function describeZodIssue(error: z.ZodError, root: string): string {
  const issue = error.issues[0];
  if (issue === undefined) return `${root === '' ? 'the value' : root} is invalid`;
  let where = root;
  for (const key of issue.path) where += typeof key === 'number' ? `[${key}]` : `${where === '' ? '' : '.'}${String(key)}`;
  return inertLine(`${where === '' ? '' : `${where}: `}${issue.message}`, kIssueCharsMax);
}
