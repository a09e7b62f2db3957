// Screenshots of the store finder at desktop and phone widths, for a look by eye (issue 13); the PNGs are
// written to OUT_DIR (default /tmp/leadnet-locator-screens) and are not committed.
//   node --import tsx scripts/locator-screenshots.ts
// Needs a PostgreSQL server (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres: a
// throw-away database is created and dropped) and /usr/bin/chromium. Map tiles come from a local stub.
import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { Page } from 'puppeteer-core';
import { parseConfig } from '../src/config';
import { initAppOrm } from '../mikro-orm.config';
import { EVENING, finderService, finderWorld, hostPage, listen, startTileServer } from '../test/support/finder-world';
import { launchChromium } from '../test/support/browser';

// Runs in the browser (puppeteer's waitForFunction); the scripts' TypeScript has no DOM library.
declare const document: any;

const server = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const out = process.env.OUT_DIR ?? '/tmp/leadnet-locator-screens';

const withDb = (url: string, db: string) => Object.assign(new URL(url), { pathname: `/${db}` }).toString();

async function admin(sql: string) {
  const c = new Client({ connectionString: withDb(server, 'postgres') });
  await c.connect();
  await c.query(sql);
  await c.end();
}

async function results(page: Page, min = 1) {
  await page.waitForFunction(
    (n) => (document.querySelector('[data-leadnet-locator]')?.shadowRoot?.querySelectorAll('.ln-store').length ?? 0) >= n,
    { timeout: 15_000 },
    min,
  );
  await new Promise((r) => setTimeout(r, 600)); // tiles and the map's fit
}

async function main() {
  fs.mkdirSync(out, { recursive: true });
  const name = `leadnet_screens_${randomBytes(4).toString('hex')}`;
  await admin(`create database ${name}`);
  const tiles = await startTileServer();
  const orm = await initAppOrm(withDb(server, name));
  const chromium = await launchChromium();
  try {
    const world = await finderWorld(orm.em.fork() as any);
    const config = parseConfig({ DATABASE_URL: withDb(server, name), LOCATOR_TILE_URL: tiles.template, LOG_LEVEL: 'silent' });
    const service = await listen(finderService({ orm, config }, () => EVENING));
    const host = await listen((_req: unknown, res: import('node:http').ServerResponse) => {
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(hostPage(service.url, `data-company="${world.company.id}" data-color="#2f7d32" data-lang="fr" data-units="km" data-radius="50"`));
    });
    const shots: Array<[string, { width: number; height: number }]> = [
      ['desktop', { width: 1280, height: 900 }],
      ['phone', { width: 390, height: 844 }],
    ];
    for (const [label, viewport] of shots) {
      const page = await chromium.browser.newPage();
      await page.setViewport({ ...viewport, deviceScaleFactor: 1 });
      await page.goto(`${service.url}/locator/${world.company.id}`);
      await results(page, 6);
      await page.screenshot({ path: path.join(out, `${label}-1-overview.png`), fullPage: true });
      const input = await page.waitForSelector('[data-leadnet-locator] >>> input[type=search]');
      await input!.type('97205');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => /97205/.test(document.querySelector('[data-leadnet-locator]')!.shadowRoot!.querySelector('.ln-status')!.textContent!));
      await results(page);
      await page.screenshot({ path: path.join(out, `${label}-2-search.png`), fullPage: true });
      await (await page.waitForSelector('[data-leadnet-locator] >>> input[type=checkbox]'))!.click();
      await page.waitForFunction(() => document.querySelector('[data-leadnet-locator]')!.shadowRoot!.querySelectorAll('.ln-store').length === 2);
      await (await page.waitForSelector('[data-leadnet-locator] >>> .ln-store:nth-child(2) .ln-name'))!.click();
      await new Promise((r) => setTimeout(r, 600));
      await page.screenshot({ path: path.join(out, `${label}-3-open-now-selected.png`), fullPage: true });
      await page.goto(host.url);
      await results(page, 6);
      await page.screenshot({ path: path.join(out, `${label}-4-embedded-fr.png`), fullPage: true });
      await page.close();
    }
    await host.close();
    await service.close();
    console.log(`screenshots in ${out}: ${fs.readdirSync(out).join(', ')}`);
  } finally {
    await chromium.close();
    await orm.close();
    await tiles.close();
    await admin(`drop database if exists ${name} with (force)`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
