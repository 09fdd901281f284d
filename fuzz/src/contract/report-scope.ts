/**
 * What part of the contract a campaign exercises, for a per-rule report (`pnpm validate --report`):
 * the valid traffic alone (`valid`), or the valid traffic plus the inputs of one rule (its id).
 * Absent, a campaign feeds everything, as a plain `pnpm validate` does.
 */
export interface ReportScope {
  /** `valid` or a rule id (see rule-families.ts); everything when absent. */
  readonly family?: string;
  /** Hears each time the model feeds a rule's own input (a refused call, a probe, an offered size). */
  readonly onFed?: (rule: string) => void;
}

/** Whether a campaign in this scope feeds the inputs of `rule` (every rule's, when no family is set). */
export function scopeFeeds(scope: ReportScope, rule: string): boolean {
  return scope.family === undefined || scope.family === rule;
}
