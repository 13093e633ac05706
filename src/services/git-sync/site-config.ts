/**
 * Whole sites from docs.yaml (issue 27, item 4): make a site's structure match a parsed docs.yaml
 * (src/git/format/docs-yaml.ts), and give back the config its current structure says (for writing
 * docs.yaml back after the structure changed through the API).
 *
 * Identity. Every section, section group and site space made from the file keeps the file's `key`
 * (`git_key`): a later sync finds it by key, whatever its title, path or directory became. A site
 * whose structure was made through the API (no keys yet) is adopted on its first sync: a section by
 * its path, a group by its title, a site space by its space within its section.
 *
 * Spaces. Each `content.directory` is shown by one space of the organization: the space a site space
 * of that key already shows (a key keeps its space when its directory moves), else the one the
 * caller's `spaceForDirectory` gives (an existing space synced from that directory, or a new one);
 * the list comes back so the caller syncs each space from its directory. A language variant
 * (`directory: null` with a `language`) is the translation of its section's default space into that
 * language (src/services/translations.ts): made when missing, with its result space created at once
 * (a copy of the source until its first run translates it), so the variant shows from the first
 * sync; `refreshLanguageVariants` starts the runs that keep it up to date after the source changed.
 *
 * Removal. An entry gone from the file is gone from the site; its space stays. Applying the same
 * config again writes nothing (each change is compared first), so the site's version does not move.
 */

import type { AppContext } from '../../context.js';
import { withTx } from '../../db/pool.js';
import { bumpSiteVersion, getSite, lockSiteStructure } from '../../db/repos/sites.js';
import { putSiteGitConfig } from '../../db/repos/site-git-configs.js';
import { notFound } from '../../core/errors.js';
import { enqueue } from '../operations.js';
import type { ApplySiteConfigInput, ApplySiteConfigResult } from './site-config-types.js';
import { resolveSpaces } from './site-variants.js';
import { applyStructure, type Tx } from './site-structure.js';

export type { AppliedSiteSpace, AppliedVariant, ApplySiteConfigInput, ApplySiteConfigResult } from './site-config-types.js';
export { refreshLanguageVariants } from './site-variants.js';
export { siteConfigOf } from './site-config-back.js';

/**
 * Makes the site match `config` (see the file's header). Throws not-found for an unknown site and
 * invalid for a config the site cannot take (a space of another organization, a bad condition, one
 * space twice in a section); entries it has to leave out are named in `warnings`.
 */
export async function applySiteConfig(app: AppContext, input: ApplySiteConfigInput): Promise<ApplySiteConfigResult> {
  const site = await getSite(app.db, input.siteId);
  if (!site) throw notFound(`Site "${input.siteId}" not found`);
  const { config } = input;
  const resolved = await resolveSpaces(app, site.organization_id, site.id, config, input);
  for (const op of resolved.toEnqueue) await enqueue(app, op);
  const { changed, siteSpaceId } = await withTx(app.db, async (c) => {
    await lockSiteStructure(c, site.id);
    const tx: Tx = { c, siteId: site.id, changed: false };
    const ids = await applyStructure(tx, config, resolved.spaceOf);
    if (tx.changed) await bumpSiteVersion(c, site.id);
    await putSiteGitConfig(c, site.id, JSON.stringify(config));
    return { changed: tx.changed, siteSpaceId: ids };
  });
  return {
    changed,
    spaces: resolved.spaces.map((s) => ({ ...s, siteSpaceId: siteSpaceId.get(s.key)! })),
    variants: resolved.variants.map((v) => ({ ...v, siteSpaceId: siteSpaceId.get(v.key)! })),
    warnings: resolved.warnings,
  };
}
