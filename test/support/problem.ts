import type { ApiResponse } from './test-app';

/** `application/problem+json`, optionally with a charset, and nothing else (API.md §7). */
export const PROBLEM_CONTENT_TYPE = /^application\/problem\+json(;\s*charset=utf-8)?$/i;

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: string;
  requestId: string;
  errors?: { field: string; message: string }[];
}

/**
 * Asserts that `response` is the RFC 9457 problem of API.md §7 for `code`: status, media
 * type, every member, `type` an absolute link to the code's page, `requestId` equal to the
 * `X-Request-Id` header. Returns the body for further assertions.
 */
export function expectProblem(response: ApiResponse, status: number, code: string): ProblemBody {
  // status and code first, together, so a failure shows both at once
  expect({
    status: response.status,
    code: (response.body as ProblemBody | undefined)?.code,
  }).toEqual({ status, code });
  expect(response.headers.get('content-type')).toMatch(PROBLEM_CONTENT_TYPE);
  const body = response.body as ProblemBody;
  expect(body).toEqual(
    expect.objectContaining({
      type: expect.stringMatching(new RegExp(`^https?://[^/\\s]+/docs/errors/${code}$`)),
      title: expect.any(String),
      status,
      detail: expect.any(String),
      instance: expect.stringMatching(/^\//),
      code,
      requestId: response.headers.get('x-request-id'),
    }),
  );
  expect(body.title.length).toBeGreaterThan(0);
  expect(body.detail.length).toBeGreaterThan(0);
  return body;
}

/** The `field`s a problem's `errors` names. */
export const fieldsOf = (problem: ProblemBody): string[] =>
  (problem.errors ?? []).map((e) => e.field);
