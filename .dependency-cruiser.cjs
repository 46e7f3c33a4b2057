/**
 * The layer rules of the README's code map, checked in CI (`npm run lint`):
 *   bin -> facade -> routers -> src (config, db, entities, stores, domain modules)
 * Imports only point down; nothing imports in a cycle. The browser widget (widget/) stands
 * beside the server: it takes only types from the server (the wire contract), and the server
 * takes only its bundler (widget/build.ts) and script table (widget/compat/scripts.ts).
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules import each other in a cycle at run time; split out what both need.',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'src-not-to-routers-or-facade',
      severity: 'error',
      comment: 'src/ is the domain: it knows nothing of tRPC procedures or of Koa.',
      from: { path: '^src/' },
      to: { path: '^(routers|facade|bin)/' },
    },
    {
      name: 'routers-not-to-facade',
      severity: 'error',
      comment: 'Procedures are transport-neutral; the Koa facade wraps them, not the other way round.',
      from: { path: '^routers/' },
      to: { path: '^(facade|bin)/' },
    },
    {
      name: 'facade-not-to-bin',
      severity: 'error',
      comment: 'The entry point starts the app; nothing imports the entry point.',
      from: { path: '^(facade|routers|src|migrations)/' },
      to: { path: '^bin/' },
    },
    {
      name: 'migrations-only-to-mikro-orm',
      severity: 'error',
      comment: 'Migrations are frozen SQL; they must not change when the code does.',
      from: { path: '^migrations/' },
      to: { path: '^(src|routers|facade)/' },
    },
    {
      name: 'not-to-test',
      severity: 'error',
      comment: 'Shipped code never imports test code.',
      from: { path: '^(src|routers|facade|bin|migrations|widget|console)/' },
      to: { path: '^test/' },
    },
    {
      name: 'widget-is-browser-code',
      severity: 'error',
      comment: 'The widget runs in browsers: from the server it may import types only (src/captcha/wire.ts).',
      from: { path: '^widget/', pathNot: '^widget/build\\.ts$' },
      to: { path: '^(src|routers|facade|bin|migrations)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'console-is-browser-code',
      severity: 'error',
      comment: 'The console runs in browsers: from the server it may import types only (the typed client router).',
      from: { path: '^console/' },
      to: { path: '^(src|routers|facade|bin|migrations|widget)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'server-not-to-console',
      severity: 'error',
      comment:
        'The server serves the console as built bundles (widget/build.ts lists them); it never imports its sources.',
      from: { path: '^(src|routers|facade|bin|migrations|widget)/' },
      to: { path: '^console/' },
    },
    {
      name: 'server-not-to-widget-sources',
      severity: 'error',
      comment: 'The server serves the widget as built bundles; it imports only the bundler and the script table.',
      from: { path: '^(src|routers|facade|bin|migrations)/' },
      to: { path: '^widget/', pathNot: '^widget/(build|compat/scripts)\\.ts$' },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|data|coverage|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.cjs', '.mjs', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
