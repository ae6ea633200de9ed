import { Controller, Header, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ReadThrottlerGuard } from '../rate-limit/project-throttler.guard';
import { CurrentProject, ProjectKeyAuth } from '../projects/project-key.decorators';
import { ProjectEntity } from '../projects/project.entity';
import { StreamTokenDto } from './dto/stream-token.dto';
import { ApiStreamToken } from './events.swagger';
import { KeyInHeaderGuard } from './stream-auth';
import { StreamTokens } from './stream-tokens';

/**
 * POST /events/stream/token (docs/api.md, "Live feed"): a token that opens one stream, so that
 * the api_key stays out of the stream's URL. The key comes in a header or the form body
 * (KeyInHeaderGuard); getting a token counts in the project's read budget, as opening a stream
 * with the key does, and the publishable key gets the 403 of the endpoints it may not call.
 */
@ApiTags('events')
@Controller('events')
@UseGuards(KeyInHeaderGuard, ReadThrottlerGuard)
export class StreamTokenController {
  constructor(private readonly tokens: StreamTokens) {}

  @Post('stream/token')
  @HttpCode(200)
  // A secret in the answer: no cache may keep it.
  @Header('Cache-Control', 'no-store')
  @ApiStreamToken()
  @ProjectKeyAuth()
  async issue(@CurrentProject() project: ProjectEntity): Promise<StreamTokenDto> {
    const { token, expiresInSeconds } = await this.tokens.issue(project.id);
    return { token, expires_in: expiresInSeconds };
  }
}
