// Writes the OpenAPI documents of every API version (API.md §12) to files, for the
// linters of `npm run lint:openapi` and for clients, without a running server: it builds
// the app from dist/ (run `npm run build` first) on an in-memory embedded database, takes
// the documents the app built at boot, and closes it again.
//
//   node scripts/export-openapi.js [out-dir]      (default: openapi/, ignored by git)
//
// The environment shapes the documents as it does the server's: PUBLIC_URL (the servers
// entry), NODE_ENV (its description), API_V1_SUNSET (v1 operations deprecated).
// DATABASE_URL is ignored on purpose: an export never touches a real database.
const { mkdirSync, writeFileSync } = require('node:fs');
const { join, resolve } = require('node:path');

const root = join(__dirname, '..');
const dist = join(root, 'dist', 'src');

function load(module) {
  try {
    return require(join(dist, module));
  } catch (error) {
    if (error && error.code === 'MODULE_NOT_FOUND') {
      console.error(`export-openapi: ${module} is not built; run \`npm run build\` first.`);
      process.exit(1);
    }
    throw error;
  }
}

async function main() {
  const outDir = resolve(process.argv[2] ?? join(root, 'openapi'));
  const { createApp } = load('app.factory.js');
  const { AppConfig } = load('config/app-config.js');
  const { startEmbeddedPostgres } = load('database/embedded-postgres.js');
  const { OpenApiRegistry } = load('docs/openapi/openapi-registry.js');

  const env = { LOG_LEVEL: 'silent', ...process.env, WORKER: 'off' };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'BOOTSTRAP_API_KEY', 'MIGRATIONS_RUN']) {
    delete env[name];
  }
  const config = AppConfig.fromEnvironment(env);
  const database = await startEmbeddedPostgres('memory');
  let app;
  try {
    app = await createApp(config, { url: database.url, embedded: true });
    const documents = app.get(OpenApiRegistry).get();
    mkdirSync(outDir, { recursive: true });
    for (const [version, document] of Object.entries(documents)) {
      const file = join(outDir, `${version}.json`);
      writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
      console.log(`wrote ${file}`);
    }
  } finally {
    await app?.close();
    await database.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
