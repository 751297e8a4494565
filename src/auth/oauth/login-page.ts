import { escapeHtml } from '../../docs/html-page';

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;background:#f6f6f6;color:#222;margin:0}
main{max-width:22rem;margin:4rem auto;padding:1.5rem 2rem;background:#fff;border:1px solid #ddd;border-radius:6px}
h1{font-size:1.4rem;margin:0 0 1rem}label{display:block;margin:.75rem 0 .25rem}
input[type=email],input[type=password]{width:100%;box-sizing:border-box;padding:.5rem;font:inherit;border:1px solid #bbb;border-radius:4px}
button{margin-top:1.25rem;width:100%;padding:.6rem;font:inherit;border:0;border-radius:4px;background:#0b5cad;color:#fff;cursor:pointer}
.error{color:#a40000}.client{color:#555;font-size:.9rem}`;

/** A self-contained page: no script, font or style from another host (API.md §12). */
function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>`;
}

export interface LoginForm {
  /** where the form posts: the interaction's login URL */
  action: string;
  uid: string;
  clientName: string;
  email?: string;
  error?: string;
}

/**
 * The sign-in form of the built-in authorization server (API.md §2): inputs `email` and
 * `password`. It is bound to one interaction: the URL carries the interaction's id, and
 * the interaction cookie (SameSite=Lax, set by oidc-provider, path-scoped to this page)
 * must come with the post, which a form on another site cannot send.
 */
export function loginPage(form: LoginForm): string {
  const error = form.error ? `<p class="error" role="alert">${escapeHtml(form.error)}</p>` : '';
  return page(
    'Sign in',
    `<h1>Sign in</h1>
<p class="client">to continue to ${escapeHtml(form.clientName)}</p>${error}
<form method="post" action="${escapeHtml(form.action)}" autocomplete="on">
<input type="hidden" name="uid" value="${escapeHtml(form.uid)}">
<label for="email">Email</label>
<input id="email" name="email" type="email" required maxlength="254" autofocus value="${escapeHtml(form.email ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" required maxlength="1024">
<button type="submit">Sign in</button>
</form>`,
  );
}

/** What the server shows when an authorization request or interaction cannot go on. */
export function errorPage(error: string, description: string | undefined): string {
  return page(
    'Sign-in problem',
    `<h1>Sign-in cannot continue</h1><p><code>${escapeHtml(error)}</code></p>${
      description ? `<p>${escapeHtml(description)}</p>` : ''
    }<p>Go back to the application and start again.</p>`,
  );
}
