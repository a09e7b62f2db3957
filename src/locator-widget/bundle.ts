import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import type { Config } from '../config';

/** The finder's browser sources (TypeScript, CSS); present in a checkout, absent from `dist/`. */
export const CLIENT_DIR = path.join(__dirname, 'client');
/** The bundle `npm run build` writes next to the compiled router (`dist/src/locator-widget/`). */
export const PREBUILT_BUNDLE = path.join(__dirname, 'widget.bundle.js');

/**
 * The identifier the bundle reads its configuration from: the served script wraps the bundle in a function
 * taking it (`widgetScript`), so one bundle, built once, serves any tile server.
 */
const CONFIG_PARAMETER = '__leadnetLocatorConfig';

/**
 * Leaflet's own source, changed so that it leaves nothing on the host page: it keeps its DOM listeners
 * under a symbol rather than a `_leaflet_events` property of `window` and `document` (which a second
 * Leaflet on the page would share, and collide with: both number their handlers from 1), and it does not
 * set `window.L`. Each change must apply exactly once: a Leaflet upgrade that moves them fails the bundle
 * instead of leaking again.
 */
const LEAFLET_PATCHES: Array<[string, string]> = [
  ["var eventsKey = '_leaflet_events';", "var eventsKey = Symbol('leadnet leaflet events');"],
  ['window.L = exports;', '/* leadnet: no window.L */'],
];

export function patchLeaflet(source: string): string {
  let out = source;
  for (const [from, to] of LEAFLET_PATCHES) {
    const at = out.indexOf(from);
    if (at < 0 || out.indexOf(from, at + 1) >= 0) {
      throw new Error(`Leaflet's source changed: "${from}" is not found exactly once; update LEAFLET_PATCHES in src/locator-widget/bundle.ts`);
    }
    out = out.slice(0, at) + to + out.slice(at + from.length);
  }
  return out;
}

/**
 * The browser code (`client/widget.ts`, Leaflet and the stylesheets) as one IIFE script, independent of
 * the configuration (see `widgetScript`). `npm run build` writes it to `dist/` (scripts/build.js); `npm
 * start` bundles it on first use.
 */
export async function bundleWidget(clientDir: string = CLIENT_DIR): Promise<string> {
  const result = await build({
    entryPoints: [path.join(clientDir, 'widget.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    target: ['es2020'],
    minify: true,
    legalComments: 'eof',
    charset: 'utf8',
    loader: { '.css': 'text' },
    define: { __LEADNET_LOCATOR__: CONFIG_PARAMETER },
    tsconfig: path.join(clientDir, 'tsconfig.json'),
    logLevel: 'silent',
    plugins: [
      {
        name: 'leaflet-without-globals',
        setup(b) {
          b.onLoad({ filter: /[\\/]leaflet[\\/]dist[\\/]leaflet-src\.js$/ }, async (args) => ({
            contents: patchLeaflet(await fs.promises.readFile(args.path, 'utf8')),
            loader: 'js',
          }));
        },
      },
    ],
  });
  return result.outputFiles[0].text;
}

/** The script served as `/locator/widget.js`: the bundle with the tile server of the configuration. */
export function widgetScript(bundle: string, config: Pick<Config, 'locatorWidget'>): string {
  const settings = JSON.stringify({ tileUrl: config.locatorWidget.tileUrl, tileAttribution: config.locatorWidget.tileAttribution })
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  return `(function (${CONFIG_PARAMETER}) {\n${bundle}\n})(${settings});\n`;
}

/**
 * Where the bundle comes from: the one `npm run build` wrote, else the sources (a checkout, `npm start`).
 * Neither (a `dist/` built without it) fails the start, saying so, rather than answering 500 to shoppers.
 */
export function widgetBundleSource(): () => Promise<string> {
  if (fs.existsSync(PREBUILT_BUNDLE)) {
    const text = fs.readFileSync(PREBUILT_BUNDLE, 'utf8');
    return async () => text;
  }
  if (fs.existsSync(path.join(CLIENT_DIR, 'widget.ts'))) return () => bundleWidget(CLIENT_DIR);
  throw new Error(`The store finder's script is missing: neither ${PREBUILT_BUNDLE} nor its sources exist; run npm run build`);
}
