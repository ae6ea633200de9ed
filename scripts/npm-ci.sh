#!/usr/bin/env bash
# `npm ci`, strictly from package-lock.json, with one tolerated exception.
#
# The registry our machines reach does not serve other platforms' builds of native optional
# dependencies (the darwin, win32, … packages of unrs-resolver and msgpackr-extract), so npm cannot
# record them in the lock file, and npm ci then refuses the lock as "Missing: … from lock file".
# Only in that case (every missing package is an optional dependency named in the lock file) this
# falls back to npm install, which keeps every locked version. Any other mismatch fails.
set -euo pipefail

log=$(mktemp)
trap 'rm -f "$log"' EXIT

if npm ci --no-audit --no-fund "$@" 2>&1 | tee "$log"; then
  exit 0
fi
grep -q 'Missing: .* from lock file' "$log" || exit 1
node -e '
  const fs = require("node:fs");
  const lock = JSON.parse(fs.readFileSync("package-lock.json", "utf8")).packages;
  const optional = new Set(Object.values(lock).flatMap((p) => Object.keys(p.optionalDependencies ?? {})));
  const missing = [...fs.readFileSync(process.argv[1], "utf8").matchAll(/Missing: (@?[^@\s]+)@\S* from lock file/g)]
    .map((m) => m[1]);
  const other = missing.filter((name) => !optional.has(name));
  if (missing.length === 0 || other.length > 0) {
    console.error("npm-ci: package.json and package-lock.json disagree:", other.join(", "));
    process.exit(1);
  }
' "$log"
echo "npm-ci: npm ci refused only other platforms' optional packages; installing the locked versions with npm install"
npm install --no-audit --no-fund --no-save "$@"
