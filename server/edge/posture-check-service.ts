// Posture checks: conditions a session must meet before a policy lets it use a service. Only the MFA type exists;
// its timeout is stored as -1 when it has none, which is how the real controller reports it.
import type { Clock } from '../../common/time/clock.ts';
import type { PostureCheck } from '../model/service-entities.ts';
import { serviceTables } from '../model/service-entities.ts';
import type { ModelStore } from '../store/model-store.ts';
import { EdgeError } from './edge-error.ts';
import { newEntityId } from './ids.ts';
import type { ModelWriter } from './model-writer.ts';
import { noTimeout } from './posture-evaluation.ts';
import { isoTime } from '../../common/time/iso-time.ts';

export type PostureCheckInput = Omit<PostureCheck, 'id' | 'createdAt' | 'updatedAt' | 'version'>;

export class PostureCheckService {
  constructor(
    private readonly store: ModelStore,
    private readonly writer: ModelWriter,
    private readonly clock: Clock,
  ) {}

  list(): PostureCheck[] {
    return this.store.table<PostureCheck>(serviceTables.postureChecks).all();
  }

  find(id: string): PostureCheck | undefined {
    return this.store.table<PostureCheck>(serviceTables.postureChecks).get(id);
  }

  get(id: string): PostureCheck {
    const check = this.find(id);
    if (!check) throw EdgeError.notFound('posture check', id);
    return check;
  }

  async create(input: PostureCheckInput): Promise<{ id: string }> {
    const at = this.now();
    const check: PostureCheck = { ...normalise(input), id: newEntityId(), createdAt: at, updatedAt: at, version: 1 };
    this.checkUnique(check);
    const written = await this.writer.write<{ id: string }>({ type: 'postureCheck.create', check });
    return { id: written.value.id };
  }

  async update(id: string, input: PostureCheckInput): Promise<void> {
    const current = this.get(id);
    const check = normalise(input);
    this.checkUnique({ ...current, ...check });
    await this.writer.write({ type: 'postureCheck.update', id, at: this.now(), check });
  }

  async delete(id: string): Promise<void> {
    this.get(id);
    await this.writer.write({ type: 'postureCheck.delete', id });
  }

  private checkUnique(check: PostureCheck): void {
    const violation = this.store.table<PostureCheck>(serviceTables.postureChecks).violationFor(check);
    if (violation) throw EdgeError.validation(violation.index, violation.message, violation.value);
  }

  private now(): string {
    return isoTime(this.clock.now());
  }
}

function normalise(input: PostureCheckInput): PostureCheckInput {
  return { ...input, timeoutSeconds: input.timeoutSeconds > 0 ? input.timeoutSeconds : noTimeout };
}
