/**
 * The contact form's proof-of-work cost (`npm run bench:altcha`, docs/lead-loop.md "What the proof-of-work
 * costs a visitor", docs/benchmarks.md). Not a test: how long a visitor's browser takes to solve the
 * service's ALTCHA challenge, in Debian's headless Chromium, unthrottled and at CPU rate 4 (Chrome
 * DevTools' "mid-tier mobile").
 *
 * What runs is what a visitor runs: the `altcha` web component bundled by esbuild as the widget bundles it
 * (src/locator-widget/bundle.ts), an invisible `<altcha-widget auto="off">` solving with its default
 * workers (one per `navigator.hardwareConcurrency`), fetching each challenge from this bench's server,
 * which makes it with the service's own `newChallenge` (src/modules/site-keys/altcha.ts) and the
 * configuration's ALTCHA_COST and ALTCHA_MAX_COUNTER (the service's defaults unless set). Each payload is
 * checked with altcha-lib's `verifySolution`, so only real solutions count. No database.
 *
 * Throttling, two ways for each rate above 1: CDP `Emulation.setCPUThrottlingRate` on the page (Chrome
 * refuses it for workers, where the component solves, so it barely slows the solve: counted and printed),
 * and the tab's renderer processes (the page, its workers, WebCrypto) stopped and continued in a 200 ms
 * cycle, running 1/rate of it. Each mode also times a fixed loop on the page's main thread against an
 * unthrottled tab: the slowdown it really got on this machine (a busy machine gives a stopped process its
 * time back when it continues, so the process throttle is weaker than its nominal rate under load).
 *
 * BENCH_SOLVES (default 20) challenges per mode, after 2 warm-up ones; BENCH_RATES (default "1,4"). Prints
 * the median, p90, minimum and maximum solve time (the component's `verify()` with its 500 ms
 * `minDuration` off, the challenge's fetch included), the mean counter searched, and the machine's load
 * average, since the machine is shared and a busy one slows every number.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';
import type { Page } from 'puppeteer-core';
import { parseConfig } from '../src/config';
import { newChallenge, type AltchaKeys } from '../src/modules/site-keys/altcha';
import { launchChromium } from '../test/support/browser';
import { runBench } from './scratch-database';

const { verifySolution } = require('altcha-lib') as typeof import('altcha-lib', { with: { 'resolution-mode': 'import' } });
const { deriveKey } = require('altcha-lib/algorithms/pbkdf2') as typeof import('altcha-lib/algorithms/pbkdf2', { with: { 'resolution-mode': 'import' } });

// Runs in the page (puppeteer evaluates these functions there); the bench's TypeScript has no DOM library.
declare const document: any;
declare const window: any;
declare const customElements: any;
declare const performance: any;
declare const navigator: any;

const SOLVES = Number(process.env.BENCH_SOLVES ?? 20);
const RATES = (process.env.BENCH_RATES ?? '1,4').split(',').map(Number);
const WARMUP = 2;

/** The `altcha` component as the widget ships it: esbuild, IIFE, es2020, minified. */
async function altchaBundle(): Promise<string> {
  const result = await build({
    stdin: { contents: "import 'altcha';", resolveDir: path.join(__dirname, '..'), loader: 'js' },
    bundle: true,
    write: false,
    format: 'iife',
    target: ['es2020'],
    minify: true,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const load = () => os.loadavg().map((n) => n.toFixed(1)).join(' ');

const MODES = {
  none: 'no throttling',
  cdp: 'CDP Emulation.setCPUThrottlingRate on the page',
  process: "the tab's renderer process stopped and continued",
} as const;

/** Milliseconds a fixed CPU-bound loop takes on the page's main thread (median of 3): the throttling's effect. */
async function mainThreadLoop(tab: Page): Promise<number> {
  const runs: number[] = [];
  for (let i = 0; i < 3; i++) {
    runs.push(
      await tab.evaluate(() => {
        const started = performance.now();
        let x = 0;
        for (let j = 0; j < 30_000_000; j++) x = (x + j * 31) % 1_000_003;
        window.__sink = x;
        return performance.now() - started;
      }),
    );
  }
  return runs.sort((a, b) => a - b)[1];
}

/**
 * Throttles every renderer process under `browserPid` (the page and its workers, and WebCrypto, which
 * runs on the renderer's own threads) by `rate`: each 200 ms, running 200/rate ms and stopped (SIGSTOP)
 * the rest. Returns the function that ends it and continues them.
 */
function dutyCycle(browserPid: number, rate: number): () => void {
  const period = 200;
  const run = period / rate;
  let on = true;
  const renderers = () => {
    const children = new Map<number, number[]>();
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
      } catch {
        // gone meanwhile
      }
    }
    const out: number[] = [];
    const walk = (pid: number) => {
      for (const child of children.get(pid) ?? []) {
        try {
          if (fs.readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('--type=renderer')) out.push(child);
        } catch {
          // gone meanwhile
        }
        walk(child);
      }
    };
    walk(browserPid);
    return out;
  };
  const pids = renderers();
  const signal = (sig: NodeJS.Signals) => pids.forEach((pid) => {
    try {
      process.kill(pid, sig);
    } catch {
      // gone meanwhile
    }
  });
  let timer: NodeJS.Timeout;
  const tick = () => {
    if (!on) return;
    signal('SIGSTOP');
    timer = setTimeout(() => {
      signal('SIGCONT');
      timer = setTimeout(tick, run);
    }, period - run);
  };
  timer = setTimeout(tick, run);
  return () => {
    on = false;
    clearTimeout(timer);
    signal('SIGCONT');
  };
}

/** Solves WARMUP + SOLVES challenges with the component in `tab`, each checked as the service checks it. */
async function solve(tab: Page, keys: AltchaKeys): Promise<{ times: number[]; counters: number[] }> {
  const times: number[] = [];
  const counters: number[] = [];
  for (let i = 0; i < WARMUP + SOLVES; i++) {
    const r = await tab.evaluate(async () => {
      await customElements.whenDefined('altcha-widget');
      const el = document.createElement('altcha-widget');
      el.setAttribute('challenge', '/challenge');
      el.setAttribute('auto', 'off');
      el.setAttribute('display', 'invisible');
      // The work alone: the component never answers in under `minDuration` (500 ms by default), which the form,
      // solving while the visitor types, does not notice.
      el.setAttribute('configuration', JSON.stringify({ minDuration: 0 }));
      document.body.append(el);
      // The component mounts (and gets its methods) a moment after it is connected.
      while (typeof el.verify !== 'function') await new Promise((resolve) => setTimeout(resolve, 5));
      const started = performance.now();
      const out = await el.verify();
      const ms = performance.now() - started;
      el.remove();
      return { ms, payload: out?.payload as string | undefined };
    });
    if (!r.payload) throw new Error('the widget gave no payload');
    const { challenge, solution } = JSON.parse(Buffer.from(r.payload, 'base64').toString('utf8'));
    const verified = await verifySolution({ challenge, solution, deriveKey, hmacSignatureSecret: keys.signature, hmacKeySignatureSecret: keys.keySignature });
    if (!verified.verified) throw new Error('the widget posted a solution the service refuses');
    if (i < WARMUP) continue;
    times.push(r.ms);
    counters.push(solution.counter);
  }
  return { times, counters };
}

async function main(): Promise<void> {
  const config = parseConfig({
    DATABASE_URL: 'postgres://bench@127.0.0.1/unused',
    ...(process.env.ALTCHA_COST ? { ALTCHA_COST: process.env.ALTCHA_COST } : {}),
    ...(process.env.ALTCHA_MAX_COUNTER ? { ALTCHA_MAX_COUNTER: process.env.ALTCHA_MAX_COUNTER } : {}),
  });
  const keys: AltchaKeys = { signature: randomBytes(32).toString('hex'), keySignature: randomBytes(32).toString('hex') };
  const script = await altchaBundle();
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>altcha bench</title></head><body><script src="/altcha.js"></script></body></html>`;
  const server = http.createServer((req, res) => {
    if (req.url === '/') res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page);
    else if (req.url === '/altcha.js') res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' }).end(script);
    else if (req.url === '/challenge') {
      newChallenge(keys, config, 'pk_bench').then(
        (c) => res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }).end(JSON.stringify(c)),
        () => res.writeHead(500).end(),
      );
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const chromium = await launchChromium();
  console.log(`ALTCHA_COST ${config.altcha.cost}, ALTCHA_MAX_COUNTER ${config.altcha.maxCounter} (counter drawn in ${Math.ceil(config.altcha.maxCounter / 2)}..${config.altcha.maxCounter}); ${SOLVES} solves per rate after ${WARMUP} warm-up`);
  const calibration = await chromium.browser.newPage();
  await calibration.goto(base, { waitUntil: 'load' });
  const baseline = await mainThreadLoop(calibration);
  await calibration.close();
  console.log(`machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model}), load average ${load()}; ${await chromium.browser.version()}; the main-thread loop unthrottled ${baseline.toFixed(0)} ms`);
  try {
    for (const rate of RATES) {
      for (const mode of rate === 1 ? (['none'] as const) : (['cdp', 'process'] as const)) {
        const tab = await chromium.browser.newPage();
        let refused = 0;
        if (mode === 'cdp') {
          await (await tab.createCDPSession()).send('Emulation.setCPUThrottlingRate', { rate });
          // Chrome refuses it for workers ("only supported for pages"), where the component solves.
          tab.on('workercreated', (worker) => void worker.client.send('Emulation.setCPUThrottlingRate', { rate }).catch(() => refused++));
        }
        await tab.goto(base, { waitUntil: 'load' });
        const stop = mode === 'process' ? dutyCycle(chromium.browser.process()!.pid!, rate) : null;
        try {
          const slowdown = (await mainThreadLoop(tab)) / baseline;
          const workers = await tab.evaluate(() => navigator.hardwareConcurrency);
          const { times, counters } = await solve(tab, keys);
          const sorted = [...times].sort((a, b) => a - b);
          const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
          const meanCounter = Math.round(counters.reduce((a, b) => a + b, 0) / counters.length);
          console.log(
            `rate ${rate} (${MODES[mode]}): median ${s(percentile(sorted, 50))}, p90 ${s(percentile(sorted, 90))}, min ${s(sorted[0])}, max ${s(sorted[sorted.length - 1])}` +
              ` (a main-thread loop ${slowdown.toFixed(1)}x slower; ${workers} workers${mode === 'cdp' ? `, ${refused} workers refused throttling` : ''}; mean counter ${meanCounter}; load average ${load()})`,
          );
        } finally {
          stop?.();
          await tab.close();
        }
      }
    }
  } finally {
    await chromium.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

runBench(main);
