// Layer rules of ../shared/DESIGN.md, checked by `npm run lint` (dependency-cruiser). Top to bottom:
//   edges      src/server.ts, src/routes, src/http, src/reader, src/ops, entrypoints, jobs/, workers/
//   use cases  src/services
//   policies   src/policies
//   presenters src/presenters
//   engines    src/content src/git src/search src/render src/import src/translate src/sso src/sites
//   platform   src/queue src/db src/storage src/net src/core src/auth src/util
//              src/config.ts src/log.ts
// src/context.ts is the composition root: it builds the per-process AppContext (pool, blob store,
// job client, the Markdown worker-thread pool of src/render) and may import platform and engines,
// never services or edges.
// An import may only point down (or sideways inside one folder); nothing below reaches up; no cycles.
const EDGE = '^(src/(server|api|main|cli|supervisor|lifecycle)\\.ts$|src/(routes|http|reader|ops)/|jobs/|workers/)';
const SERVICES = '^src/services/';
const POLICIES = '^src/policies/';
const PRESENTERS = '^src/presenters/';
const ENGINES = '^src/(content|git|search|render|import|translate|sso|sites|mail)/';
const PLATFORM = '^src/(queue|db|storage|net|core|auth|util)/|^src/(config|log)\\.ts$';
const ROOT = '^src/context\\.ts$';

const above = (...layers) => layers.join('|');

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'No import cycles, type-only ones included.', from: {}, to: { circular: true } },
    {
      name: 'platform-reaches-up',
      severity: 'error',
      comment: 'The platform knows nothing of engines, presenters, policies, services or edges.',
      from: { path: PLATFORM },
      to: { path: above(ENGINES, PRESENTERS, POLICIES, SERVICES, EDGE) },
    },
    {
      name: 'composition-root-reaches-up',
      severity: 'error',
      comment: 'The AppContext builder wires platform and engines; it knows no presenters, policies, services or edges.',
      from: { path: ROOT },
      to: { path: above(PRESENTERS, POLICIES, SERVICES, EDGE) },
    },
    {
      name: 'platform-imports-root-types-only',
      severity: 'error',
      comment: 'Below the composition root, only its AppContext type may be imported.',
      from: { path: PLATFORM },
      to: { path: ROOT, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'engine-reaches-up',
      severity: 'error',
      comment: 'Engines get what they need passed in; they never import presenters, policies, services or edges.',
      from: { path: ENGINES },
      to: { path: above(PRESENTERS, POLICIES, SERVICES, EDGE) },
    },
    {
      name: 'presenter-reaches-up',
      severity: 'error',
      from: { path: PRESENTERS },
      to: { path: above(POLICIES, SERVICES, EDGE) },
    },
    {
      name: 'policy-reaches-up',
      severity: 'error',
      from: { path: POLICIES },
      to: { path: above(SERVICES, EDGE) },
    },
    {
      name: 'service-reaches-up',
      severity: 'error',
      comment: 'Services return domain values: no HTTP (routes, src/http), no jobs or workers.',
      from: { path: SERVICES },
      to: { path: EDGE },
    },
    {
      name: 'routes-and-jobs-apart',
      severity: 'error',
      comment: 'Routes and job processors meet only in services and src/queue.',
      from: { path: '^src/(routes|http|server\\.ts)' },
      to: { path: '^(jobs|workers)/' },
    },
    {
      name: 'jobs-not-http',
      severity: 'error',
      from: { path: '^(jobs|workers)/' },
      to: { path: '^src/(routes|http|server\\.ts)' },
    },
    {
      name: 'no-orphans',
      severity: 'error',
      comment: 'A module nothing imports is dead (entrypoints and declarations excepted).',
      from: {
        orphan: true,
        pathNot: [
          '\\.d\\.ts$',
          '^src/(api|main|cli)\\.ts$',
          '^workers/main\\.ts$',
          '^(test|bench)/',
          '(^|/)\\.[^/]+\\.(js|cjs|mjs|ts)$',
          '^eslint\\.config\\.js$',
          '^vitest\\.config\\.ts$',
        ],
      },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|data|dist|coverage)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
