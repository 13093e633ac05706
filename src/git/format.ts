// The repository format of git sync (GitBook's "Git Sync" layout), pure: no git, no database.
//
//   parseRepository(files)              repository files → { config, pages, files }
//   generateRepository(pages, files)    page tree → repository files
//   renderPageFile(page)                the text of one page file, to compare with an existing blob
//
// The layout, its conventions and the choices made where GitBook leaves room are described in
// ./format/config.ts (.gitbook.yaml), ./format/summary.ts (SUMMARY.md), ./format/page-file.ts
// (front matter, title heading), ./format/import.ts (folder layout without SUMMARY.md, files) and
// ./format/export.ts (file naming). Every path read is checked not to leave the project directory;
// anything malformed is a RepoFormatError naming the file, line and path at fault.
export { RepoFormatError } from './format/errors.js';
export type { ExportFile, ExportPage, GitBookConfig, ImportedFile, ImportedPage, ParsedRepository } from './format/types.js';
export { parseRepository } from './format/import.js';
export { generateRepository } from './format/export.js';
export { renderPageFile } from './format/page-file.js';
export { contentTypeFor } from './format/content-type.js';
export { CONFIG_FILE, defaultConfig, parseConfig } from './format/config.js';
