// An OTLP/HTTP endpoint as the controller takes it, from ctrl.yml (`telemetry.otlp.endpoint`) or the standard
// OTEL_EXPORTER_OTLP_* variables: an http(s) URL with a host and no credentials, query or fragment. Pure.

/** Why `text` is not a usable endpoint, or undefined when it is. */
export function otlpEndpointProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an http:// or https:// URL such as http://127.0.0.1:4318';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `must be an http:// or https:// URL, not ${url.protocol}`;
  if (url.hostname === '') return 'must name a host';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials; send them as headers';
  if (url.search !== '' || url.hash !== '') return 'must not have a query or fragment';
  return undefined;
}

/** The traces URL under a base endpoint, as the OTLP specification builds it from OTEL_EXPORTER_OTLP_ENDPOINT. */
export function tracesUrl(base: string): string {
  return `${base.endsWith('/') ? base : `${base}/`}v1/traces`;
}
