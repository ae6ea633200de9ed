import { pipeline } from 'node:stream';
import { Controller, Get, Logger, Param, Post, Res, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { RawParams } from '../common/params';
import { Params } from '../common/params.decorator';
import { ClientSignal, RequestSignal } from '../common/request-signal';
import { ProjectRequest } from '../projects/project-key.guard';
import { CurrentProject, ProjectKeyAuth } from '../projects/project-key.decorators';
import { ProjectEntity } from '../projects/project.entity';
import { ReadThrottlerGuard } from '../rate-limit/project-throttler.guard';
import { readExportFile, readExportQuery } from './export-params';
import { ExportService } from './export.service';
import { ApiExport } from './export.swagger';

/** The file an export path names, checked before `v` and the key as statistics check their format. */
const checkFile = (_: RawParams, req: ProjectRequest) =>
  void readExportFile(String((req.params as Record<string, unknown>).file));

/**
 * GET or POST /export/{clicks|conversions|links}.{csv|ndjson|parquet} (docs/api.md, "Export"):
 * authenticated and counted as statistics are (the project's api_key, v=3, the read budget,
 * READ_RATE_LIMIT). The file is streamed: each chunk is written as the client takes it
 * (pipeline waits for the response's drain), and a client that goes away stops the statement
 * (RequestSignal). An error before the first byte is answered in the statistics' shape; one after
 * it cuts the response short (the client sees an incomplete transfer), and is logged.
 */
@ApiTags('export')
@Controller('export')
@UseGuards(ReadThrottlerGuard)
export class ExportController {
  private readonly logger = new Logger('Export');

  constructor(private readonly exports: ExportService) {}

  @Get(':file')
  @ApiExport("A project's clicks, conversions or links as a file (extension)")
  @ProjectKeyAuth({ version: true, before: checkFile })
  exportGet(
    @CurrentProject() project: ProjectEntity,
    @Param('file') file: string,
    @Params() params: RawParams,
    @RequestSignal() signal: ClientSignal,
    @Res() res: Response,
  ): Promise<void> {
    return this.send(project, file, params, signal, res);
  }

  @Post(':file')
  @ApiExport('Export (POST form; extension)')
  @ProjectKeyAuth({ version: true, before: checkFile })
  exportPost(
    @CurrentProject() project: ProjectEntity,
    @Param('file') file: string,
    @Params() params: RawParams,
    @RequestSignal() signal: ClientSignal,
    @Res() res: Response,
  ): Promise<void> {
    return this.send(project, file, params, signal, res);
  }

  private async send(
    project: ProjectEntity,
    file: string,
    params: RawParams,
    signal: AbortSignal,
    res: Response,
  ): Promise<void> {
    const query = readExportQuery(params, readExportFile(file));
    const { stream, contentType, filename } = await this.exports.export(project, query, signal);
    res.status(200);
    res.setHeader('Content-Type', contentType);
    res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
    res.setHeader('Cache-Control', 'no-store');
    pipeline(stream, res, (error) => {
      if (!error || signal.aborted) return;
      this.logger.warn(`export ${file} of project ${project.id} cut short: ${error.message}`);
    });
  }
}
