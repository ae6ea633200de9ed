import { Logger as NestLogger } from '@nestjs/common';
import type { Logger } from 'typeorm';

/**
 * TypeORM's log, through the application's logger: failed queries with the first line of their
 * SQL and never their parameters (they hold visitors' IPs, user agents and API keys), warnings.
 */
export class QueryLogger implements Logger {
  private readonly logger = new NestLogger('Database');

  logQuery(): void {}

  logQueryError(error: string | Error, query: string, _parameters?: unknown[]): void {
    const message = typeof error === 'string' ? error : error.message;
    this.logger.error(`query failed: ${message} — ${query.trim().split('\n')[0].slice(0, 200)}`);
  }

  logQuerySlow(): void {}

  logSchemaBuild(): void {}

  logMigration(message: string): void {
    this.logger.log(message);
  }

  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (level === 'warn') this.logger.warn(String(message));
  }
}
