import { describe, expect, it } from 'vitest';
import {
  conflict,
  DomainError,
  forbidden,
  gone,
  invalid,
  limitExceeded,
  notFound,
  unauthenticated,
  unprocessable,
  upstream,
  unavailable,
} from '../../../src/core/errors.js';
import { errorBody, errorReply, HttpError, STATUS_OF_KIND } from '../../../src/http/errors.js';

describe('domain errors at the HTTP edge', () => {
  it('gives each kind its one status', () => {
    const cases: [DomainError, number][] = [
      [invalid('x'), 400],
      [unauthenticated(), 401],
      [forbidden(), 403],
      [notFound(), 404],
      [conflict('x'), 409],
      [gone('x'), 410],
      [limitExceeded('x'), 413],
      [unprocessable('x'), 422],
      [upstream('x'), 502],
      [unavailable('x', 2), 503],
    ];
    for (const [err, status] of cases) expect(errorReply(err)?.status).toBe(status);
    expect(new Set(Object.values(STATUS_OF_KIND)).size).toBe(Object.keys(STATUS_OF_KIND).length);
  });

  it('asks for a bearer token on 401 and points at a location when the error names one', () => {
    expect(errorReply(unauthenticated())?.headers).toEqual({ 'www-authenticate': 'Bearer' });
    expect(errorReply(unprocessable('failed', { location: 'http://x/op' }))?.headers).toEqual({ location: 'http://x/op' });
    expect(errorReply(notFound('No such space'))).toEqual({ status: 404, message: 'No such space', headers: {} });
    expect(errorReply(unavailable('not built yet', 1.2))?.headers).toEqual({ 'retry-after': '2' });
  });

  it('keeps edge-only errors as they are and knows nothing else', () => {
    expect(errorReply(new HttpError(405, 'no', { allow: 'GET' }))).toEqual({ status: 405, message: 'no', headers: { allow: 'GET' } });
    expect(errorReply(new Error('defect'))).toBeNull();
    expect(errorReply({ code: '23505' })).toBeNull();
    expect(errorBody(404, 'Not found')).toEqual({ error: { code: 404, message: 'Not found' } });
  });
});
