/** Small helpers over fetch for tests against the real HTTP stack. */
import { expectConformant } from './openapi-conformance.ts';

export interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function request<T = any>(
  url: string,
  init: RequestInit & { json?: unknown; form?: Record<string, string>; key?: string } = {},
): Promise<JsonResponse<T>> {
  const headers = new Headers(init.headers);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('Content-Type', 'application/json');
    body = JSON.stringify(init.json);
  } else if (init.form) {
    headers.set('Content-Type', 'application/x-www-form-urlencoded');
    body = new URLSearchParams(init.form).toString();
  }
  if (init.key) headers.set('Authorization', `Bearer ${init.key}`);
  const res = await fetch(url, { ...init, headers, body });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON; tests assert on that where it matters
  }
  // Every answer to a documented operation must match the OpenAPI document.
  await expectConformant({
    method: init.method ?? 'GET',
    path: url,
    status: res.status,
    headers: res.headers,
    body: text ? parsed : undefined,
  });
  return { status: res.status, headers: res.headers, body: parsed, text };
}
