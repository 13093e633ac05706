import type { TemplateDef } from '../types.js';

export const changelog: TemplateDef = {
  id: 'changelog',
  title: 'Changelog',
  subtitle: 'Release notes with a dated entry format',
  emoji: '🗓️',
  features: ['Dated entries, newest first', 'New / Improved / Fixed / Breaking sections', 'Release note style guide'],
  slots: {
    cover: { usage: 'cover', description: 'Cover image of the Changelog page' },
  },
  dir: new URL('./', import.meta.url),
  pages: [
    {
      key: 'changelog',
      title: 'Changelog',
      emoji: '🗓️',
      description: "What's new, newest first",
      file: 'changelog.md',
      cover: 'cover',
      children: [
        {
          key: 'writing-release-notes',
          title: 'Writing release notes',
          description: 'Entry format and style',
          file: 'writing-release-notes.md',
        },
      ],
    },
  ],
};
