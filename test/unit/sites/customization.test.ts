import { describe, expect, it } from 'vitest';
import {
  applyOverridePatch,
  customizationInput,
  defaultCustomization,
  normalizeCustomization,
  withOverrides,
} from '../../../src/sites/customization.js';
import { assertMatchesSchema } from '../../helpers/spec.js';

describe('site customization', () => {
  it('has defaults valid against the description', () => {
    assertMatchesSchema('SiteCustomizationSettings', defaultCustomization());
  });

  it('lays a PUT over the defaults and keeps both page-action shapes in step', () => {
    const input = customizationInput.parse({
      styling: { font: 'Lato', sidebar: { list: 'pill' } },
      favicon: { emoji: '1f4da' },
      pageActions: { items: ['pdf', 'markdown'] },
      footer: { groups: [{ title: 'More', links: [{ title: 'Blog', to: { kind: 'url', url: 'https://example.com/blog' } }] }] },
    });
    const s = normalizeCustomization(input);
    assertMatchesSchema('SiteCustomizationSettings', s);
    expect(s.styling.sidebar).toEqual({ background: 'default', list: 'pill' });
    expect(s.pageActions).toEqual({ items: ['pdf', 'markdown'], externalAI: false, markdown: true });
    expect(s.pdf).toEqual({ enabled: true });
    const legacy = normalizeCustomization(customizationInput.parse({ pageActions: { markdown: false }, git: { showEditLink: true } }));
    expect(legacy.pageActions.items).toEqual(['pdf', 'git']);
  });

  it('merges site-space overrides and clears them with null', () => {
    const site = normalizeCustomization({ styling: { corners: 'straight' } });
    let over = applyOverridePatch(null, { styling: { theme: 'bold' }, pagination: { enabled: false } });
    expect(withOverrides(site, over).styling).toMatchObject({ theme: 'bold', corners: 'straight' });
    over = applyOverridePatch(over, { styling: null });
    expect(withOverrides(site, over).styling.theme).toBe('clean');
    expect(withOverrides(site, over).pagination.enabled).toBe(false);
    assertMatchesSchema('SiteCustomizationSettings', withOverrides(site, over));
  });

  it('refuses what the description refuses', () => {
    const bad = [
      { styling: { primaryColor: { light: 'blue', dark: '#000' } } },
      { styling: { theme: 'neon' } },
      { announcement: { enabled: true, message: 'x', style: 'info' } },
      { socialAccounts: [{ platform: 'myspace', handle: 'me', display: { footer: true, header: false } }] },
      { favicon: { icon: { light: 'not a url', dark: 'https://x.test/i.png' } } },
      { unknown: true },
    ];
    for (const b of bad) expect(customizationInput.safeParse(b).success, JSON.stringify(b)).toBe(false);
  });
});
