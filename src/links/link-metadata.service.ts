import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Errors } from '../common/app-error';
import { AppConfig } from '../config/app-config';
import { ProjectLookupsService } from '../projects/project-lookups.service';
import { ProjectEntity } from '../projects/project.entity';
import { CampaignEntity } from './campaign.entity';
import { isStub, stubify } from './campaign';
import { LinkInput } from './link-input';
import { LinkRecord, toLinkRecord } from './link-record';
import { LinkEntity } from './link.entity';
import { LinkMetadataRepository } from './link-metadata.repository';
import { ToolEntity } from './tool.entity';
import { UserIdentityEntity } from './user-identity.entity';

/** The most tools kept in memory; registered tools never change, so any instance may keep them. */
const TOOL_CACHE_SIZE = 10_000;

/**
 * The metadata a project's links name (docs/api.md, "Tracked links": tools, campaigns, user
 * identity, sharer_id): registered or updated as links are created and updated, and read into
 * their link records.
 */
@Injectable()
export class LinkMetadataService {
  private readonly tools = new Map<string, ToolEntity>();

  constructor(
    private readonly config: AppConfig,
    private readonly repository: LinkMetadataRepository,
    private readonly projects: ProjectLookupsService,
  ) {}

  /**
   * A tool key maps to its registered label and application; an unknown key is registered on
   * first use: label = the key stubified, application = the label's part before its first `-`.
   */
  async tool(project: ProjectEntity, key: string, manager: EntityManager): Promise<ToolEntity> {
    const cacheKey = `${project.id}\u0000${key}`;
    const cached = this.tools.get(cacheKey);
    if (cached) return cached;
    const label = stubify(key) ?? 'tool';
    const dash = label.indexOf('-');
    const application = dash > 0 ? label.slice(0, dash) : label;
    const tool = await this.repository.registerTool(project.id, key, label, application, manager);
    if (this.tools.size >= TOOL_CACHE_SIZE) this.tools.clear();
    this.tools.set(cacheKey, tool);
    return tool;
  }

  /**
   * The campaign `input.campaign` names. A new campaign needs campaign_description; its name
   * defaults to the value as submitted. An existing one keeps its name and description unless new
   * ones are given.
   */
  async campaign(
    project: ProjectEntity,
    input: LinkInput,
    manager: EntityManager,
  ): Promise<CampaignEntity> {
    const value = input.campaign!;
    const stub = stubify(value);
    if (!stub) throw Errors.invalid('campaign', 'must contain at least one letter or digit');
    const [existing] = await this.repository.findCampaigns(project.id, [stub], manager);
    if (!existing) {
      if (input.campaignDescription === undefined) {
        throw Errors.invalid(
          'campaign_description',
          `must be given when campaign "${stub}" is created`,
        );
      }
      return this.repository.upsertCampaign(
        project.id,
        stub,
        input.campaignName ?? value,
        input.campaignDescription,
        manager,
      );
    }
    if (
      input.campaignName !== undefined ||
      input.campaignDescription !== undefined ||
      !isStub(value)
    ) {
      return this.repository.upsertCampaign(
        project.id,
        stub,
        input.campaignName ?? (isStub(value) ? null : value),
        input.campaignDescription ?? null,
        manager,
      );
    }
    return existing;
  }

  /** The user identity of `input.user_id`, with the user_id_* values given stored over the old. */
  identity(
    project: ProjectEntity,
    input: LinkInput,
    manager: EntityManager,
  ): Promise<UserIdentityEntity> {
    return this.repository.upsertUserIdentity(
      project.id,
      input.userId!,
      {
        username: input.userIdUsername,
        iconUrl: input.userIdIconUrl,
        profileUrl: input.userIdProfileUrl,
      },
      manager,
    );
  }

  /** The username of a sharer_id, which must be a user of the project. */
  async sharerUsername(
    project: ProjectEntity,
    sharerId: string,
    manager: EntityManager,
  ): Promise<string> {
    const username = await this.projects.memberUsername(project.id, sharerId, manager);
    if (username === null) {
      throw Errors.invalid('sharer_id', `${sharerId} is not a user of this project`);
    }
    return username;
  }

  /** Link records with campaign and user metadata, read in one query each. */
  async records(
    project: ProjectEntity,
    links: LinkEntity[],
    manager?: EntityManager,
  ): Promise<LinkRecord[]> {
    const stubs = [...new Set(links.map((l) => l.campaign).filter((c): c is string => c !== null))];
    const userIds = [...new Set(links.map((l) => l.userId).filter((u): u is string => u !== null))];
    const campaigns = new Map<string, CampaignEntity>(
      (await this.repository.findCampaigns(project.id, stubs, manager)).map((c) => [c.stub, c]),
    );
    const identities = new Map<string, UserIdentityEntity>(
      (await this.repository.findUserIdentities(project.id, userIds, manager)).map((u) => [
        u.userId,
        u,
      ]),
    );
    return links.map((link) =>
      toLinkRecord(
        link,
        this.config.publicScheme,
        link.campaign ? (campaigns.get(link.campaign) ?? null) : null,
        link.userId ? (identities.get(link.userId) ?? null) : null,
      ),
    );
  }
}
