/**
 * Renders the report in a real headless Chromium (Debian's `chromium`, which `.ci/run` installs)
 * with no network, and keeps a screenshot under test-artifacts/.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { writeReport } from './report.js';
import { tempDir, writeSmallTrace } from './fixtures.test-util.js';
import { writeSyntheticTrace } from './synthetic.test-util.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'test-artifacts');
const { dir, cleanup } = tempDir();
afterAll(cleanup);

if (!existsSync(CHROMIUM)) {
  console.warn(`\n!!! ${CHROMIUM} not found: SKIPPING the headless-Chromium report test (CI installs it: apt-get install chromium) !!!\n`);
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

    const { chromium } = await import('playwright-core');
    // a fresh profile directory (playwright passes it as --user-data-dir)
    const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'dftracer-chromium-')), {
      executablePath: CHROMIUM,
      viewport: { width: 1400, height: 1000 },
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
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
      await page.goto(`file://${out}`);
      // (runs in the page)
      await page.waitForFunction('document.body.dataset.ready === "1"', null, { timeout: 60_000 });
      expect(problems).toEqual([]);
      expect(requests).toEqual([`file://${out}`]);
      expect(await page.getAttribute('#timeline', 'data-tracks')).toBe('5');
      expect(await page.locator('#processes tbody tr').count()).toBe(2);
      expect(await page.locator('#timeline canvas').count()).toBeGreaterThan(0);
      expect(await page.textContent('#timeline-note')).toMatch(/^5 tracks/);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'report.png'), fullPage: true });
      expect(existsSync(join(ARTIFACTS, 'report.png'))).toBe(true);
    } finally {
      await context.close();
    }
  }, 120_000);
});
