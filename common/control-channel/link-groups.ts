// Link groups: a dialer dials only the link listeners that share at least one group with it. A listener or dialer
// written without groups is in the group `default` (OpenZiti's rule, and the spec's default `[default]`); the
// config parser already fills that in for this router, and the same rule applies to what other routers advertise
// (an empty or missing list from the controller means `[default]`). Pure.

export const defaultLinkGroup = 'default';

export function effectiveGroups(groups: readonly string[] | undefined): readonly string[] {
  return groups === undefined || groups.length === 0 ? [defaultLinkGroup] : groups;
}

export function sharesGroup(dialerGroups: readonly string[] | undefined, listenerGroups: readonly string[] | undefined): boolean {
  const listener = new Set(effectiveGroups(listenerGroups));
  return effectiveGroups(dialerGroups).some((group) => listener.has(group));
}
