// Preload (node --require) that counts the SQL statements a server sends, by wrapping pg's
// Client.prototype.query (MikroORM/knex, PostGraphile and the bare server all go through it).
// When SQLCOUNT_PORT is set, GET http://127.0.0.1:$SQLCOUNT_PORT/ answers
//   {"queries": <count since start>, "recent": [<first 200 chars of the last statements, when recording>]}
// and /record?on=1 clears the recorded statement texts and starts recording them, /record?on=0 stops.
const Module = require('node:module');
const http = require('node:http');
const path = require('node:path');

const { isMainThread } = require('node:worker_threads');

const req = Module.createRequire(path.join(process.cwd(), 'noop.js'));
let pg;
// Preloads also run in the thread of ESM loader hooks (tsx): count in the main thread only.
if (isMainThread) {
  try {
    pg = req('pg');
  } catch (e) {
    console.error(`count-sql: cannot load pg from ${process.cwd()}: ${e.message}`);
  }
}
let queries = 0;
let recording = false;
let recent = [];
if (pg) {
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function countedQuery(config, values, callback) {
    queries++;
    if (recording && recent.length < 1000) {
      const text = typeof config === 'string' ? config : config && config.text;
      recent.push(String(text).replace(/\s+/g, " ").slice(0, Number(process.env.SQLCOUNT_CHARS ?? 200)));
    }
    return original.call(this, config, values, callback);
  };
}
const port = isMainThread ? Number(process.env.SQLCOUNT_PORT || 0) : 0;
if (port) {
  const server = http.createServer((q, res) => {
    const url = new URL(q.url, 'http://x');
    if (url.pathname === '/record') {
      // on=1 clears and starts recording; on=0 stops (the answer still holds what was recorded).
      recording = url.searchParams.get('on') === '1';
      if (recording) recent = [];
    }
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ queries, recent }));
  });
  server.unref();
  server.listen(port, '127.0.0.1');
}
