#!/usr/bin/env node
// Builds dist/ and the console (console/dist) when either is missing or older than its sources, so
// `npm start` works right after `npm install` on a bare machine and never runs stale code.
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

const mtime = (file) => (fs.existsSync(file) ? fs.statSync(file).mtimeMs : 0);
const packageJson = mtime(path.join(root, 'package.json'));
const serviceStale = mtime(entry) < Math.max(newestMtime(path.join(root, 'src')), packageJson);
const consoleSources = Math.max(
  newestMtime(path.join(root, 'console', 'src')),
  mtime(path.join(root, 'console', 'index.html')),
  mtime(path.join(root, 'console', 'vite.config.mts')),
  packageJson,
);
const consoleStale = mtime(path.join(root, 'console', 'dist', 'index.html')) < consoleSources;
if (serviceStale) {
  process.stdout.write('svc: building the service and the console (first start or sources changed)…\n');
  execSync('npm run build', { cwd: root, stdio: 'inherit' });
} else if (consoleStale) {
  process.stdout.write('svc: building the console (first start or sources changed)…\n');
  execSync('npm run console:build', { cwd: root, stdio: 'inherit' });
}
