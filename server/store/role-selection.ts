// The rows of a table that role lists select (`#attr`, `@id`, `#all`, AnyOf or AllOf: common/policy/role-match.ts),
// read from the table's role attribute index instead of matching every row: the Management API's relationship lists
// (`/edge-routers/{id}/identities`, `/service-policies/{id}/identities`, `/services/{id}/identities`, ...) matched
// each of 1M identities against each policy per request. Candidates come from the index (the holders of one
// attribute, or the one row an `@id` names) and are then checked with rolesMatch itself, so the answer is exactly
// the scan's, in the table's id order.
import { allRole, rolesMatch, type RoleHolder, type RoleSemantic } from '../../common/policy/role-match.ts';
import type { EntityTable, Row } from './entity-table.ts';

export interface RoleSelector {
  readonly roles: readonly string[];
  readonly semantic: RoleSemantic;
}

/** The name of the multi-value index a table must keep on `roleAttributes` (server/model/entities.ts). */
export const roleAttributeIndex = 'roleAttributes';

/** Above this share of the table, the selected rows are put in id order by one walk of the table rather than a sort. */
const WALK_SHARE = 0.25;

/** The rows any of `selectors` selects, each once, in id order. */
export function rowsSelected<T extends Row & RoleHolder>(table: EntityTable<T>, selectors: Iterable<RoleSelector>): T[] {
  const selected = new Set<T>();
  for (const selector of selectors) {
    if (selector.roles.length === 0) continue;
    if (selector.roles.includes(allRole)) return table.all();
    for (const row of candidatesOf(table, selector)) {
      if (rolesMatch(selector.roles, selector.semantic, row)) selected.add(row);
    }
  }
  if (selected.size > table.size * WALK_SHARE) {
    const ordered: T[] = [];
    table.eachRow((row) => {
      if (selected.has(row)) ordered.push(row);
    });
    return ordered;
  }
  return [...selected].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** A superset of the rows one selector selects: for AnyOf every role's rows, for AllOf the rows of its rarest role. */
function candidatesOf<T extends Row & RoleHolder>(table: EntityTable<T>, selector: RoleSelector): T[] {
  if (selector.semantic === 'AllOf') {
    let rarest = selector.roles[0]!;
    let fewest = Infinity;
    for (const role of selector.roles) {
      const count = role.startsWith('@') ? (table.get(role.slice(1)) ? 1 : 0) : table.countHolding(roleAttributeIndex, role.slice(1));
      if (count < fewest) {
        fewest = count;
        rarest = role;
      }
    }
    return rowsOfRole(table, rarest);
  }
  return selector.roles.flatMap((role) => rowsOfRole(table, role));
}

function rowsOfRole<T extends Row & RoleHolder>(table: EntityTable<T>, role: string): T[] {
  if (role.startsWith('@')) {
    const row = table.get(role.slice(1));
    return row ? [row] : [];
  }
  return table.findHolding(roleAttributeIndex, role.slice(1));
}
