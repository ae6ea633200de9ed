import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

/** The nearest folder above this file with a package.json: the same from src/ (tests) and dist/. */
function packageRoot(): string {
  let dir = __dirname;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
  return dir;
}

/** Where `npm run build` puts the console (console/ of the repository, built by Vite). */
export const CONSOLE_DIST = path.join(packageRoot(), 'console', 'dist');

/**
 * The console's pages load nothing but their own files and call only this service: no CDN, no
 * network fetch at run time. Chart and QR styles are set from script (style-src 'unsafe-inline').
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Serves the web console at /console: hashed assets with a year's immutable cache, every other
 * path under /console (the client's routes) the index page, never cached. Keys are never part of
 * these URLs: the console keeps them in sessionStorage and sends them in POST bodies.
 */
export function serveConsole(app: NestExpressApplication, dir = CONSOLE_DIST): void {
  const indexFile = path.join(dir, 'index.html');
  const index = existsSync(indexFile) ? readFileSync(indexFile) : null;
  app.useStaticAssets(path.join(dir, 'assets'), {
    prefix: '/console/assets/',
    immutable: true,
    maxAge: '365d',
    index: false,
    redirect: false,
  });
  app.use('/console', (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (req.path.startsWith('/assets/')) {
      res.status(404).type('text/plain').send('Not found');
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    if (!index) {
      res
        .status(503)
        .type('text/plain')
        .send(
          'The console is not built: run `npm run build` (it builds the service and the console).',
        );
      return;
    }
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.status(200).type('html').send(index);
  });
}
