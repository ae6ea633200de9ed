import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { setupSwagger } from './common/swagger';
import { AppConfig } from './config/app-config';

/** Builds the application (used by main, the tests and the benchmarks alike). */
export async function createApp(config: AppConfig): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    bufferLogs: true,
    bodyParser: false,
  });
  app.useLogger(app.get(Logger));
  // `name[]=value` arrays (batch, tag_3[]) need the extended query parser.
  app.set('query parser', 'extended');
  app.set('trust proxy', false);
  app.disable('x-powered-by');
  app.useBodyParser('urlencoded', { extended: true, limit: '1mb', parameterLimit: 5000 });
  app.useBodyParser('json', { limit: '1mb' });
  if (!config.servesApi) {
    // A worker answers only health checks.
    app.use((req: Request, res: Response, next: NextFunction) => {
      if (req.path.startsWith('/health')) return next();
      res.status(404).json({ error: 404, error_message: 'This process runs workers only (ROLE=worker)' });
    });
  }
  setupSwagger(app, config);
  app.enableShutdownHooks();
  return app;
}
