'use client';
// The login form: an administrator of the controllers, checked by the page's server against their management API.

import { useState } from 'react';
import type { FormEvent } from 'react';

export function LoginForm() {
  const [error, setError] = useState<string | null>(null);
  const [mfa, setMfa] = useState(false);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    try {
      const response = await fetch('/api/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: form.get('username'), password: form.get('password'), ...(mfa ? { code: form.get('code') } : {}) }),
      });
      if (response.ok) {
        window.location.assign('/');
        return;
      }
      const body = (await response.json().catch(() => ({}))) as { error?: string; mfaRequired?: boolean };
      if (body.mfaRequired) setMfa(true);
      setError(body.error ?? `The login failed (HTTP ${response.status}).`);
    } catch {
      setError('The status page does not answer.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="page login-page">
      <form className="login" onSubmit={(event) => void submit(event)} aria-describedby="login-help">
        <h1>edgeward status</h1>
        <p id="login-help" className="note">
          Log in as an administrator of the controllers.
        </p>
        <label htmlFor="username">Username</label>
        <input id="username" name="username" autoComplete="username" required autoFocus />
        <label htmlFor="password">Password</label>
        <input id="password" name="password" type="password" autoComplete="current-password" required />
        {mfa ? (
          <>
            <label htmlFor="code">MFA code</label>
            <input id="code" name="code" inputMode="numeric" autoComplete="one-time-code" required />
          </>
        ) : null}
        {error ? (
          <p className="error" role="alert" data-testid="login-error">
            {error}
          </p>
        ) : null}
        <button type="submit" disabled={busy}>
          {busy ? 'Logging in…' : 'Log in'}
        </button>
      </form>
    </main>
  );
}
