// The visitor hash of site insights: stable within a UTC day, different the next day, per site and
// per secret, and never containing the address.
import { describe, expect, it } from 'vitest';
import { dailyKey, sessionHash, utcDay, visitorHash } from '../../../src/sites/insights-privacy.js';

const SECRET = 'a server secret of the test';
const UA = 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0';

describe('insights visitor hash', () => {
  it('is the same for one visitor all day, and another one the next day', () => {
    const morning = new Date('2026-03-01T00:00:01Z');
    const evening = new Date('2026-03-01T23:59:59Z');
    const nextDay = new Date('2026-03-02T00:00:00Z');
    const a = visitorHash(SECRET, 'site1', morning, '198.51.100.7', UA);
    expect(visitorHash(SECRET, 'site1', evening, '198.51.100.7', UA)).toBe(a);
    expect(visitorHash(SECRET, 'site1', nextDay, '198.51.100.7', UA)).not.toBe(a);
    expect(utcDay(evening)).toBe('2026-03-01');
  });

  it('tells visitors apart, and the same visitor on two sites or under two secrets gets unrelated hashes', () => {
    const at = new Date('2026-03-01T12:00:00Z');
    const a = visitorHash(SECRET, 'site1', at, '198.51.100.7', UA);
    expect(visitorHash(SECRET, 'site1', at, '198.51.100.8', UA)).not.toBe(a);
    expect(visitorHash(SECRET, 'site1', at, '198.51.100.7', `${UA} Edg/120`)).not.toBe(a);
    expect(visitorHash(SECRET, 'site2', at, '198.51.100.7', UA)).not.toBe(a);
    expect(visitorHash('another secret', 'site1', at, '198.51.100.7', UA)).not.toBe(a);
  });

  it('holds nothing of the address: a fixed-length digest', () => {
    const h = visitorHash(SECRET, 'site1', new Date(), '198.51.100.7', UA);
    expect(h).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(h).not.toContain('198');
  });

  it('derives a 32-byte key per site and day (HKDF), never the secret itself', () => {
    const k = dailyKey(SECRET, 'site1', '2026-03-01');
    expect(k).toHaveLength(32);
    expect(k.equals(dailyKey(SECRET, 'site1', '2026-03-02'))).toBe(false);
    expect(k.toString('utf8')).not.toContain(SECRET);
  });

  it('hashes sessions per visitor under the same key', () => {
    const at = new Date('2026-03-01T12:00:00Z');
    const v = visitorHash(SECRET, 'site1', at, '198.51.100.7', UA);
    expect(sessionHash(SECRET, 'site1', at, 'tab-1', v)).toBe(sessionHash(SECRET, 'site1', at, 'tab-1', v));
    expect(sessionHash(SECRET, 'site1', at, 'tab-2', v)).not.toBe(sessionHash(SECRET, 'site1', at, 'tab-1', v));
  });
});
