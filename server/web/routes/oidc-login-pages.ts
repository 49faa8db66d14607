// The login pages a browser sees during an OIDC login (an admin console's PKCE login, say): a username and password
// form, and a TOTP form when the login owes a code. Plain HTML that posts to the same login steps the SDKs call;
// every value written into a page is escaped, and the pages load nothing from anywhere.

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => escapes[character]!);
}

/** True when the client would rather have HTML than JSON (a browser): `text/html` accepted and JSON not preferred. */
export function wantsHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = accept.split(',').map((part) => part.split(';')[0]!.trim().toLowerCase());
  const html = types.indexOf('text/html');
  const json = types.findIndex((type) => type === 'application/json');
  return html >= 0 && (json < 0 || html < json);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:22rem;margin:4rem auto;padding:0 1rem}label{display:block;margin:.8rem 0 .2rem}input{width:100%;padding:.4rem;box-sizing:border-box}button{margin-top:1rem;padding:.5rem 1rem}.error{color:#b00020}</style>
</head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

export function passwordPage(authRequestId: string, error?: string): string {
  return page(
    'Sign in to edgeward',
    `${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}<form method="post" action="/oidc/login/password">
<input type="hidden" name="id" value="${escapeHtml(authRequestId)}">
<label for="username">Username</label><input id="username" name="username" autocomplete="username" required maxlength="100">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required maxlength="100">
<button type="submit">Sign in</button></form>`,
  );
}

export function totpPage(authRequestId: string, error?: string): string {
  return page(
    'Enter your authentication code',
    `${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}<form method="post" action="/oidc/login/totp">
<input type="hidden" name="id" value="${escapeHtml(authRequestId)}">
<label for="code">Code from your authenticator app (or a recovery code)</label><input id="code" name="code" autocomplete="one-time-code" inputmode="numeric" required maxlength="13">
<button type="submit">Verify</button></form>`,
  );
}
