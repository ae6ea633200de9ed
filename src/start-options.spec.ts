import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

/** The options of the service's process: the container runs it as `npm start` does. */
describe('start options', () => {
  const root = path.join(__dirname, '..');
  const start = (
    JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      scripts: { start: string };
    }
  ).scripts.start;
  const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
  const NODE = 'node --max-semi-space-size=32 --expose-gc dist/main.js';
  const ALLOCATOR = { MALLOC_TRIM_THRESHOLD_: '131072', MALLOC_MMAP_THRESHOLD_: '4194304' };

  /** What `npm start`'s shell passes to node as the allocator's variables, given an environment. */
  const allocatorEnv = (env: Record<string, string>): string =>
    execFileSync(
      '/bin/sh',
      [
        '-c',
        start.replace(
          NODE,
          `"${process.execPath}" -p "process.env.MALLOC_TRIM_THRESHOLD_ + ' ' + process.env.MALLOC_MMAP_THRESHOLD_"`,
        ),
      ],
      { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' },
    ).trim();

  it('give V8 a young generation large enough for the redirect path (fewer scavenges) and gc for the collections after the start', () => {
    expect(start.endsWith(` ${NODE}`)).toBe(true);
  });

  it("set glibc's allocator to hand freed memory back (a fixed trim threshold, blocks from 4 MiB mapped), unless the caller set it", () => {
    expect(allocatorEnv({})).toBe('131072 4194304');
    expect(allocatorEnv({ MALLOC_TRIM_THRESHOLD_: '65536' })).toBe('65536 4194304');
  });

  it('are the same in the Docker image', () => {
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    expect(JSON.parse(cmd ?? '[]')).toEqual(NODE.split(' '));
    for (const [name, value] of Object.entries(ALLOCATOR))
      expect(dockerfile).toMatch(new RegExp(`^\\s+${name}=${value}\\b`, 'm'));
  });
});
