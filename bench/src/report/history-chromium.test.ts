import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
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
  describe.skipIf(chromium === null && !kCi)('in headless Chromium', () => {
    let dom = '';
    beforeAll(() => {
      const binary = chromium ?? findChromium();
      const file = join(mkdtempSync(join(tmpdir(), 'kvfuzz-history-')), 'history.html');
      const page = historyHtml({ records: fixtureHistory(), source: 'fixture', generatedAt: new Date('2026-11-29T12:00:00Z') });
      writeFileSync(file, page.html);
      dom = dumpDom(binary, file);
    });
    const figures = (): Record<string, string>[] => [...dom.matchAll(/<figure class="chart"[^>]*>/g)].map((m) => attributes(m[0]));

    it('leads with the summary: the first section of the page, holding the answer, the verdict table and the verdict chart, before any metric chart', () => {
      const bodyStart = dom.search(/<body[^>]*>/);
      const firstElement = /<body[^>]*>\s*<([a-z0-9]+)([^>]*)>/.exec(dom.slice(bodyStart));
      expect(firstElement?.[1]).toBe('section');
      expect(attributes(`<x${firstElement?.[2] ?? ''}>`)['id']).toBe('summary');
      const summaryEnd = dom.indexOf('</section>', bodyStart);
      const summary = dom.slice(bodyStart, summaryEnd);
      expect(summary).toMatch(/Latest full run: <b>ddddddd \(full, 2026-11-04\)<\/b>/);
      expect(summary).toMatch(/1 pass<\/span>, <span class="verdict-fail">0 fail<\/span>, <span class="verdict-inconclusive">0 inconclusive<\/span> of 1 gated case at margin 0\.03; 1 informational/);
      expect(summary).toContain('<caption>Verdict per case at ddddddd (full, 2026-11-04)');
      // The first chart of the page is the summary's verdict chart; every metric chart comes after the summary.
      expect(figures()[0]?.['id']).toBe('summary-verdicts');
      expect(summary).not.toMatch(/id="ratio-|id="fuzz-|id="detect-/);
      expect(dom.indexOf('id="section-ratio"')).toBeGreaterThan(summaryEnd);
    });

    it('draws every chart with all its main points', () => {
      const body = attributes(/<body[^>]*>/.exec(dom)?.[0] ?? '');
      expect(body['data-charts-error'], 'the page script threw').toBeUndefined();
      expect(body['data-charts-expected']).toBe('7');
      expect(body['data-charts-rendered']).toBe('7');
      const metrics = figures().filter((f) => f['id'] !== 'summary-verdicts');
      expect(metrics.map((f) => f['data-metric']).sort()).toEqual(Object.keys(kFixturePoints).sort());
      for (const f of metrics) {
        const metric = f['data-metric'] as string;
        const points = kFixturePoints[metric] as number;
        expect(f['data-points'], metric).toBe(String(points));
        expect(f['data-points-drawn'], metric).toBe(String(points));
        // Each drawn point is an 8 px dot in the series colour (more ink where lines join them).
        if (points > 0) expect(Number(f['data-ink']), metric).toBeGreaterThanOrEqual(points * 20);
        // The fixture changes its way of measuring twice (per case, then modules and intervals): every chart marks both.
        expect(f['data-steps-drawn'], metric).toBe('2');
      }
      const verdicts = figures()[0] ?? {};
      expect(verdicts['data-points-drawn']).toBe('2');
      // uPlot built its canvases: one per chart.
      expect(dom.match(/<canvas/g)?.length).toBe(7);
    });

    it('keeps the y axis to the full runs: the outlier quick record with uncommitted changes does not stretch it', () => {
      const one = figures().find((f) => f['data-metric'] === 'a:x:one') ?? {};
      expect(Number(one['data-y-max'])).toBeLessThan(1.2);
      expect(Number(one['data-y-min'])).toBeGreaterThan(0.8);
    });

    it('labels the commit axis with at most twelve rotated labels, the newest always among them', () => {
      for (const f of figures()) {
        const n = Number(f['data-x-labels']);
        expect(n, f['id']).toBeGreaterThan(0);
        expect(n, f['id']).toBeLessThanOrEqual(12);
      }
      // The method steps are listed once, numbered, under the ratio heading.
      expect(dom).toMatch(/<ol class="steps"><li>a child pair per case, from ccccccc<\/li><li>layout modules, order-statistic intervals, round ratios from slice-pairs, looks at 10, 20, 40 rounds, from ddddddd<\/li><\/ol>/);
    });
  });
});
