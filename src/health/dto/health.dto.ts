import { ApiProperty } from '@nestjs/swagger';

/** GET /health: the process answers. */
export class HealthLiveDto {
  @ApiProperty({ enum: ['ok'] })
  status: 'ok';
}
