/**
 * A minimal browser for the authorization server's HTML pages: cookies, redirects taken
 * one at a time, and the sign-in form read from the page.
 */

/** Cookies by name, as a browser would send them back to this one host. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** GET or POST without following redirects, keeping cookies; `headers` go with it. */
export async function browse(
  jar: CookieJar,
  url: string,
  form?: URLSearchParams,
  headers: Record<string, string> = {},
): Promise<Response> {
  const response = await fetch(url, {
    method: form ? 'POST' : 'GET',
    redirect: 'manual',
    headers: {
      ...headers,
      Cookie: jar.header(),
      ...(form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
    },
    body: form?.toString(),
  });
  jar.store(response);
  return response;
}

/** The sign-in form of a page: its action and its fields (hidden ones with their values). */
export function parseForm(html: string, base: string): { action: string; fields: URLSearchParams } {
  const form = /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (!form) throw new Error(`no form in the page:\n${html}`);
  const fields = new URLSearchParams();
  for (const [input] of form[2].matchAll(/<input[^>]*>/gi)) {
    const name = /name="([^"]*)"/.exec(input)?.[1];
    const value = /value="([^"]*)"/.exec(input)?.[1] ?? '';
    if (name) fields.set(name, value.replace(/&amp;/g, '&').replace(/&quot;/g, '"'));
  }
  return { action: new URL(form[1].replace(/&amp;/g, '&'), base).href, fields };
}
