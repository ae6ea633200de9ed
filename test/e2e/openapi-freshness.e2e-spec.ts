import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const root = path.join(__dirname, '..', '..');

/** Runs scripts/openapi.js --check (on the built service in dist/) with extra environment. */
function check(
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(root, 'scripts', 'openapi.js'), '--check'],
      { cwd: root, env: { ...process.env, ...env } },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * The console's client is generated from the OpenAPI document; the build (and so CI: npm test runs
 * it first) fails when the committed document or client differs from what the code generates.
 */
describe('the OpenAPI document and the console client are checked for freshness', () => {
  let dir: string;

  beforeAll(() => {
    if (!existsSync(path.join(root, 'dist', 'app.module.js'))) {
      throw new Error('dist/ is not built: run `npm run build` first (npm test does)');
    }
    dir = mkdtempSync(path.join(tmpdir(), 'svc-openapi-'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('passes on the committed files', async () => {
    const result = await check();
    expect(result).toEqual({
      code: 0,
      stdout: 'openapi: openapi.json and the console client are up to date\n',
      stderr: '',
    });
  }, 60_000);

  it('fails when the document or the client is stale, naming the file', async () => {
    const document = path.join(dir, 'openapi.json');
    const client = path.join(dir, 'schema.ts');
    writeFileSync(
      document,
      readFileSync(path.join(root, 'openapi.json'), 'utf8').replace(
        '"title": "svc"',
        '"title": "old"',
      ),
    );
    copyFileSync(path.join(root, 'console', 'src', 'api', 'schema.ts'), client);
    const staleDocument = await check({ OPENAPI_DOCUMENT: document, OPENAPI_CLIENT: client });
    expect(staleDocument.code).toBe(1);
    expect(staleDocument.stderr).toContain(
      `openapi: stale ${path.relative(root, document)}: the API changed`,
    );

    copyFileSync(path.join(root, 'openapi.json'), document);
    writeFileSync(client, readFileSync(client, 'utf8').replace('"json" | "txt"', '"json"'));
    const staleClient = await check({ OPENAPI_DOCUMENT: document, OPENAPI_CLIENT: client });
    expect(staleClient.code).toBe(1);
    expect(staleClient.stderr).toContain(
      `openapi: stale ${path.relative(root, client)}: the API changed`,
    );
  }, 60_000);
});
