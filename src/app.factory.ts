import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { Logger } from 'nestjs-pino';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { DestinationStream } from 'pino';
import { AppModule } from './app.module';
import { RedirectHandler } from './redirects/redirect.handler';
import { cleanInput, rawBodyVerifier } from './common/clean-input';
import { PARAMETER_LIMIT, parseQueryOnce, parseQueryString } from './common/query-parser';
import { bodyOfType } from './common/request-body';
import { setupSwagger } from './openapi-document';
import { AppConfig } from './config/app-config';
import { plainRequestIp } from './common/ip';
import { compileTrust } from './config/trust-proxy';
import { serveConsole } from './web-console/web-console';

/**
 * Puts the redirect listener in front of Express on the HTTP server (docs/architecture.md, "How a
 * redirect flows"): link requests never enter Express (about 7× the cost of a trivial 302); everything
 * else goes on to it.
 */
function installRedirects(app: NestExpressApplication): void {
  const server: Server = app.getHttpServer();
  const express = server.listeners('request') as ((
    req: IncomingMessage,
    res: ServerResponse,
  ) => void)[];
  const next = (req: IncomingMessage, res: ServerResponse) => {
    for (const listener of express) listener.call(server, req, res);
  };
  server.removeAllListeners('request');
  server.on('request', app.get(RedirectHandler).listener(next));
}

/** Options of createApp beyond the configuration. */
export interface CreateAppOptions {
  /** Where log lines go instead of standard output (the tests read them). */
  logDestination?: DestinationStream;
}

/** Builds the application (used by main, the tests and the benchmarks alike). */
export async function createApp(
  config: AppConfig,
  options: CreateAppOptions = {},
): Promise<NestExpressApplication> {
  const module = AppModule.forRoot(config, options.logDestination);
  const app = await NestFactory.create<NestExpressApplication>(module, {
    bufferLogs: true,
    bodyParser: false,
  });
  app.useLogger(app.get(Logger));
  app.set('query parser', parseQueryString);
  // The redirect listener's client address and Express's req.ip agree (docs/operations.md, "Proxies").
  app.set('trust proxy', compileTrust(config.trustProxy));
  // An IPv4 client as IPv4 in every store and log (docs/api.md, "Security").
  plainRequestIp(app.getHttpAdapter().getInstance().request);
  app.disable('x-powered-by');
  app.useBodyParser('urlencoded', {
    extended: true,
    limit: '1mb',
    parameterLimit: PARAMETER_LIMIT,
    type: bodyOfType('application/x-www-form-urlencoded'),
    verify: rawBodyVerifier('form'),
  });
  app.useBodyParser('json', {
    limit: '1mb',
    type: bodyOfType('application/json'),
    verify: rawBodyVerifier('json'),
  });
  app.use(parseQueryOnce);
  // Before any route, so that no handler (nor PostgreSQL) ever sees a NUL or invalid UTF-8.
  app.use(cleanInput);
  if (!config.servesApi) {
    // A worker answers only health checks and its metrics (ingestion is measured there).
    app.use((req: Request, res: Response, next: NextFunction) => {
      if (req.path.startsWith('/health') || req.path === '/metrics') return next();
      res
        .status(404)
        .json({ error: 404, error_message: 'This process runs workers only (ROLE=worker)' });
    });
  }
  setupSwagger(app, config);
  if (config.servesApi) {
    serveConsole(app);
    installRedirects(app);
  }
  return app;
}
