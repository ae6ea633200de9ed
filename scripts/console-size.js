#!/usr/bin/env node
// The console's first-load budget: the JavaScript index.html loads (its entry module and the chunks
// it preloads), gzip-compressed, must stay within 250 KB; lazily loaded chunks (the QR code) are
// reported apart. Run after `vite build` (npm run console:build); exits 1 over budget.
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');

const BUDGET = 250 * 1024;
const dist = path.resolve(__dirname, '..', 'console', 'dist');
const html = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
const first = new Set(
  [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="\/console\/([^"]+\.js)"/g)].map((m) => m[1]),
);
const gz = (file) => zlib.gzipSync(fs.readFileSync(path.join(dist, file)), { level: 9 }).length;
const all = fs.readdirSync(path.join(dist, 'assets')).filter((f) => f.endsWith('.js')).map((f) => `assets/${f}`);
const firstBytes = [...first].reduce((sum, f) => sum + gz(f), 0);
const lazyBytes = all.filter((f) => !first.has(f)).reduce((sum, f) => sum + gz(f), 0);
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
process.stdout.write(
  `console: first load ${kb(firstBytes)} of JavaScript gzip-compressed (${first.size} file(s); budget ${kb(BUDGET)}); ` +
    `${kb(lazyBytes)} more loaded on demand\n`,
);
if (first.size === 0) {
  process.stderr.write('console: index.html loads no script: is the build broken?\n');
  process.exit(1);
}
if (firstBytes > BUDGET) {
  process.stderr.write(`console: over budget by ${kb(firstBytes - BUDGET)}\n`);
  process.exit(1);
}
