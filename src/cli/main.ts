import 'reflect-metadata';
import { runCli } from './cli';

runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTTY: process.stderr.isTTY,
})
  .then((code) => {
    process.exitCode = code;
  })
  .catch((error: unknown) => {
    process.stderr.write(`svc cli: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  });
