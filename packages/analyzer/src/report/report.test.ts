/**
 * Renders the report in a real headless Chromium (Debian's `chromium`, which `.ci/run` installs)
 * with no network, and keeps a screenshot under test-artifacts/.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { trainingTrace } from '../counters/training-trace.test-util.js';
import { writeReport } from './report.js';
import { tempDir, writeSmallTrace } from '../test-util/fixtures.test-util.js';
import { writeSyntheticTrace } from '../test-util/synthetic.test-util.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test-artifacts');
const { dir, cleanup } = tempDir();
afterAll(cleanup);

if (!existsSync(CHROMIUM)) {
  console.warn(`\n!!! ${CHROMIUM} not found: SKIPPING the headless-Chromium report test (CI installs it: apt-get install chromium) !!!\n`);
}

/** Opens `file` in a fresh headless Chromium with no network; fails on console errors or any request but the page. */
async function inChromium(file: string, use: (page: Page) => Promise<void>): Promise<void> {
  const { chromium } = await import('playwright-core');
  // a fresh profile directory (playwright passes it as --user-data-dir)
  const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'dftracer-chromium-')), {
    executablePath: CHROMIUM,
    viewport: { width: 1400, height: 1000 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await context.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('request', (req) => requests.push(req.url()));
    await page.goto(`file://${file}`);
    // (runs in the page)
    await page.waitForFunction('document.body.dataset.ready === "1"', null, { timeout: 60_000 });
    await use(page);
    expect(problems).toEqual([]);
    expect(requests).toEqual([`file://${file}`]);
  } finally {
    await context.close();
  }
}

describe.skipIf(!existsSync(CHROMIUM))('report in headless Chromium', () => {
  it('renders offline with no console errors and one timeline row group per track', async () => {
    const a = writeSyntheticTrace({ path: join(dir, 'a.pfw.gz'), events: 20_000, pid: 1111 });
    const b = writeSmallTrace(join(dir, 'b.pfw.gz'), 'clean', { pid: 2222, t0: a.firstTs + 5000 });
    const out = join(dir, 'report.html');
    const r = await writeReport([a.path, b.path], out, { threads: 1 });
    expect(r.tracks).toBe(5); // 1111: main + 2 lanes; 2222: main + 1 lane
    const html = readFileSync(out, 'utf8');
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\/(?!www\.w3\.org|www\.apache\.org|github\.com\/ecomfe)/);

    await inChromium(out, async (page) => {
      expect(await page.getAttribute('#timeline', 'data-tracks')).toBe('5');
      expect(await page.locator('#processes tbody tr').count()).toBe(2);
      expect(await page.locator('#timeline canvas').count()).toBeGreaterThan(0);
      expect(await page.textContent('#timeline-note')).toMatch(/^5 tracks/);
      // no counter records, no counter charts
      expect(await page.locator('#counters').count()).toBe(0);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'report.png'), fullPage: true });
      expect(existsSync(join(ARTIFACTS, 'report.png'))).toBe(true);
    });
  }, 120_000);

  it('draws the counter tracks as line charts on the timeline time axis, zoomed with it', async () => {
    const trace = trainingTrace(join(dir, 'training.pfw'), 1);
    const out = join(dir, 'counters.html');
    await writeReport([trace], out, { threads: 1 });
    await inChromium(out, async (page) => {
      expect(await page.getAttribute('#counters', 'data-charts')).toBe('memory cpu event_loop gc tfjs_tensors tfjs_bytes');
      expect(await page.textContent('#counters-note')).toMatch(/on the timeline's time axis/);
      // (runs in the page) each series: its colour and the longest SVG path drawn in it, in line segments
      const drawn = (await page.evaluate(`(() => {
        const chart = echarts.getInstanceByDom(document.getElementById('counters'));
        const paths = [...document.querySelectorAll('#counters svg path')];
        return chart.getOption().series.map((s) => ({
          name: s.name,
          segments: Math.max(0, ...paths.filter((p) => p.getAttribute('stroke') === s.color && p.getAttribute('fill') === 'none')
            .map((p) => (p.getAttribute('d').match(/L/g) || []).length)),
        }));
      })()`)) as { name: string; segments: number }[];
      expect(drawn.map((s) => s.name)).toEqual(['rss', 'heap used', 'user %', 'system %', 'max', 'p50', 'pause', 'tensors', 'bytes']);
      // 200 samples per series (4 per step, 50 steps); a line through them has about as many segments
      for (const s of drawn) expect(s.segments, s.name).toBeGreaterThan(100);
      // the same time is at the same x on the timeline and on the counter charts, before and after a zoom
      const xAt = `((t) => ['timeline', 'counters'].map((id) => Math.round(echarts.getInstanceByDom(document.getElementById(id)).convertToPixel({ xAxisIndex: 0 }, t))))`;
      const [tl, ct] = (await page.evaluate(`${xAt}(220000)`)) as [number, number];
      expect(tl).toBe(ct);
      await page.evaluate(`echarts.getInstanceByDom(document.getElementById('timeline')).dispatchAction({ type: 'dataZoom', dataZoomIndex: 0, start: 40, end: 60 })`);
      const [tl2, ct2] = (await page.evaluate(`${xAt}(220000)`)) as [number, number];
      expect(tl2).toBe(ct2);
      expect(Math.abs(tl2 - tl)).toBeGreaterThan(50); // it moved: the zoom reached both
      await page.evaluate(`echarts.getInstanceByDom(document.getElementById('timeline')).dispatchAction({ type: 'dataZoom', dataZoomIndex: 0, start: 0, end: 100 })`);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.locator('#timeline').evaluate((el) => el.parentElement!.scrollIntoView());
      await page.screenshot({ path: join(ARTIFACTS, 'report-counters.png'), fullPage: true });
    });
  }, 120_000);
});
