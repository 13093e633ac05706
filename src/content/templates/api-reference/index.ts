import type { TemplateDef } from '../types.js';

export const apiReference: TemplateDef = {
  id: 'api-reference',
  title: 'API reference',
  subtitle: 'Reference documentation for an HTTP API',
  emoji: '🔌',
  features: [
    'Authentication with code samples',
    'Error format and status codes',
    'Cursor pagination',
    'Endpoint reference layout',
    'API changelog',
  ],
  slots: {
    logo: { usage: 'image', description: 'Logo shown at the top of the Overview page' },
    cover: { usage: 'cover', description: 'Cover image of the Overview page' },
  },
  dir: new URL('./', import.meta.url),
  pages: [
    {
      key: 'overview',
      title: 'Overview',
      emoji: '🧭',
      description: 'Base URL, conventions and what the API offers',
      file: 'overview.md',
      cover: 'cover',
    },
    {
      key: 'authentication',
      title: 'Authentication',
      emoji: '🔑',
      description: 'API keys, scopes and how to send them',
      file: 'authentication.md',
    },
    { key: 'errors', title: 'Errors', emoji: '⚠️', description: 'Error format, status codes and retries', file: 'errors.md' },
    { key: 'pagination', title: 'Pagination', emoji: '📄', description: 'Walking through long lists with cursors', file: 'pagination.md' },
    { key: 'endpoints', title: 'Endpoints', emoji: '🛠️', description: 'Every resource and operation', file: 'endpoints.md' },
    { key: 'changelog', title: 'Changelog', emoji: '🗓️', description: 'Changes to the API, newest first', file: 'changelog.md' },
  ],
};
