import { Injectable, OnModuleInit } from '@nestjs/common';
import { Lru } from '../common/lru';
import { VisitorStorage } from '../common/visitor-storage';
import { AppConfig } from '../config/app-config';
import { InvalidationBus } from '../queue/invalidation-bus';
import { visitorStorage } from './project-visitor-storage';
import { ProjectsRepository } from './projects.repository';

/** Projects whose visitor storage a process keeps. */
const KEPT = 10_000;
/** Read again after this long, should an invalidation be missed. */
const FRESH_MS = 10_000;
/** Kept this long at most: what serves while PostgreSQL is out of reach. */
const KEPT_MS = 24 * 3_600_000;
/** A project that set neither field. */
const UNSET = { ipStorage: null, uaStorage: 'full' } as const;

interface Kept {
  storage: VisitorStorage;
  freshUntil: number;
}

/**
 * How much of its visitors each project keeps (docs/api.md, "Addresses"), for the clicks worker:
 * kept in-process by project id, so that a batch of clicks costs at most one query for the
 * projects not kept or kept over FRESH_MS (never one a click, and nothing on the redirect path). A
 * project's change drops it on every instance (InvalidationBus). While PostgreSQL is out of reach,
 * the settings last read serve (no project can change meanwhile), and a batch with a project never
 * read fails, to be retried: its clicks are never stored with more than the project keeps.
 */
@Injectable()
export class VisitorStorageService implements OnModuleInit {
  private readonly kept = new Lru<Kept>(KEPT);
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
    const kept = projectIds.map((id) => this.kept.get(id, now)?.value);
    const stale = projectIds.filter((_, i) => !kept[i] || kept[i].freshUntil <= now);
    if (stale.length === 0) return kept.map((entry) => entry!.storage);
    const generation = this.generation;
    let rows: Awaited<ReturnType<ProjectsRepository['findVisitorStorage']>>;
    try {
      rows = await this.repository.findVisitorStorage(stale);
    } catch (error) {
      if (kept.every((entry) => entry !== undefined)) return kept.map((entry) => entry.storage);
      throw error;
    }
    const read = new Map(rows.map((row) => [row.id, row]));
    return projectIds.map((id, i) => {
      const entry = kept[i];
      if (entry && entry.freshUntil > now) return entry.storage;
      const storage = visitorStorage(read.get(id) ?? UNSET, this.config.clickIp);
      if (generation === this.generation) {
        this.kept.set(id, { storage, freshUntil: now + FRESH_MS }, KEPT_MS, now);
      }
      return storage;
    });
  }
}
