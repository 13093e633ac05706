// Fake of src/db/repos/site-external-links.ts for the structure's unit tests: their sites have no
// external links (links in the structure answers are tested end to end in
// test/integration/sites/structure-links.test.ts).
import type * as real from '../../../../src/db/repos/site-external-links.js';

export const listExternalLinks: typeof real.listExternalLinks = async () => [];
