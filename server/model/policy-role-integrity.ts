// The data-integrity check's policy part: service policies, edge router policies and service edge router policies
// whose role lists name an `@id` no row has (deletes leave them behind on purpose, policy-roles.ts). Such a role is
// dropped only where that cannot change whom the list selects: with AnyOf a missing id selects nothing either way;
// with AllOf it makes the whole list select nothing, so dropping it would widen the list (or, for posture checks,
// narrow it), unless nothing else is left or `#all` is there. Otherwise the finding is reported, not fixed.
// Pure: rows in, findings out.
import type { ModelCommand } from './commands.ts';
import type { IntegrityFinding } from './data-integrity.ts';
import { allRole, referencedIds } from './policy-roles.ts';
import type { RoleSemantic } from './service-entities.ts';

interface PolicyRow {
  readonly id: string;
  readonly name: string;
  readonly semantic: RoleSemantic;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** One kind of policy: its name in findings, its role lists with what each `@id` must name, and its update. */
export interface PolicyKind<P extends PolicyRow> {
  readonly label: string;
  readonly lists: ReadonlyArray<{ readonly field: keyof P & string; readonly exists: (id: string) => boolean }>;
  readonly update: (id: string, body: Omit<P, 'id' | 'createdAt' | 'updatedAt'>) => ModelCommand;
}

export function policyRoleFindings<P extends PolicyRow>(policies: readonly P[], kind: PolicyKind<P>): IntegrityFinding[] {
  const findings: IntegrityFinding[] = [];
  for (const policy of policies) {
    const gone = kind.lists.map(({ field, exists }) => {
      const roles = policy[field] as unknown as readonly string[];
      return { field, roles, missing: referencedIds(roles).filter((id) => !exists(id)) };
    });
    if (gone.every(({ missing }) => missing.length === 0)) continue;
    const kept = (roles: readonly string[], missing: readonly string[]) => roles.filter((role) => !(role.startsWith('@') && missing.includes(role.slice(1))));
    const unchanged = gone.every(({ roles, missing }) => {
      if (missing.length === 0 || policy.semantic === 'AnyOf' || roles.includes(allRole)) return true;
      return kept(roles, missing).length === 0;
    });
    const named = gone.flatMap(({ field, missing }) => missing.map((id) => `${field} @${id}`)).join(', ');
    const description = `${kind.label} ${policy.name} (${policy.id}) names rows that do not exist: ${named}`;
    if (!unchanged) {
      findings.push({ description: `${description}; not fixed: the policy is AllOf, so dropping them would change what it selects (edit the policy)` });
      continue;
    }
    const { id, createdAt, updatedAt, ...body } = policy;
    void createdAt;
    void updatedAt;
    const repaired: Record<string, unknown> = { ...body };
    for (const { field, roles, missing } of gone) repaired[field] = kept(roles, missing);
    findings.push({ description, fix: kind.update(id, repaired as Omit<P, 'id' | 'createdAt' | 'updatedAt'>) });
  }
  return findings;
}
