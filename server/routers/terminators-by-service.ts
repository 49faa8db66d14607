// Terminators grouped by service, so circuit setup reads one service's terminators and not the whole cluster's. Kept
// beside the terminator registry and each peer's mirror; `remove` takes out only the very record that was added, so
// a replaced record's late removal cannot drop its successor.
import type { TerminatorRecord } from '../edge/terminator-directory.ts';

export class TerminatorsByService {
  private readonly byService = new Map<string, Map<string, TerminatorRecord>>();

  add(terminator: TerminatorRecord): void {
    let held = this.byService.get(terminator.serviceId);
    if (!held) this.byService.set(terminator.serviceId, (held = new Map()));
    held.set(terminator.id, terminator);
  }

  remove(terminator: TerminatorRecord): void {
    const held = this.byService.get(terminator.serviceId);
    if (held?.get(terminator.id) !== terminator) return;
    held.delete(terminator.id);
    if (held.size === 0) this.byService.delete(terminator.serviceId);
  }

  of(serviceId: string): Iterable<TerminatorRecord> {
    return this.byService.get(serviceId)?.values() ?? [];
  }
}
