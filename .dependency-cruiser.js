/**
 * The layers of src/ (docs/architecture.md, "Layers"), checked on every CI run by
 * `npm run lint:layers`: an import from a lower layer to a higher one, a cycle between files, or a
 * migration imported by runtime code fails it, naming the two files. When it refuses an import,
 * move the thing to its layer.
 */

/** From the ground up; a folder may import only its own layer and the layers below it. */
const LAYERS = [
  // The ground: each of these imports nothing of the service (rules below).
  ['config'],
  ['common'],
  // Infrastructure.
  ['metrics'],
  ['queue'],
  ['database'],
  ['analytics'],
  ['enrichment'],
  ['crawler'],
  ['mail'],
  // The one way out for anything that happened: features publish, sinks subscribe.
  ['events'],
  // Features, each on those before it.
  ['subscriptions'],
  ['connected-domains'],
  ['projects'],
  ['rate-limit'],
  ['domains'],
  ['links'],
  ['clicks'],
  ['redirects'],
  ['stats'],
  ['conversions'],
  ['export'],
  ['privacy'],
  // Sinks of events.
  ['webhooks', 'live-feed'],
  // The application: health, the CLI and the console's files; src/*.ts composes them all.
  ['health', 'cli', 'web-console'],
];

const under = (folders) => `^src/(${folders.join('|')})/`;
const ROOT = '^src/[^/]+\\.ts$';

const upward = LAYERS.slice(0, -1).map((folders, i) => ({
  name: `no-upward-from-${folders.join('-')}`,
  comment: `${folders.join(', ')} may import only its own layer and those below it (.dependency-cruiser.js LAYERS): move the thing to its layer`,
  severity: 'error',
  from: { path: under(folders) },
  to: { path: [under(LAYERS.slice(i + 1).flat()), ROOT] },
}));

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'ground-imports-nothing',
      comment: 'config and common depend on nothing of the service, not even on each other',
      severity: 'error',
      from: { path: '^src/(config|common)/' },
      to: { path: '^src/', pathNot: ['^src/$1/'] },
    },
    {
      name: 'no-cycles',
      comment: 'Files that import each other, directly or through others',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-migration-in-runtime',
      comment:
        'Runtime code never imports a migration: what both need lives in the code, and a spec checks that the migration agrees',
      severity: 'error',
      from: {
        path: '^src/',
        pathNot: ['^src/database/migrations/', '^src/database/data-source\\.ts$'],
      },
      to: { path: '^src/database/migrations/' },
    },
    {
      name: 'no-unknown-folder',
      comment: 'Every folder of src/ belongs to a layer: add a new one to LAYERS',
      severity: 'error',
      from: { path: '^src/[^/]+/', pathNot: [under(LAYERS.flat())] },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Specs test a file from beside it; they may import what the layer rules keep apart.
    exclude: { path: '\\.spec\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
