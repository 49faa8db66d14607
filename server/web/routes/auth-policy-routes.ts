// Management API: /auth-policies. Create and PUT take the whole policy; PATCH takes any part of it (every field
// nullable, null meaning "leave as is") and is merged over the current policy before the same checks.
import type { Middleware } from 'koa';
import type { EdgeServices } from '../../edge/edge-services.ts';
import type { AuthPolicyInput } from '../../edge/auth-policy-service.ts';
import { authPolicyView } from '../views/auth-policy-view.ts';
import type { AuthPolicy } from '../../model/entities.ts';
import { bodyValidator, schemaParts, type JsonSchema } from '../body-schema.ts';
import type { RequestState } from '../koa-state.ts';
import type { ApiRouter } from '../api-router.ts';
import { authPolicyCatalogue } from './catalogues.ts';
import { sendCreated, sendDetail, sendEmpty, sendList, type RouteKit } from './route-kit.ts';

const bool = { type: 'boolean' };
const count = (maximum: number) => ({ type: 'integer', minimum: 0, maximum });

/** The policy schema; `partial` makes every field optional and nullable (PATCH). */
function policySchema(partial: boolean): JsonSchema {
  const object = (properties: Record<string, JsonSchema>): JsonSchema => ({
    type: partial ? ['object', 'null'] : 'object',
    ...(partial ? {} : { required: Object.keys(properties).filter((key) => key !== 'tags') }),
    properties: partial ? Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, nullable(value)])) : properties,
  });
  const root = object({
    name: { type: 'string', minLength: 1, maxLength: 512 },
    tags: schemaParts.tags,
    primary: object({
      cert: object({ allowed: bool, allowExpiredCerts: bool }),
      updb: object({
        allowed: bool,
        minPasswordLength: { type: 'integer', minimum: 5, maximum: 100 },
        requireSpecialChar: bool,
        requireNumberChar: bool,
        requireMixedCase: bool,
        maxAttempts: count(1_000_000),
        lockoutDurationMinutes: count(525_600),
      }),
      extJwt: object({ allowed: bool, allowedSigners: { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 100 } }),
    }),
    secondary: { ...object({ requireTotp: bool, requireExtJwtSigner: { type: ['string', 'null'], minLength: 1 } }), ...(partial ? {} : { required: ['requireTotp'] }) },
  });
  // The body itself is always an object; only its members may be null in a PATCH.
  return { ...root, type: 'object' };
}

function nullable(schema: JsonSchema): JsonSchema {
  const type = schema.type;
  if (Array.isArray(type)) return type.includes('null') ? schema : { ...schema, type: [...type, 'null'] };
  return { ...schema, type: [type, 'null'] };
}

const fullBody = bodyValidator<AuthPolicyInput>(policySchema(false));
const patchBody = bodyValidator<DeepPartial<AuthPolicyInput>>(policySchema(true));

type DeepPartial<T> = { [K in keyof T]?: T[K] extends readonly unknown[] ? T[K] | null : T[K] extends object ? DeepPartial<T[K]> | null : T[K] | null };

/** Fields given in a PATCH replace the current ones; absent or null fields are kept; members the policy does not
 * have (`__proto__` among them) are ignored, as unknown properties are everywhere. */
function merge<T>(current: T, patch: unknown): T {
  if (patch === null || patch === undefined) return current;
  if (typeof current !== 'object' || current === null || Array.isArray(current)) return patch as T;
  const merged: Record<string, unknown> = { ...(current as Record<string, unknown>) };
  for (const [key, value] of Object.entries(patch as Record<string, unknown>)) {
    if (!Object.hasOwn(current, key)) continue;
    if (value === null && key === 'requireExtJwtSigner') merged[key] = null;
    // Tags are one value: a PATCH that names them replaces them all, so a tag can be removed.
    else if (key === 'tags' && value !== null) merged[key] = value;
    else if (value !== null && value !== undefined) merged[key] = merge((current as Record<string, unknown>)[key], value);
  }
  return merged as T;
}

function inputOf(policy: AuthPolicy): AuthPolicyInput {
  return { name: policy.name, tags: policy.tags, primary: policy.primary, secondary: policy.secondary };
}

export function authPolicyRoutes(router: ApiRouter, services: EdgeServices, kit: RouteKit, admin: Middleware<RequestState>): void {
  const { authPolicies } = services;
  // Exactly the policy's own fields: members the schema does not name are not carried into the stored policy.
  const normalise = ({ name, tags, primary: { cert, updb, extJwt }, secondary }: AuthPolicyInput): AuthPolicyInput => ({
    name,
    tags: tags ?? {},
    primary: {
      cert: { allowed: cert.allowed, allowExpiredCerts: cert.allowExpiredCerts },
      updb: {
        allowed: updb.allowed,
        minPasswordLength: updb.minPasswordLength,
        requireSpecialChar: updb.requireSpecialChar,
        requireNumberChar: updb.requireNumberChar,
        requireMixedCase: updb.requireMixedCase,
        maxAttempts: updb.maxAttempts,
        lockoutDurationMinutes: updb.lockoutDurationMinutes,
      },
      extJwt: { allowed: extJwt.allowed, allowedSigners: [...extJwt.allowedSigners] },
    },
    secondary: { requireTotp: secondary.requireTotp, requireExtJwtSigner: secondary.requireExtJwtSigner ?? null },
  });
  router.get('/auth-policies', admin, (ctx) => sendList(ctx, authPolicies.list(), authPolicyCatalogue, authPolicyView));
  router.post('/auth-policies', admin, async (ctx) => {
    const { id } = await authPolicies.create(normalise(await kit.validBody(ctx, fullBody)));
    sendCreated(ctx, id, 'auth-policies');
  });
  router.get('/auth-policies/:id', admin, (ctx) => sendDetail(ctx, authPolicyView(authPolicies.get(ctx.params.id!))));
  router.put('/auth-policies/:id', admin, async (ctx) => {
    authPolicies.get(ctx.params.id!);
    await authPolicies.update(ctx.params.id!, normalise(await kit.validBody(ctx, fullBody)));
    sendEmpty(ctx);
  });
  router.patch('/auth-policies/:id', admin, async (ctx) => {
    const current = authPolicies.get(ctx.params.id!);
    const patch = await kit.validBody(ctx, patchBody, { optional: true });
    await authPolicies.update(ctx.params.id!, normalise(merge(inputOf(current), patch)));
    sendEmpty(ctx);
  });
  router.delete('/auth-policies/:id', admin, async (ctx) => {
    await authPolicies.delete(ctx.params.id!);
    sendEmpty(ctx);
  });
}
