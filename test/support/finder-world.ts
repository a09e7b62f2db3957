import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tilePng } from '../../scripts/smoke/checks';
import express, { type Express } from 'express';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../../src/config';
import { OfflineGeocoder } from '../../src/geo/offline-geocoder';
import { locatorWidgetRouter } from '../../src/locator-widget/locator-widget.router';
import { storeLocatorRouter } from '../../src/modules/store-locator/store-locator.router';
import { restErrorHandler } from '../../src/rest/router';
import { createSearchBackend } from '../../src/search/factory';
import * as lf from './locator-factories';

const WEEK = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
const daily = (open: number, close: number, closedOn: string[] = []) =>
  WEEK.map((day) => (closedOn.includes(day) ? { day, open: false } : { day, openAtHour: open, closeAtHour: close }));

/**
 * A brand with stores around Portland, in Seattle and in Vancouver, tiers, products and hours that differ,
 * for the store finder's browser tests and screenshots. On Saturday 2026-06-06 at 20:30 PDT
 * (`EVENING`) the Pearl District store (open till 21) and the Night Owl (18:00-02:00) are open, the others
 * closed.
 */
export async function finderWorld(em: EntityManager) {
  const net = await lf.locatorNetwork(em, 'Cascade Cycles');
  net.retailer.name = 'Summit Sports';
  net.companyRetailer.name = 'Summit Sports';
  const flagship = await lf.storeType(em, net.company, 'Flagship', 2);
  const premier = await lf.storeType(em, net.company, 'Premier Dealer', 1);
  const dealer = await lf.storeType(em, net.company, 'Dealer', 0);
  const bike = await lf.catalogProduct(em, net.company, { sku: 'CC-RIDGE-29', name: 'Ridgeline 29 Trail Bike' });
  const helmet = await lf.catalogProduct(em, net.company, { sku: 'CC-HELMET-M', name: 'Summit MIPS Helmet' });
  const light = await lf.catalogProduct(em, net.company, { sku: 'CC-LIGHT-800', name: 'Beacon 800 Headlight' });
  const common = { country: 'US', province: 'OR', city: 'Portland' };
  const downtown = await lf.store(em, net.companyRetailer, {
    ...common, locationName: 'Summit Sports Downtown', streetLineOne: '921 SW Morrison St', postalCode: '97205', latitude: 45.5197, longitude: -122.681,
    storeType: flagship, phone: { number: '+15035550142' }, hours: daily(10, 19, ['sunday']),
    stock: [{ product: bike }, { product: helmet }, { product: light }],
  });
  const pearl = await lf.store(em, net.companyRetailer, {
    ...common, locationName: 'Summit Sports Pearl District', streetLineOne: '1000 NW Glisan St', postalCode: '97209', latitude: 45.5261, longitude: -122.6822,
    storeType: premier, phone: { number: '+15035550188' }, hours: daily(9, 21), stock: [{ product: helmet }, { product: light }],
  });
  const night = await lf.store(em, net.companyRetailer, {
    ...common, locationName: 'Summit Sports Night Owl', streetLineOne: '2400 SE Hawthorne Blvd', postalCode: '97214', latitude: 45.5122, longitude: -122.6405,
    storeType: dealer, phone: { number: '+15035550111' },
    hours: [...daily(18, 2).filter((h) => h.day !== 'monday'), { day: 'monday' as const, open: false }], stock: [{ product: light }],
  });
  const beaverton = await lf.store(em, net.companyRetailer, {
    ...common, city: 'Beaverton', locationName: 'Summit Sports Beaverton', streetLineOne: '3205 SW Cedar Hills Blvd', postalCode: '97005',
    latitude: 45.4871, longitude: -122.8037, storeType: dealer, phone: { number: '+15035550175' }, hours: daily(10, 18), stock: [{ product: bike }],
  });
  const seattle = await lf.store(em, net.companyRetailer, {
    country: 'US', province: 'WA', city: 'Seattle', locationName: 'Summit Sports Seattle', streetLineOne: '1520 4th Ave', postalCode: '98101',
    latitude: 47.6109, longitude: -122.3374, storeType: premier, phone: { number: '+12065550123' }, hours: daily(10, 19), stock: [{ product: bike }, { product: helmet }],
  });
  const vancouver = await lf.store(em, net.companyRetailer, {
    country: 'CA', province: 'BC', city: 'Vancouver', locationName: 'Summit Sports Vancouver', streetLineOne: '1055 W Georgia St', postalCode: 'V6E 3P3',
    latitude: 49.2855, longitude: -123.1226, locationTimezone: 'America/Vancouver', storeType: flagship, phone: { number: '+16045550199', country: 'CA' },
    hours: daily(10, 19), stock: [{ product: bike }, { product: light }],
  });
  return { company: net.company, stores: { downtown, pearl, night, beaverton, seattle, vancouver }, products: { bike, helmet, light } };
}

/** Saturday 2026-06-06, 20:30 in Portland (PDT). */
export const EVENING = new Date('2026-06-07T03:30:00Z');

/** A stand-in tile server on 127.0.0.1: every `/tiles/{z}/{x}/{y}.png` is a flat tile; requests are counted. */
export async function startTileServer(): Promise<{ url: string; template: string; hits: string[]; close(): Promise<void> }> {
  const png = tilePng();
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    if (/^\/tiles\/\d+\/\d+\/\d+\.png$/.test(req.url ?? '')) {
      hits.push(req.url!);
      res.writeHead(200, { 'Content-Type': 'image/png', 'Cache-Control': 'no-store' }).end(png);
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, template: `${url}/tiles/{z}/{x}/{y}.png`, hits, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * The service as a shopper's browser meets it, on a clock the caller sets: the public store locator under
 * `/v1` and the finder under `/locator`, like `buildApp` mounts them.
 */
export function finderService(deps: { orm: MikroORM; config: Config }, now: () => Date): Express {
  const app = express();
  app.set('query parser', 'extended');
  const full = { ...deps, search: createSearchBackend(deps.config, deps.orm), geocoder: new OfflineGeocoder(deps.orm) };
  app.use('/v1', storeLocatorRouter(full, { now }), restErrorHandler);
  app.use(locatorWidgetRouter(full));
  return app;
}

/** A brand's own page on another origin, embedding the finder with the two lines of the README, under hostile CSS. */
export function hostPage(serviceUrl: string, attributes: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Brand site</title>
<style>
  /* A site's own CSS must not reach into the finder. */
  * { font-family: "Comic Sans MS", cursive !important; color: rgb(255, 0, 0) !important; }
  li { display: inline !important; }
  button { background: hotpink !important; }
  .ln-store, .ln-finder { display: none !important; }
  body { margin: 0; padding: 24px; background: #fffbe6; }
</style></head>
<body><h1>Visit our stores</h1><p>Brand page text.</p>
<script src="${serviceUrl}/locator/widget.js" async></script>
<div data-leadnet-locator ${attributes}></div>
<footer>Footer</footer>
</body></html>`;
}

export async function listen(app: Express | http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(app as http.RequestListener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
