// The rows of a table that role lists select (`#attr`, `@id`, `#all`, AnyOf or AllOf: common/policy/role-match.ts),
// read from the table's role attribute index instead of matching every row: the Management API's relationship lists
// (`/edge-routers/{id}/identities`, `/service-policies/{id}/identities`, `/services/{id}/identities`, ...) matched
// each of 1M identities against each policy per request. Candidates come from the index (the holders of one
// attribute, or the one row an `@id` names) and are then checked as rolesMatch checks, so the answer is exactly
// the scan's, in the table's id order.
import { allRole, type RoleHolder, type RoleSemantic } from '../../common/policy/role-match.ts';
import type { EntityTable, Row } from './entity-table.ts';

export interface RoleSelector {
  readonly roles: readonly string[];
  readonly semantic: RoleSemantic;
}

/** The name of the multi-value index a table must keep on `roleAttributes` (server/model/entities.ts). */
export const roleAttributeIndex = 'roleAttributes';

/** Above this share of the table in candidates, one walk of the table matching each row is cheaper than reading the
 * index and sorting (at 1M identities, 143k candidates: 234 ms through the index, a walk ~60 ms). */
const WALK_SHARE = 1 / 8;

/** The rows any of `selectors` selects, each once, in id order. */
export function rowsSelected<T extends Row & RoleHolder>(table: EntityTable<T>, selectors: Iterable<RoleSelector>): T[] {
  const live = [...selectors].filter((selector) => selector.roles.length > 0);
  if (live.some((selector) => selector.roles.includes(allRole))) return table.all();
  const plans = live.map((selector) => ({ selector, ...candidatePlan(table, selector) }));
  const candidates = plans.reduce((sum, plan) => sum + plan.count, 0);
  const matchers = live.map(matcherOf);
  if (candidates > table.size * WALK_SHARE) {
    const walked: T[] = [];
    table.eachRow((row) => {
      for (const matches of matchers) {
        if (matches(row)) {
          walked.push(row);
          return;
        }
      }
    });
    return walked;
  }
  const selected = new Set<T>();
  plans.forEach((plan, i) => {
    for (const role of plan.roles) {
      for (const row of rowsOfRole(table, role)) {
        if (matchers[i]!(row)) selected.add(row);
      }
    }
  });
  return [...selected].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** rolesMatch for one selector without `#all`, its roles split once: per row it allocates nothing (a walk of 1M
 * identities through rolesMatch, which slices each role per row, took ~0.8 s). */
function matcherOf(selector: RoleSelector): (row: RoleHolder) => boolean {
  const ids = selector.roles.filter((role) => role.startsWith('@')).map((role) => role.slice(1));
  const attributes = selector.roles.filter((role) => !role.startsWith('@')).map((role) => role.slice(1));
  const all = selector.semantic === 'AllOf';
  return (row) => {
    for (const id of ids) if ((id === row.id) !== all) return !all;
    for (const attribute of attributes) if (row.roleAttributes.includes(attribute) !== all) return !all;
    return all;
  };
}

/** The roles whose rows hold every row a selector selects (AnyOf: all its roles; AllOf: its rarest), and how many. */
function candidatePlan<T extends Row & RoleHolder>(table: EntityTable<T>, selector: RoleSelector): { roles: readonly string[]; count: number } {
  const counts = selector.roles.map((role) => (role.startsWith('@') ? (table.get(role.slice(1)) ? 1 : 0) : table.countHolding(roleAttributeIndex, role.slice(1))));
  if (selector.semantic === 'AnyOf') return { roles: selector.roles, count: counts.reduce((sum, count) => sum + count, 0) };
  let rarest = 0;
  for (let i = 1; i < counts.length; i++) if (counts[i]! < counts[rarest]!) rarest = i;
  return { roles: [selector.roles[rarest]!], count: counts[rarest]! };
}

function rowsOfRole<T extends Row & RoleHolder>(table: EntityTable<T>, role: string): T[] {
  if (role.startsWith('@')) {
    const row = table.get(role.slice(1));
    return row ? [row] : [];
  }
  return table.findHolding(roleAttributeIndex, role.slice(1));
}
