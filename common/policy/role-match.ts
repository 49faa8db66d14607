// Policy role matching, shared by the controller (which grants access) and the router (which works out, from the
// edge model it is sent, which services it may host). `#attr` selects entities carrying that role attribute,
// `@<id>` one entity by id, and `#all` everything. With semantic AllOf an entity must satisfy every role listed; with
// AnyOf one is enough. `#all` matches regardless of the semantic. Pure.

export const allRole = '#all';

export type RoleSemantic = 'AllOf' | 'AnyOf';

/** What a role can select: an entity's id and its role attributes. */
export interface RoleHolder {
  readonly id: string;
  readonly roleAttributes: readonly string[];
}

/** Whether `roles`, read with `semantic`, select `holder`. An empty list selects nothing. */
export function rolesMatch(roles: readonly string[], semantic: RoleSemantic, holder: RoleHolder): boolean {
  if (roles.length === 0) return false;
  if (roles.includes(allRole)) return true;
  const matchesOne = (role: string) => (role.startsWith('@') ? role.slice(1) === holder.id : holder.roleAttributes.includes(role.slice(1)));
  return semantic === 'AllOf' ? roles.every(matchesOne) : roles.some(matchesOne);
}
