// Raw values of a URL query parameter, as Koa and node:querystring hand them over.

export type RawQueryValue = string | readonly string[] | undefined;

/** The first value of a repeated parameter, as Go's `url.Values.Get` reads it. */
export function firstValue(raw: RawQueryValue): string | undefined {
  return typeof raw === 'string' || raw === undefined ? raw : raw[0];
}
