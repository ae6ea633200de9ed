import 'reflect-metadata';
import { createApp } from './app.factory';
import { ConfigError, loadConfig } from './config/app-config';

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
  process.stdout.write(
    `svc listening on port ${config.port} (role ${config.role}, ` +
      `${config.databaseUrl ? 'PostgreSQL' : `embedded PGlite in ${config.pgliteDir}`}, ` +
      `${config.redisUrl ? 'Redis queues' : 'in-process jobs'}); console at http://localhost:${config.port}/docs\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`svc: failed to start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
