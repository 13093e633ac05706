import type { TemplateDef } from '../types.js';

export const productDocs: TemplateDef = {
  id: 'product-docs',
  title: 'Product documentation',
  subtitle: 'Introduction, getting started, guides, reference and FAQ for a product',
  emoji: '📘',
  features: ['Getting started with quickstart and installation', 'Guide skeleton', 'Configuration and CLI reference tables', 'FAQ'],
  slots: {
    logo: { usage: 'image', description: 'Product logo shown at the top of the Introduction page' },
    cover: { usage: 'cover', description: 'Cover image of the Introduction page' },
  },
  dir: new URL('./', import.meta.url),
  pages: [
    {
      key: 'introduction',
      title: 'Introduction',
      emoji: '👋',
      description: 'What the product is and where to start',
      file: 'introduction.md',
      cover: 'cover',
    },
    {
      key: 'getting-started',
      title: 'Getting started',
      emoji: '🚀',
      description: 'From zero to a working setup',
      file: 'getting-started.md',
      children: [
        { key: 'quickstart', title: 'Quickstart', description: 'A first project in five minutes', file: 'quickstart.md' },
        {
          key: 'installation',
          title: 'Installation',
          description: 'Install and configure on your own infrastructure',
          file: 'installation.md',
        },
      ],
    },
    { key: 'guides', title: 'Guides', emoji: '📖', description: 'Task-oriented walkthroughs', file: 'guides.md' },
    { key: 'reference', title: 'Reference', emoji: '📚', description: 'Settings, commands and limits', file: 'reference.md' },
    { key: 'faq', title: 'FAQ', emoji: '❓', description: 'Answers to common questions', file: 'faq.md' },
  ],
};
