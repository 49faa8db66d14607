// The role attributes in use on one kind of entity (identities, services, edge routers, posture checks): each
// attribute once, sorted, as `/identity-role-attributes` and its siblings list them. Each is shaped as a row whose
// id is the attribute itself, so the lists page, filter and sort like every other list (`id contains "web"`). Pure.

export interface RoleAttributeRow {
  readonly id: string;
}

export function roleAttributesInUse(holders: Iterable<{ readonly roleAttributes: readonly string[] }>): RoleAttributeRow[] {
  const seen = new Set<string>();
  for (const holder of holders) for (const attribute of holder.roleAttributes) seen.add(attribute);
  return [...seen].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map((id) => ({ id }));
}
