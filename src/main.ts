import 'reflect-metadata';
import type { Server } from 'node:http';
import { NestExpressApplication } from '@nestjs/platform-express';
import { createApp } from './app.factory';
import { ConfigError, loadConfig } from './config/app-config';
import { collectStartupGarbage } from './common/startup-memory';
import { LiveFeed } from './live-feed/live-feed';
import { NotFoundBrake } from './redirects/not-found-brake';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`svc: configuration error: ${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  const app = await createApp(config);
  await app.listen(config.port);
  handleSignals(app);
  collectStartupGarbage();
  process.stdout.write(
    `svc listening on port ${config.port} (role ${config.role}, ` +
      `${config.databaseUrl ? 'PostgreSQL' : `embedded PGlite in ${config.pgliteDir}`}, ` +
      `${config.clickhouseUrl ? 'ClickHouse server' : `embedded chDB in ${config.chdbDir}`}, ` +
      `${config.redisUrl ? 'Redis queues' : 'in-process jobs'}); console at http://localhost:${config.port}/console (API documents at /docs)\n`,
  );
}

/**
 * Graceful shutdown: stop accepting and let in-flight requests finish (idle keep-alive connections
 * and live streams close at once, held not-found answers are written), then close the application: buffered clicks and in-process
 * jobs are flushed before workers, queues and database connections close.
 */
function handleSignals(app: NestExpressApplication): void {
  let closing = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    process.stdout.write(`svc: ${signal} received, shutting down\n`);
    const server: Server = app.getHttpServer();
    // Live streams never finish on their own: they end now, and their clients resume elsewhere.
    app.get(LiveFeed).shutdown();
    // Not-found answers held by the brake are written now, not when their delay ends.
    app.get(NotFoundBrake).beforeApplicationShutdown();
    const force = setTimeout(() => server.closeAllConnections(), 10_000);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      app.close().then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(`svc: shutdown failed: ${String(error)}\n`);
          process.exit(1);
        },
      );
    });
    server.closeIdleConnections();
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`svc: failed to start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
