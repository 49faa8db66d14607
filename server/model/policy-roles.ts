// Policy roles: how a service policy names the identities, services and posture checks it covers. `#attr` selects
// entities carrying that role attribute, `@<id>` one entity by id, and `#all` everything. With semantic AllOf an
// entity must satisfy every role listed; with AnyOf one is enough. `#all` matches regardless of the semantic.
// Pure: the syntax rules and the matching, with the real controller's wording for the errors.
//
// An `@id` whose entity is later deleted stays in the list and matches nothing. Removing it instead would widen an
// AllOf policy (`#a @x` would become `#a`), so a deletion could grant access; ids are random and never reused.

export { allRole, rolesMatch, type RoleHolder } from '../../common/policy/role-match.ts';
import { allRole } from '../../common/policy/role-match.ts';

export interface RoleProblem {
  readonly reason: string;
  readonly value: readonly string[];
}

/** The first syntax problem of a role list, or undefined when it is well formed. */
export function roleSyntaxProblem(roles: readonly string[]): RoleProblem | undefined {
  if (roles.length > 1 && roles.includes(allRole)) return { reason: `if using ${allRole}, it should be the only role specified`, value: [...roles] };
  const unprefixed = roles.filter((role) => !role.startsWith('#') && !role.startsWith('@'));
  if (unprefixed.length > 0) {
    return { reason: 'role entries must prefixed with # (to indicate role attributes) or @ (to indicate a name or id)', value: unprefixed };
  }
  // A bare `#` or `@` names nothing; the real controller would store it and match nothing, which only hides a typo.
  const empty = roles.filter((role) => role.length === 1);
  if (empty.length > 0) return { reason: 'role entries must name a role attribute after # or an id after @', value: empty };
  return undefined;
}

/** The entity ids a role list names with `@`. */
export function referencedIds(roles: readonly string[]): string[] {
  return roles.filter((role) => role.startsWith('@')).map((role) => role.slice(1));
}
