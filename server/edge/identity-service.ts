// Identities: the management operations on them, validated against the model before a command is proposed
// (the apply checks again, so concurrent writers cannot break uniqueness).
import type { Clock } from '../../common/time/clock.ts';
import type { Authenticator, Enrollment, Identity } from '../model/entities.ts';
import { tables } from '../model/entities.ts';
import type { IdentityChanges } from '../model/commands.ts';
import type { ModelStore } from '../store/model-store.ts';
import { rowsSelected, type RoleSelector } from '../store/role-selection.ts';
import { EdgeError } from './edge-error.ts';
import { defaultAuthPolicy } from './default-auth-policy.ts';
import { newEntityId } from './ids.ts';
import type { ModelWriter } from './model-writer.ts';
import { hashPassword } from '../auth/password-hasher.ts';
import { isoTime } from '../../common/time/iso-time.ts';

export interface IdentityInput {
  readonly name: string;
  readonly isAdmin: boolean;
  readonly authPolicyId?: string | null;
  readonly externalId?: string | null;
  readonly roleAttributes?: readonly string[] | null;
  readonly tags?: Readonly<Record<string, unknown>> | null;
}

export class IdentityService {
  constructor(
    private readonly store: ModelStore,
    private readonly writer: ModelWriter,
    private readonly clock: Clock,
  ) {}

  list(): Identity[] {
    return this.store.table<Identity>(tables.identities).all();
  }

  /** The identities any of the role lists selects (policies' identity roles), in id order, from the role index. */
  selectedBy(selectors: Iterable<RoleSelector>): Identity[] {
    return rowsSelected(this.store.table<Identity>(tables.identities), selectors);
  }

  find(id: string): Identity | undefined {
    return this.store.table<Identity>(tables.identities).get(id);
  }

  get(id: string): Identity {
    const identity = this.find(id);
    if (!identity) throw EdgeError.notFound('identity', id);
    return identity;
  }

  async create(input: IdentityInput, extra: { id?: string; isDefaultAdmin?: boolean; authenticators?: (identityId: string, at: string) => Authenticator[]; enrollments?: (identityId: string) => Promise<Enrollment[]> } = {}): Promise<{ id: string; index: number }> {
    const at = this.now();
    const identity: Identity = {
      id: extra.id ?? newEntityId(),
      createdAt: at,
      updatedAt: at,
      tags: input.tags ?? {},
      name: input.name,
      typeId: 'Default',
      isAdmin: input.isAdmin,
      isDefaultAdmin: extra.isDefaultAdmin ?? false,
      authPolicyId: this.checkAuthPolicy(input.authPolicyId),
      externalId: input.externalId ?? null,
      roleAttributes: [...(input.roleAttributes ?? [])],
      disabledAt: null,
      disabledUntil: null,
    };
    this.checkUnique(identity);
    const authenticators = extra.authenticators?.(identity.id, at) ?? [];
    const enrollments = (await extra.enrollments?.(identity.id)) ?? [];
    const written = await this.writer.write<{ id: string }>({ type: 'identity.create', identity, authenticators, enrollments });
    return { id: written.value.id, index: written.index };
  }

  /** PUT replaces every updatable field (missing optional ones reset to defaults); PATCH changes only those given. */
  async update(id: string, input: Partial<IdentityInput>, mode: 'put' | 'patch'): Promise<void> {
    const current = this.get(id);
    const changes: IdentityChanges = {};
    const has = (key: keyof IdentityInput) => mode === 'put' || input[key] !== undefined;
    if (has('name') && input.name !== undefined) (changes as { name?: string }).name = input.name;
    if (has('isAdmin') && input.isAdmin !== undefined) (changes as { isAdmin?: boolean }).isAdmin = input.isAdmin;
    if (has('authPolicyId')) (changes as { authPolicyId?: string }).authPolicyId = this.checkAuthPolicy(input.authPolicyId);
    if (has('externalId')) (changes as { externalId?: string | null }).externalId = input.externalId ?? null;
    if (has('roleAttributes')) (changes as { roleAttributes?: readonly string[] }).roleAttributes = [...(input.roleAttributes ?? [])];
    if (has('tags')) (changes as { tags?: Readonly<Record<string, unknown>> }).tags = input.tags ?? {};
    if (current.isDefaultAdmin && changes.isAdmin === false) {
      throw EdgeError.validation('isAdmin', 'the default admin must remain an administrator', false);
    }
    this.checkUnique({ ...current, ...changes });
    await this.writer.write({ type: 'identity.update', id, at: this.now(), changes });
  }

  async delete(id: string): Promise<void> {
    const identity = this.get(id);
    if (identity.isDefaultAdmin) {
      throw new EdgeError('ENTITY_CAN_NOT_BE_DELETED', { code: 'ENTITY_CAN_NOT_BE_DELETED', message: 'the default admin identity can not be deleted' });
    }
    await this.writer.write({ type: 'identity.delete', id });
  }

  /** Disables the identity for `durationMinutes` (0: until enabled) and ends its API sessions. */
  async disable(id: string, durationMinutes: number): Promise<void> {
    const identity = this.get(id);
    if (identity.isDefaultAdmin) throw EdgeError.validation('id', 'the default admin can not be disabled', id);
    const now = this.clock.now();
    const until = durationMinutes > 0 ? new Date(now + durationMinutes * 60_000).toISOString() : null;
    await this.writer.write({ type: 'identity.disable', id, at: new Date(now).toISOString(), until });
  }

  /** Lifts a disable or a lockout, and clears failed password counts. */
  async enable(id: string): Promise<void> {
    this.get(id);
    await this.writer.write({ type: 'identity.enable', id, at: this.now() });
  }

  hasDefaultAdmin(): boolean {
    return this.list().some((identity) => identity.isDefaultAdmin);
  }

  /** Creates the default admin with a password authenticator in one command; refused once one exists. */
  async bootstrapAdmin(input: { username: string; password: string; name: string }): Promise<{ id: string }> {
    if (this.hasDefaultAdmin()) {
      throw EdgeError.validation('admin', 'the controller is already initialized with a default admin');
    }
    const password = await hashPassword(input.password);
    return this.create(
      { name: input.name, isAdmin: true },
      {
        isDefaultAdmin: true,
        authenticators: (identityId, at) => [
          { id: newEntityId(), createdAt: at, updatedAt: at, tags: {}, method: 'updb', identityId, username: input.username, password },
        ],
      },
    );
  }

  private checkAuthPolicy(authPolicyId: string | null | undefined): string {
    const id = authPolicyId ?? defaultAuthPolicy.id;
    if (id !== defaultAuthPolicy.id && !this.store.table(tables.authPolicies).get(id)) throw EdgeError.validation('authPolicyId', `auth policy with id ${id} not found`, id);
    return id;
  }

  private checkUnique(identity: Identity): void {
    const violation = this.store.table<Identity>(tables.identities).violationFor(identity);
    if (violation) throw EdgeError.validation(violation.index, violation.message, violation.value);
  }

  private now(): string {
    return isoTime(this.clock.now());
  }
}
