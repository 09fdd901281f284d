// How a provider module finds the contract's packages (plain JavaScript: part of it runs in
// Node's loader thread, before any TypeScript loader could help).
//
// A provider written in a project outside this workspace imports the contract's types and errors
// from `@kvfuzz/allocator-core` or `@kvfuzz/host-pool`, which it may not have installed. For those
// two names only, the module host (`registerContractPackages`, before it imports the provider)
// tries, in this order, and the first that succeeds wins:
//
//   1. the import as the provider wrote it (its own installed copy, whatever the conditions pick);
//   2. its own installed copy without the `source` condition — a packed copy ships `dist/` only,
//      and an older one may still name a `source` entry it does not contain;
//   3. the workspace's package, resolved as from the module host's own folder: its `source` entry
//      (the module host runs with `--conditions=source` and tsx's loader).
//
// `import` goes through the resolve hook below (module.register). A `.ts` provider in a CommonJS
// package (npm's default) is compiled by tsx to `require` calls, which these hooks do not see on
// Node 20, so `require` gets the same fallback (steps 1 and 3: CommonJS has no per-call conditions).
import { createRequire, register } from 'node:module';
import { fileURLToPath } from 'node:url';

/** The packages a provider may use without installing them: the two contracts' types and errors. */
const kContractPackages = new Set(['@kvfuzz/allocator-core', '@kvfuzz/host-pool']);
/** The workspace's own export condition (package.json `exports`): its TypeScript sources. */
const kSourceCondition = 'source';

// ---- main thread ----------------------------------------------------------------------------------

/**
 * Makes `@kvfuzz/allocator-core` and `@kvfuzz/host-pool` resolvable for every module imported from
 * here on, by `import` and by `require`.
 *
 * @param hostURL - the module host's URL: the workspace packages resolve as from there.
 */
export function registerContractPackages(hostURL) {
  register(new URL(import.meta.url), { data: { hostURL } });
  const Module = createRequire(hostURL)('node:module');
  const resolveFilename = Module._resolveFilename;
  const hostFile = fileURLToPath(hostURL);
  const hostParent = { id: hostFile, filename: hostFile, paths: Module._nodeModulePaths(hostFile.slice(0, hostFile.lastIndexOf('/'))) };
  Module._resolveFilename = function resolveContractPackage(request, parent, isMain, options) {
    try {
      return Reflect.apply(resolveFilename, this, [request, parent, isMain, options]);
    } catch (error) {
      if (!kContractPackages.has(request) || error?.code !== 'MODULE_NOT_FOUND') throw error;
      return Reflect.apply(resolveFilename, this, [request, hostParent, isMain, options]);
    }
  };
}

// ---- loader thread: module.register's hooks ----------------------------------------------------------

/** The module host's URL (step 3 resolves from there); set by initialize. */
let workspaceParentURL = null;

export function initialize(data) {
  workspaceParentURL = data?.hostURL ?? null;
}

const notFound = (error) => error?.code === 'ERR_MODULE_NOT_FOUND';

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    if (!kContractPackages.has(specifier) || !notFound(error) || workspaceParentURL === null) throw error;
  }
  const conditions = context.conditions ?? [];
  if (conditions.includes(kSourceCondition)) {
    try {
      return await nextResolve(specifier, { ...context, conditions: conditions.filter((c) => c !== kSourceCondition) });
    } catch (error) {
      if (!notFound(error)) throw error;
    }
  }
  const workspaceConditions = conditions.includes(kSourceCondition) ? conditions : [kSourceCondition, ...conditions];
  return nextResolve(specifier, { ...context, parentURL: workspaceParentURL, conditions: workspaceConditions });
}
