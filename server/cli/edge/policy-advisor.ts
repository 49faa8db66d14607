// `edgeward edge policy-advisor identities|services`: for each identity and service, what the Management API's
// policy advice says, in `ziti edge policy-advisor`'s lines: `OKAY : alice (2) -> web (2) Common Routers: (1/2)
// Dial: Y Bind: N`, or `ERROR: ...` followed by what to adjust. The verdict is pure (adviceLines); the walk over
// identities and services asks the API.

/** The Management API's `policyAdvice`, the fields the lines use. */
export interface Advice {
  readonly identity: { readonly name: string };
  readonly service: { readonly name: string };
  readonly isDialAllowed: boolean;
  readonly isBindAllowed: boolean;
  readonly identityRouterCount: number;
  readonly serviceRouterCount: number;
  readonly commonRouters: ReadonlyArray<{ readonly isOnline: boolean }>;
}

export const noServicesForIdentity = 'Identity does not have access to any services. Adjust service policies.';
export const noIdentitiesForService = 'Service is not accessible by any identities. Adjust service policies.';

/** What is wrong with one identity-service pair; none when it can be used. */
export function adviceProblems(advice: Advice): string[] {
  const problems: string[] = [];
  if (!advice.isDialAllowed && !advice.isBindAllowed) problems.push('Identity does not have access to service. Adjust service policies.');
  if (advice.identityRouterCount < 1) problems.push('Identity has no edge routers assigned. Adjust edge router policies.');
  if (advice.serviceRouterCount < 1) problems.push('Service has no edge routers assigned. Adjust service edge router policies.');
  if (advice.identityRouterCount > 0 && advice.serviceRouterCount > 0) {
    if (advice.commonRouters.length < 1) problems.push('Identity and services have no edge routers in common. Adjust edge router policies and/or service edge router policies.');
    else if (!advice.commonRouters.some((router) => router.isOnline)) {
      problems.push('Common edge routers are all off-line. Bring routers back on-line or adjust edge router policies and/or service edge router policies to increase common router pool.');
    }
  }
  return problems;
}

/** The entry for one pair: its status line and, when in error, one `  - ` line per problem; nothing when `quiet` and it is OKAY. */
export function adviceLines(advice: Advice, quiet: boolean): string {
  const problems = adviceProblems(advice);
  if (quiet && problems.length === 0) return '';
  const online = advice.commonRouters.filter((router) => router.isOnline).length;
  const yn = (value: boolean) => (value ? 'Y' : 'N');
  const status = problems.length === 0 ? 'OKAY ' : 'ERROR';
  const line = `${status}: ${advice.identity.name} (${advice.identityRouterCount}) -> ${advice.service.name} (${advice.serviceRouterCount}) Common Routers: (${online}/${advice.commonRouters.length}) Dial: ${yn(advice.isDialAllowed)} Bind: ${yn(advice.isBindAllowed)}`;
  return [line, ...problems.map((problem) => `  - ${problem}`)].join('\n') + '\n\n';
}

/** An identity with no service (or a service with no identity): always an error. */
export function unrelatedLines(name: string, problem: string): string {
  return `ERROR: ${name}\n  - ${problem}\n\n`;
}
