import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  HealthCheck,
  HealthCheckService,
  HealthIndicatorResult,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import type Redis from 'ioredis';
import { AnalyticsClient, messageOf } from '../analytics/analytics-client';
import { NO_KEY } from '../common/api-security';
import { RedisClient } from '../queue/redis.provider';
import { HealthLiveDto } from './dto/health.dto';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    private readonly redis: RedisClient,
    @Inject(AnalyticsClient) private readonly analytics: AnalyticsClient,
  ) {}

  /** Liveness: the process answers. */
  @Get()
  @ApiOperation({ summary: 'Liveness', security: NO_KEY })
  @ApiOkResponse({ type: HealthLiveDto })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Readiness: the database and the analytics store (ClickHouse) answer and, when REDIS_URL is set, Redis does. */
  @Get('ready')
  @HealthCheck()
  @ApiOperation({
    summary: 'Readiness (database, analytics store and, when configured, Redis)',
    security: NO_KEY,
  })
  ready() {
    const checks = [
      () => this.database.pingCheck('database', { timeout: 2000 }),
      () => this.pingAnalytics(),
    ];
    const client = this.redis.client;
    if (client) checks.push(() => this.pingRedis(client));
    return this.health.check(checks);
  }

  private async pingAnalytics(): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check('clickhouse');
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.analytics.ping(),
        new Promise<void>((_, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), 2000);
        }),
      ]);
      return indicator.up({ store: this.analytics.description });
    } catch (error) {
      return indicator.down({ store: this.analytics.description, message: messageOf(error) });
    } finally {
      clearTimeout(timer);
    }
  }

  private async pingRedis(client: Redis): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check('redis');
    // The timer is cleared once Redis answers: a pending 2 s timer would hold the process open
    // after shutdown (Jest reported it as "did not exit").
    let timer: NodeJS.Timeout | undefined;
    try {
      const answer = await Promise.race([
        client.ping(),
        new Promise<string>((_, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), 2000);
        }),
      ]);
      return answer === 'PONG' ? indicator.up() : indicator.down({ message: answer });
    } catch (error) {
      return indicator.down({ message: (error as Error).message });
    } finally {
      clearTimeout(timer);
    }
  }
}
