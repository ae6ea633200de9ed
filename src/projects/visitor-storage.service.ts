import { Injectable, OnModuleInit } from '@nestjs/common';
import { Lru } from '../common/lru';
import { VisitorStorage } from '../common/visitor-storage';
import { AppConfig } from '../config/app-config';
import { InvalidationBus } from '../queue/invalidation-bus';
import { visitorStorage } from './project-visitor-storage';
import { ProjectsRepository } from './projects.repository';

/** Projects whose visitor storage a process keeps. */
const KEPT = 10_000;
/** Kept this long at most, should an invalidation be missed. */
const TTL_MS = 10_000;
/** A project that set neither field. */
const UNSET = { ipStorage: null, uaStorage: 'full' } as const;

/**
 * How much of its visitors each project keeps (docs/api.md, "Addresses"), for the clicks worker:
 * kept in-process by project id, so that a batch of clicks costs at most one query for the
 * projects not kept (never one a click, and nothing on the redirect path). A project's change drops
 * it on every instance (InvalidationBus), and an entry expires after TTL_MS anyway.
 */
@Injectable()
export class VisitorStorageService implements OnModuleInit {
  private readonly kept = new Lru<VisitorStorage>(KEPT);
  /** Bumped by every invalidation: a lookup that raced one does not keep what it read. */
  private generation = 0;

  constructor(
    private readonly repository: ProjectsRepository,
    private readonly invalidation: InvalidationBus,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.invalidation.register({
      kinds: ['project'],
      drop: (_kind, ids) => {
        this.generation++;
        for (const id of ids) this.kept.delete(id);
      },
      dropAll: () => {
        this.generation++;
        this.kept.clear();
      },
    });
  }

  /**
   * Each project's visitor storage, at its index; an id no project has (destroyed projects are
   * kept) follows the instance's CLICK_IP.
   */
  async of(projectIds: readonly string[]): Promise<VisitorStorage[]> {
    const now = Date.now();
    const found = projectIds.map((id) => this.kept.get(id, now)?.value);
    const missing = projectIds.filter((_, i) => found[i] === undefined);
    if (missing.length > 0) {
      const generation = this.generation;
      const rows = await this.repository.findVisitorStorage(missing);
      const read = new Map(rows.map((row) => [row.id, visitorStorage(row, this.config.clickIp)]));
      for (const [i, id] of projectIds.entries()) {
        if (found[i] !== undefined) continue;
        const storage = read.get(id) ?? visitorStorage(UNSET, this.config.clickIp);
        found[i] = storage;
        if (generation === this.generation) this.kept.set(id, storage, TTL_MS, now);
      }
    }
    return found as VisitorStorage[];
  }
}
