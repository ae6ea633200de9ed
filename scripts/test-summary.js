#!/usr/bin/env node
// The end of a CI log: the names of the tests that failed, read from Jest's --json --outputFile
// report, so that a red run says what went red without scrolling through the whole log. Prints a
// line "N passed, N failed, N skipped", then one line per failed test (its file and full name) and
// per test file that failed without a test to blame (a crash in beforeAll, a syntax error). It never
// changes the run's exit code: .ci/run exits with Jest's own.
const fs = require('node:fs');
const path = require('node:path');

const file = process.argv[2];
let report;
try {
  report = JSON.parse(fs.readFileSync(file, 'utf8'));
} catch (error) {
  process.stdout.write(`tests: no Jest report to summarise (${file}: ${error.message})\n`);
  process.exit(0);
}

const relative = (name) => path.relative(process.cwd(), name);
const failed = [];
for (const suite of report.testResults ?? []) {
  const tests = (suite.assertionResults ?? []).filter((t) => t.status === 'failed');
  for (const test of tests) failed.push(`FAIL ${relative(suite.name)} › ${test.fullName}`);
  // A file that failed with no failed test: its message is the only trace (first line of it).
  if (suite.status === 'failed' && tests.length === 0) {
    const first =
      (suite.message ?? '')
        .split('\n')
        .map((line) => line.replace(/\u001b\[[0-9;]*m/g, '').trim())
        .find((line) => line !== '' && !line.startsWith('● Test suite failed to run')) ?? '';
    failed.push(`FAIL ${relative(suite.name)} (the file failed: ${first.slice(0, 200)})`);
  }
}

// The tests' count alone on its line ('N passed, N failed, N skipped'), which CI reads as is.
process.stdout.write(
  `tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ` +
    `${report.numPendingTests + report.numTodoTests} skipped\n` +
    `files: ${report.numFailedTestSuites} of ${report.numTotalTestSuites} failed` +
    (report.numRuntimeErrorTestSuites > 0
      ? ` (${report.numRuntimeErrorTestSuites} could not run)`
      : '') +
    '\n',
);
if (failed.length > 0) process.stdout.write(`tests: the failures\n${failed.join('\n')}\n`);
