/**
 * Turns printed command lines (`alloc(64)`, …) back into commands, with only the given builders
 * in scope. The text comes from the models' own `toString`, e.g. a regression file.
 */
export function parseProgram<C>(scope: Readonly<Record<string, (...args: never[]) => C>>, lines: readonly string[]): C[] {
  const build = new Function(...Object.keys(scope), `return [${lines.join(',\n')}];`) as (...fns: unknown[]) => C[];
  return build(...Object.values(scope));
}
