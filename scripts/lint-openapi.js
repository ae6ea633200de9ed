#!/usr/bin/env node
// Lints the committed OpenAPI document with Redocly's rules as redocly.yaml sets them
// (recommended): prints each problem and a summary, exits 1 when there is an error.
//   node scripts/lint-openapi.js [document]   (npm run lint:openapi; default openapi.json)
const path = require('node:path');
const { formatProblems, getTotals, lint, loadConfig } = require('@redocly/openapi-core');

const root = path.resolve(__dirname, '..');

async function main() {
  const document = path.resolve(process.argv[2] ?? path.join(root, 'openapi.json'));
  const config = await loadConfig({ configPath: path.join(root, 'redocly.yaml') });
  const problems = await lint({ ref: document, config });
  const totals = getTotals(problems);
  formatProblems(problems, { format: 'stylish', totals, version: 'openapi-core' });
  // After the problems, on the stream formatProblems writes them to.
  process.stderr.write(
    `lint:openapi: ${path.relative(root, document)}: ${totals.errors} errors, ${totals.warnings} warnings\n`,
  );
  return totals.errors > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`lint:openapi: ${error.stack ?? String(error)}\n`);
    process.exit(2);
  },
);
