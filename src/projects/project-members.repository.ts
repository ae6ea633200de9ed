import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { ProjectRole, ProjectUserEntity } from './project-user.entity';
import { ProjectEntity } from './project.entity';
import { UserEntity } from './user.entity';

/** A project member as the project record shows it. */
export interface MemberRow {
  projectId: string;
  role: ProjectRole;
  userId: string;
  email: string;
  username: string;
  name: string;
  /** Name of the user's default project as this subscription may see it (see listMembers). */
  defaultProject: string | null;
}

interface RawMemberRow {
  project_id: string;
  role: ProjectRole;
  user_id: string;
  email: string;
  username: string;
  name: string;
  default_project: string | null;
}

/** Every query on `users` and `project_users`: the people of projects and their roles. */
@Injectable()
export class ProjectMembersRepository {
  constructor(
    @InjectRepository(ProjectEntity) private readonly projects: Repository<ProjectEntity>,
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    @InjectRepository(ProjectUserEntity)
    private readonly projectUsers: Repository<ProjectUserEntity>,
  ) {}

  /**
   * Members of the projects, ordered by e-mail. default_project is the user's default project when
   * it is a live project of this subscription the user still belongs to; otherwise the user's
   * earliest live project in this subscription (another tenant's project names never show).
   */
  async listMembers(
    subscriptionId: string,
    projectIds: string[],
    manager?: EntityManager,
  ): Promise<MemberRow[]> {
    if (projectIds.length === 0) return [];
    const placeholders = projectIds.map((_, index) => `$${index + 2}`).join(', ');
    const rows: RawMemberRow[] = await (manager ?? this.projects.manager).query(
      `SELECT pu.project_id, pu.role, u.id AS user_id, u.email, u.username, u.name,
              COALESCE(dp.name, (
                SELECT p2.name FROM project_users pu2
                JOIN projects p2 ON p2.id = pu2.project_id
                WHERE pu2.user_id = u.id AND p2.subscription_id = $1 AND p2.deleted_at IS NULL
                ORDER BY pu2.created_at, p2.created_at, p2.id LIMIT 1
              )) AS default_project
         FROM project_users pu
         JOIN users u ON u.id = pu.user_id
         LEFT JOIN projects dp ON dp.id = u.default_project_id
              AND dp.subscription_id = $1 AND dp.deleted_at IS NULL
              AND EXISTS (SELECT 1 FROM project_users m WHERE m.project_id = dp.id AND m.user_id = u.id)
        WHERE pu.project_id IN (${placeholders})
        ORDER BY u.email, u.id`,
      [subscriptionId, ...projectIds],
    );
    return rows.map((row) => ({
      projectId: row.project_id,
      role: row.role,
      userId: row.user_id,
      email: row.email,
      username: row.username,
      name: row.name,
      defaultProject: row.default_project,
    }));
  }

  /** Uses pk_project_users. */
  countMembers(projectId: string, manager?: EntityManager): Promise<number> {
    return this.repo(this.projectUsers, manager).countBy({ projectId });
  }

  /** Anywhere: an e-mail address names one person (uq_users_email). */
  findUserByEmail(email: string, manager?: EntityManager): Promise<UserEntity | null> {
    return this.repo(this.users, manager).findOneBy({ email });
  }

  /** A user by sharer_id, only among members of this subscription's live projects. */
  findSubscriptionUserById(
    subscriptionId: string,
    id: string,
    manager?: EntityManager,
  ): Promise<UserEntity | null> {
    return this.subscriptionUsers(subscriptionId, manager).andWhere('u.id = :id', { id }).getOne();
  }

  /** A user by username, only among members of this subscription's live projects. */
  findSubscriptionUserByUsername(
    subscriptionId: string,
    username: string,
    manager?: EntityManager,
  ): Promise<UserEntity | null> {
    return this.subscriptionUsers(subscriptionId, manager)
      .andWhere('u.username = :username', { username })
      .getOne();
  }

  /** The username of a member of the project by user id (sharer_id), or null when not a member. */
  async findMemberUsername(
    projectId: string,
    userId: string,
    manager?: EntityManager,
  ): Promise<string | null> {
    const raw: { username: string }[] = await (manager ?? this.projects.manager).query(
      `SELECT u.username FROM users u JOIN project_users pu ON pu.user_id = u.id
       WHERE pu.project_id = $1 AND u.id = $2`,
      [projectId, userId],
    );
    return raw[0]?.username ?? null;
  }

  /** The project's admins, with its name, to write to (a webhook disabled: docs/api.md, "Webhooks"). */
  async listProjectAdmins(
    projectId: string,
  ): Promise<{ userId: string; email: string; projectName: string }[]> {
    const raw: { user_id: string; email: string; name: string }[] =
      await this.projects.manager.query(
        `SELECT u.id AS user_id, u.email, p.name FROM project_users pu
       JOIN users u ON u.id = pu.user_id JOIN projects p ON p.id = pu.project_id
       WHERE pu.project_id = $1 AND pu.role = 'admin'`,
        [projectId],
      );
    return raw.map((row) => ({ userId: row.user_id, email: row.email, projectName: row.name }));
  }

  /** Usernames that start with the prefix (uq_users_username); callers pick a free suffix. */
  async listUsernamesStartingWith(prefix: string, manager?: EntityManager): Promise<string[]> {
    const escaped = prefix.replace(/[\\%_]/g, (c) => `\\${c}`);
    const rows = await this.repo(this.users, manager)
      .createQueryBuilder('u')
      .select('u.username', 'username')
      .where(`u.username LIKE :pattern ESCAPE '\\'`, { pattern: `${escaped}%` })
      .getRawMany<{ username: string }>();
    return rows.map((row) => row.username);
  }

  insertUser(
    values: Pick<UserEntity, 'email' | 'username' | 'name' | 'defaultProjectId'>,
    manager?: EntityManager,
  ): Promise<UserEntity> {
    const repo = this.repo(this.users, manager);
    return repo.save(repo.create(values));
  }

  /** Adds a member or changes their role (pk_project_users). */
  async upsertMember(
    projectId: string,
    userId: string,
    role: ProjectRole,
    manager?: EntityManager,
  ): Promise<void> {
    await this.repo(this.projectUsers, manager)
      .createQueryBuilder()
      .insert()
      .into(ProjectUserEntity)
      .values({ projectId, userId, role })
      .orUpdate(['role'], ['project_id', 'user_id'])
      .execute();
  }

  async removeMembers(
    projectId: string,
    userIds: string[],
    manager?: EntityManager,
  ): Promise<void> {
    if (userIds.length === 0) return;
    await this.repo(this.projectUsers, manager).delete({ projectId, userId: In(userIds) });
  }

  private subscriptionUsers(subscriptionId: string, manager?: EntityManager) {
    return this.repo(this.users, manager)
      .createQueryBuilder('u')
      .where(
        `EXISTS (SELECT 1 FROM project_users pu JOIN projects p ON p.id = pu.project_id
                  WHERE pu.user_id = u.id AND p.subscription_id = :subscriptionId AND p.deleted_at IS NULL)`,
        { subscriptionId },
      );
  }

  private repo<T extends object>(
    repository: Repository<T>,
    manager?: EntityManager,
  ): Repository<T> {
    return manager ? manager.getRepository<T>(repository.target) : repository;
  }
}
