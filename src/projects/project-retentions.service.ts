import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { effectiveRetentionDays } from './project-retention';
import { ProjectsRepository } from './projects.repository';

/** A project whose raw events are kept a limited time, and how many days. */
export interface ProjectRetention {
  projectId: string;
  days: number;
}

/**
 * Which projects keep their raw events a limited time (docs/api.md, "Retention"): their own
 * retention_days, else the instance's RETENTION_DAYS; read by the retention job once a run.
 */
@Injectable()
export class ProjectRetentions {
  constructor(
    private readonly repository: ProjectsRepository,
    private readonly config: AppConfig,
  ) {}

  /** Every live project with a retention, by id. */
  async retained(): Promise<ProjectRetention[]> {
    const instance = this.config.retentionDays;
    const rows = await this.repository.findRetentionDays(instance !== null);
    const retained: ProjectRetention[] = [];
    for (const row of rows) {
      const days = effectiveRetentionDays(row, instance);
      if (days !== null) retained.push({ projectId: row.id, days });
    }
    return retained;
  }
}
