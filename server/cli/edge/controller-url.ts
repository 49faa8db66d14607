// The address `edge login` is given, as `ziti edge login` takes it: the controller's base (`https://host:1280`,
// or `host:1280` with https assumed) or the Management API's own URL (`.../edge/management/v1`). Both become the
// Management API's base URL, with no trailing slash. Pure.
import { EdgeUsageError } from './edge-args.ts';

export const managementPath = '/edge/management/v1';

export function managementBaseUrl(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') throw new EdgeUsageError('the controller URL is empty');
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new EdgeUsageError(`'${text}' is not a URL: give the controller's address, such as https://127.0.0.1:1280`);
  }
  if (url.protocol !== 'https:') throw new EdgeUsageError(`'${text}' is not an https URL: the controller's APIs are served over HTTPS only`);
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new EdgeUsageError(`'${text}' carries a query, fragment or credentials: give only the controller's address`);
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (path !== '' && path !== managementPath) {
    throw new EdgeUsageError(`'${text}' is not the controller's address nor its ${managementPath} URL`);
  }
  return `${url.origin}${managementPath}`;
}

