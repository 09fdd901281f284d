import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureHistory, kFixturePoints } from '../history/history-fixture.js';
import { ChromiumMissingError, dumpDom, findChromium } from './headless-chromium.js';
import { historyHtml } from './history-html.js';

/** Under CI a missing Chromium fails the test (naming the fix); it never skips. */
const kCi = !!process.env['CI'] && !['false', '0'].includes(process.env['CI'].toLowerCase());

function chromiumOrNull(): string | null {
  try {
    return findChromium();
  } catch (error) {
    if (error instanceof ChromiumMissingError) return null;
    throw error;
  }
}
const chromium = chromiumOrNull();

/** `name="value"` attributes of the first tag matching `tagPattern`. */
function attributes(tag: string): Record<string, string> {
  return Object.fromEntries([...tag.matchAll(/([\w-]+)="([^"]*)"/g)].map((m) => [m[1] as string, m[2] as string]));
}

describe('bench:report,history-chromium', () => {
  it('names the fix when Chromium is missing', () => {
    expect(() => findChromium({ PATH: '/nonexistent' })).toThrow(ChromiumMissingError);
    expect(() => findChromium({ PATH: '/nonexistent' })).toThrow(/bash ci\/setup\.sh as root/);
    expect(() => findChromium({ KVFUZZ_CHROMIUM: '/nonexistent/chromium' })).toThrow(/KVFUZZ_CHROMIUM=\/nonexistent\/chromium is not an executable/);
  });

  // Skipped only outside CI; under CI=true a missing Chromium throws ChromiumMissingError here.
  it.skipIf(chromium === null && !kCi)('draws every chart with all its points in headless Chromium', () => {
    const binary = chromium ?? findChromium();
    const file = join(mkdtempSync(join(tmpdir(), 'kvfuzz-history-')), 'history.html');
    const page = historyHtml({ records: fixtureHistory(), source: 'fixture', generatedAt: new Date('2026-11-29T12:00:00Z') });
    writeFileSync(file, page.html);
    const dom = dumpDom(binary, file);

    const body = attributes(/<body[^>]*>/.exec(dom)?.[0] ?? '');
    expect(body['data-charts-error'], 'the page script threw').toBeUndefined();
    expect(body['data-charts-expected']).toBe('6');
    expect(body['data-charts-rendered']).toBe('6');

    const figures = [...dom.matchAll(/<figure class="chart"[^>]*>/g)].map((m) => attributes(m[0]));
    expect(figures.map((f) => f['data-metric']).sort()).toEqual(Object.keys(kFixturePoints).sort());
    for (const f of figures) {
      const metric = f['data-metric'] as string;
      const points = kFixturePoints[metric] as number;
      expect(f['data-points'], metric).toBe(String(points));
      expect(f['data-points-drawn'], metric).toBe(String(points));
      // Each drawn point is an 8 px dot in the series colour (more ink where lines join them).
      if (points > 0) expect(Number(f['data-ink']), metric).toBeGreaterThanOrEqual(points * 20);
      // The fixture changes its way of measuring twice (per case, then modules): every chart marks both.
      expect(f['data-steps-drawn'], metric).toBe('2');
    }
    // uPlot built its canvases: one per chart.
    expect(dom.match(/<canvas/g)?.length).toBe(6);
  });
});
