#!/usr/bin/env node
// Builds dist/ when it is missing or older than any source file, so `npm start` works right after
// `npm install` on a bare machine and never runs stale code.
const { execSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const entry = path.join(root, 'dist', 'main.js');

function newestMtime(dir) {
  let newest = 0;
  for (const name of fs.readdirSync(dir)) {
    const full = path.join(dir, name);
    const stat = fs.statSync(full);
    newest = Math.max(newest, stat.isDirectory() ? newestMtime(full) : stat.mtimeMs);
  }
  return newest;
}

const built = fs.existsSync(entry) ? fs.statSync(entry).mtimeMs : 0;
const sources = Math.max(newestMtime(path.join(root, 'src')), fs.statSync(path.join(root, 'package.json')).mtimeMs);
if (built < sources) {
  process.stdout.write('svc: building (first start or sources changed)…\n');
  execSync('npx nest build', { cwd: root, stdio: 'inherit' });
}
