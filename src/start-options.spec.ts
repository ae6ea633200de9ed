import { readFileSync } from 'node:fs';
import * as path from 'node:path';

/** The Node options of the service's process: the container runs it as `npm start` does. */
describe('start options', () => {
  const root = path.join(__dirname, '..');
  const start = (
    JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      scripts: { start: string };
    }
  ).scripts.start;

  it('give V8 a young generation large enough for the redirect path (fewer scavenges) and gc for the collections after the start', () => {
    expect(start).toBe('node --max-semi-space-size=32 --expose-gc dist/main.js');
  });

  it('are the same in the Docker image', () => {
    const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(path.join(root, 'Dockerfile'), 'utf8'))?.[1];
    expect(JSON.parse(cmd ?? '[]')).toEqual(start.split(' '));
  });
});
