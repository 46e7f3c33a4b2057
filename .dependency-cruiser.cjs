/**
 * The layer rules of the README's code map, checked in CI (`npm run lint`), with no exceptions:
 *   bin -> facade -> routers -> src (config, db, entities, stores, domain modules)
 *   facade -> views (HTML pages) -> src;  src/entities import nothing of the domain
 * Imports only point down; nothing imports in a cycle. The browser code (widget/, console/)
 * stands beside the server: it takes only types from the server (the wire contract). shared/
 * is data both sides import (the providers' registry, the proof's font), importing nothing.
 *
 * The facade also reaches src/ directly, not through a procedure, in two ways, both meant:
 * - what every layer shares: src/errors.ts (the closed error catalogue the facade maps to
 *   statuses), config, metrics, net/client-key.ts, raw-json.ts, and types;
 * - the HTTP-only flows, which must not be procedures because every procedure is also
 *   reachable at /trpc, outside their limits and cookies: the share pages' password form
 *   (pages.ts, its per-address and per-report attempt limits), the demo's verify form
 *   (widget.ts, in-process so it spends no siteverify budget), the console's session cookie
 *   and CSRF check (console.ts, console-session.ts, api-key-gate.ts), the gateway's forward-auth
 *   check (gateway.ts, app.ts) and siteverify's answer shapes (siteverify.ts).
 * It never reaches the database or the stores but through their types (facade-not-to-persistence).
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
      comment: 'src/ is the domain: it knows nothing of tRPC procedures, of Koa or of HTML pages (views/).',
      from: { path: '^src/' },
      to: { path: '^(routers|facade|bin|views)/' },
    },
    {
      name: 'entities-only-to-entities',
      severity: 'error',
      comment:
        'Entities describe the stored rows, their JSON columns included; the domain imports them, never the reverse.',
      from: { path: '^src/entities/' },
      to: { path: '^(src|routers|facade|views|bin|widget|console)/', pathNot: '^src/entities/' },
    },
    {
      name: 'views-not-to-routers-or-facade',
      severity: 'error',
      comment:
        'views/ renders HTML pages (share page, demo, gateway pages) from domain data: the facade calls them and ' +
        'sends what they return; they know nothing of Koa or of procedures.',
      from: { path: '^views/' },
      to: { path: '^(routers|facade|bin)/' },
    },
    {
      name: 'facade-not-to-persistence',
      severity: 'error',
      comment:
        'The facade takes the database, the stores and the entities as types only: rows are read and written ' +
        'by procedures and domain modules (see the header for what else of src/ it calls).',
      from: { path: '^(facade|views)/' },
      to: { path: '^src/(db|stores|entities)/', dependencyTypesNot: ['type-only'] },
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
      from: { path: '^(facade|routers|views|src|migrations)/' },
      to: { path: '^bin/' },
    },
    {
      name: 'migrations-only-to-mikro-orm',
      severity: 'error',
      comment: 'Migrations are frozen SQL; they must not change when the code does.',
      from: { path: '^migrations/' },
      to: { path: '^(src|routers|facade|views)/' },
    },
    {
      name: 'not-to-test',
      severity: 'error',
      comment: 'Shipped code never imports test code.',
      from: { path: '^(src|routers|facade|views|bin|migrations|widget|console|shared)/' },
      to: { path: '^test/' },
    },
    {
      name: 'widget-is-browser-code',
      severity: 'error',
      comment:
        'The widget runs in browsers: every file in widget/ is bundled for them (src/bundles.ts), and from the ' +
        'server it may import types only (src/captcha/wire.ts).',
      from: { path: '^widget/' },
      to: { path: '^(src|routers|facade|views|bin|migrations)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'console-is-browser-code',
      severity: 'error',
      comment: 'The console runs in browsers: from the server it may import types only (the typed client router).',
      from: { path: '^console/' },
      to: { path: '^(src|routers|facade|views|bin|migrations|widget)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'server-not-to-console',
      severity: 'error',
      comment:
        'The server serves the console as built bundles (src/bundles.ts lists them); it never imports its sources.',
      from: { path: '^(src|routers|facade|views|bin|migrations|widget)/' },
      to: { path: '^console/' },
    },
    {
      name: 'server-not-to-widget-sources',
      severity: 'error',
      comment:
        'The server serves the widget as built bundles and imports none of its modules. src/bundles.ts is the one ' +
        'place bundles come from: the compiled service reads dist/public/, which `npm run build` (scripts/build.ts) ' +
        'fills; under tsx (npm run dev, tests) it bundles the same entries in memory with esbuild, which reads ' +
        'widget/ as files and runs none of it here, so both serve the same bytes. What both sides need to know ' +
        '(the providers, the font) is data in shared/.',
      from: { path: '^(src|routers|facade|views|bin|migrations)/' },
      to: { path: '^widget/' },
    },
    {
      name: 'shared-is-data',
      severity: 'error',
      comment:
        'shared/ is imported by the server and by the browser bundles alike: data and pure functions, importing ' +
        'nothing but shared/ (no Node, no DOM: widget/tsconfig.json checks it without Node types).',
      from: { path: '^shared/' },
      to: { pathNot: '^shared/' },
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
