import type { Redis } from 'ioredis';
import { HttpError } from './errors.js';

/**
 * Requests per caller per minute, counted in Redis so the limit holds across API instances
 * (a fixed one-minute window per caller). `limit` 0 disables it. When Redis is unreachable the
 * request is let through: availability wins over the limit.
 */
export function createRateLimiter(redis: Redis, prefix: string, limit: number) {
  return async function check(caller: string): Promise<{ remaining: number; reset: number } | null> {
    if (limit <= 0) return null;
    const window = Math.floor(Date.now() / 60_000);
    const key = `${prefix}:ratelimit:${caller}:${window}`;
    let count: number;
    try {
      const [[, n]] = (await redis.multi().incr(key).expire(key, 120).exec()) as [[unknown, number]];
      count = n;
    } catch {
      return null;
    }
    const reset = (window + 1) * 60 - Math.floor(Date.now() / 1000);
    const remaining = Math.max(0, limit - count);
    if (count > limit) {
      throw new HttpError(429, `Rate limit of ${limit} requests per minute exceeded; retry in ${reset} s`, {
        ...rateLimitHeaders(limit, remaining, reset),
        'retry-after': String(reset),
      });
    }
    return { remaining, reset };
  };
}

/** The de-facto standard trio (GitHub, GitLab, ...): the limit, what is left, seconds until reset. */
export function rateLimitHeaders(limit: number, remaining: number, reset: number): Record<string, string> {
  return { 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': String(reset) };
}
