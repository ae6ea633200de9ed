import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { CampaignEntity } from './campaign.entity';
import { ToolEntity } from './tool.entity';
import { UserIdentityEntity } from './user-identity.entity';

/**
 * Every query on `tools`, `campaigns` and `user_identities`: the metadata a project's links name
 * (docs/api.md, "Tracked links"), registered as links are created and updated, read into link
 * records and statistics.
 */
@Injectable()
export class LinkMetadataRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private m(manager?: EntityManager): EntityManager {
    return manager ?? this.dataSource.manager;
  }

  /** A registered tool, or the one just registered for an unknown key (uses pk_tools). */
  async registerTool(
    projectId: string,
    key: string,
    label: string,
    application: string,
    manager?: EntityManager,
  ): Promise<ToolEntity> {
    const m = this.m(manager);
    await m.query(
      `INSERT INTO tools (project_id, key, label, application) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
      [projectId, key, label, application],
    );
    return m.findOneByOrFail(ToolEntity, { projectId, key });
  }

  findCampaigns(
    projectId: string,
    stubs: string[],
    manager?: EntityManager,
  ): Promise<CampaignEntity[]> {
    if (stubs.length === 0) return Promise.resolve([]);
    return this.m(manager)
      .createQueryBuilder(CampaignEntity, 'c')
      .where('c.project_id = :projectId AND c.stub = ANY(:stubs)', { projectId, stubs })
      .getMany();
  }

  /** Creates the campaign or, for given values, updates its name and description (uses pk_campaigns). */
  async upsertCampaign(
    projectId: string,
    stub: string,
    name: string | null,
    description: string | null,
    manager?: EntityManager,
  ): Promise<CampaignEntity> {
    const m = this.m(manager);
    await m.query(
      `INSERT INTO campaigns (project_id, stub, name, description) VALUES ($1, $2, $3, $4)
       ON CONFLICT (project_id, stub) DO UPDATE SET
         name = COALESCE(EXCLUDED.name, campaigns.name),
         description = COALESCE(EXCLUDED.description, campaigns.description)`,
      [projectId, stub, name, description],
    );
    return m.findOneByOrFail(CampaignEntity, { projectId, stub });
  }

  findUserIdentities(
    projectId: string,
    userIds: string[],
    manager?: EntityManager,
  ): Promise<UserIdentityEntity[]> {
    if (userIds.length === 0) return Promise.resolve([]);
    return this.m(manager)
      .createQueryBuilder(UserIdentityEntity, 'u')
      .where('u.project_id = :projectId AND u.user_id = ANY(:userIds)', { projectId, userIds })
      .getMany();
  }

  /** Records the user identity; given values replace stored ones (uses pk_user_identities). */
  async upsertUserIdentity(
    projectId: string,
    userId: string,
    values: { username?: string; iconUrl?: string; profileUrl?: string },
    manager?: EntityManager,
  ): Promise<UserIdentityEntity> {
    const m = this.m(manager);
    await m.query(
      `INSERT INTO user_identities (project_id, user_id, username, icon_url, profile_url) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (project_id, user_id) DO UPDATE SET
         username = COALESCE(EXCLUDED.username, user_identities.username),
         icon_url = COALESCE(EXCLUDED.icon_url, user_identities.icon_url),
         profile_url = COALESCE(EXCLUDED.profile_url, user_identities.profile_url),
         updated_at = now()`,
      [
        projectId,
        userId,
        values.username ?? null,
        values.iconUrl ?? null,
        values.profileUrl ?? null,
      ],
    );
    return m.findOneByOrFail(UserIdentityEntity, { projectId, userId });
  }

  /** The keys of the projects' tools with a label (pk_tools, ix_tools_label). */
  async findToolKeysByLabel(projectIds: string[], label: string): Promise<string[]> {
    const rows = await this.dataSource.query<{ key: string }[]>(
      `SELECT key FROM tools WHERE project_id = ANY($1::uuid[]) AND label = $2`,
      [projectIds, label],
    );
    return rows.map((r) => r.key);
  }

  /** The metadata statistics show of a user id: the projects' latest updated identity, or null. */
  async findUserMetadata(
    projectIds: string[],
    userId: string,
  ): Promise<{
    username: string | null;
    icon_url: string | null;
    profile_url: string | null;
  } | null> {
    const [row] = await this.dataSource.query<
      { username: string | null; icon_url: string | null; profile_url: string | null }[]
    >(
      `SELECT username, icon_url, profile_url FROM user_identities WHERE user_id = $1 AND project_id = ANY($2::uuid[])
       ORDER BY updated_at DESC LIMIT 1`,
      [userId, projectIds],
    );
    return row
      ? { username: row.username, icon_url: row.icon_url, profile_url: row.profile_url }
      : null;
  }

  /** The metadata statistics show of a campaign stub: the projects' first created, or null. */
  async findCampaignMetadata(
    projectIds: string[],
    stub: string,
  ): Promise<{ name: string | null; description: string | null } | null> {
    const [row] = await this.dataSource.query<
      { name: string | null; description: string | null }[]
    >(
      `SELECT name, description FROM campaigns WHERE stub = $1 AND project_id = ANY($2::uuid[]) ORDER BY created_at LIMIT 1`,
      [stub, projectIds],
    );
    return row ? { name: row.name, description: row.description } : null;
  }
}
