import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** uPlot's browser build, its stylesheet and its licence, read from node_modules to inline into the report. */
export interface UplotAssets {
  readonly version: string;
  /** The IIFE build: defines the global `uPlot`. */
  readonly script: string;
  readonly css: string;
  /** The MIT licence text; the report carries it beside the inlined code, as the licence asks. */
  readonly license: string;
}

/** Reads the pinned uPlot (root catalog, bench/package.json) from node_modules. */
export function uplotAssets(): UplotAssets {
  const require = createRequire(import.meta.url);
  const dir = dirname(require.resolve('uplot/package.json'));
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
  return {
    version: pkg.version,
    script: readFileSync(join(dir, 'dist/uPlot.iife.min.js'), 'utf8'),
    css: readFileSync(join(dir, 'dist/uPlot.min.css'), 'utf8'),
    license: readFileSync(join(dir, 'LICENSE'), 'utf8'),
  };
}
