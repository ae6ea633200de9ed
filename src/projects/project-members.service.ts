import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ErrorCode, Errors } from '../common/app-error';
import { MailService } from '../mail/mail.service';
import { SubscriptionEntity } from '../subscriptions/subscription.entity';
import { isEmailAddress } from '../common/validators';
import { MemberRef, Named, isUuid } from './project-input';
import { ProjectRole } from './project-user.entity';
import { ProjectEntity } from './project.entity';
import { MemberRow, ProjectMembersRepository } from './project-members.repository';
import { UserEntity } from './user.entity';

/** A user invited by e-mail in this request: gets a welcome e-mail once the transaction commits. */
export interface Invitation {
  user: UserEntity;
  role: ProjectRole;
}

/** A user named in the request, found or to be created. */
type ResolvedUser = { user: UserEntity; email?: undefined } | { user: null; email: string };

/**
 * A project's users as the project objects name them (docs/api.md, "Administration"): by e-mail
 * (new users only so), sharer_id or username; each user named once per request; new users get a
 * welcome e-mail.
 */
@Injectable()
export class ProjectMembersService {
  private readonly logger = new Logger('ProjectMembersService');

  constructor(
    private readonly repository: ProjectMembersRepository,
    private readonly mail: MailService,
  ) {}

  /**
   * Adds the named users with their roles (an existing member named again takes that role). New
   * users are created from their e-mail address; they are returned for the welcome e-mail.
   */
  async addMembers(
    subscription: SubscriptionEntity,
    project: ProjectEntity,
    refs: MemberRef[],
    members: Map<string, MemberRow>,
    manager: EntityManager,
    named = new Map<string, string>(),
  ): Promise<Invitation[]> {
    const invitations: Invitation[] = [];
    for (const ref of refs) {
      const resolved = await this.resolveUser(subscription, ref, manager);
      const key = resolved.user ? resolved.user.id : resolved.email;
      this.noteNamed(named, key, ref);
      let user = resolved.user;
      if (!user) {
        user = await this.repository.insertUser(
          {
            email: resolved.email!,
            username: await this.freeUsername(resolved.email!, manager),
            name: resolved.email!.slice(0, resolved.email!.lastIndexOf('@')),
            defaultProjectId: project.id,
          },
          manager,
        );
        invitations.push({ user, role: ref.role });
      }
      if (members.get(user.id)?.role !== ref.role) {
        await this.repository.upsertMember(project.id, user.id, ref.role, manager);
      }
    }
    return invitations;
  }

  /** A member of the project named by e-mail, sharer_id or username (remove_user, change_role). */
  findMember(members: Map<string, MemberRow>, ref: Named, named: Map<string, string>): MemberRow {
    const value = ref.value.toLowerCase();
    const member = [...members.values()].find(
      (m) => m.email === value || m.userId === value || m.username === ref.value,
    );
    if (!member)
      throw Errors.invalid(ref.parameter, `"${ref.value}" is not a user of this project`);
    this.noteNamed(named, member.userId, ref);
    return member;
  }

  /** After commit: a welcome e-mail per invited user; a queue failure is logged, not the request's. */
  async sendWelcomes(project: ProjectEntity, invitations: Invitation[]): Promise<void> {
    for (const { user, role } of invitations) {
      const message = this.mail.welcomeMessage(
        `welcome-${user.id}-${project.id}`,
        user.email,
        project.name,
        role,
      );
      try {
        await this.mail.enqueue(message);
      } catch (error) {
        this.logger.error(
          { err: error, messageId: message.id },
          'welcome e-mail could not be queued',
        );
      }
    }
  }

  /**
   * A user by e-mail (anywhere: new users only by e-mail), sharer_id or username (only among the
   * users of this subscription's projects, so other tenants' users stay invisible).
   */
  private async resolveUser(
    subscription: SubscriptionEntity,
    ref: MemberRef,
    manager: EntityManager,
  ): Promise<ResolvedUser> {
    if (ref.value.includes('@')) {
      const email = ref.value.toLowerCase();
      if (!isEmailAddress(email))
        throw Errors.invalid(ref.parameter, `"${ref.value}" is not a valid e-mail address`);
      const user = await this.repository.findUserByEmail(email, manager);
      return user ? { user } : { user: null, email };
    }
    const user = isUuid(ref.value)
      ? await this.repository.findSubscriptionUserById(
          subscription.id,
          ref.value.toLowerCase(),
          manager,
        )
      : await this.repository.findSubscriptionUserByUsername(subscription.id, ref.value, manager);
    if (!user) {
      throw Errors.badRequest(
        `Invalid parameter ${ref.parameter}: "${ref.value}" is not a user of this subscription; new users are added by e-mail address`,
        ErrorCode.unknownUser,
      );
    }
    return { user };
  }

  private noteNamed(named: Map<string, string>, key: string, ref: Named): void {
    const earlier = named.get(key);
    if (earlier)
      throw Errors.invalid(ref.parameter, `"${ref.value}" names the same user as ${earlier}`);
    named.set(key, ref.parameter);
  }

  /** The e-mail's local part as a username, with the smallest numeric suffix that makes it unique. */
  private async freeUsername(email: string, manager: EntityManager): Promise<string> {
    const local = email.slice(0, email.lastIndexOf('@'));
    let base = local.replace(/[^a-z0-9_.-]/g, '_').slice(0, 50) || 'user';
    // A username must not read as a sharer_id, or lookups by username could never find it.
    if (isUuid(base)) base = `${base.slice(0, 36)}_`;
    const taken = new Set(await this.repository.listUsernamesStartingWith(base, manager));
    if (!taken.has(base)) return base;
    for (let n = 2; ; n++) if (!taken.has(`${base}${n}`)) return `${base}${n}`;
  }
}
