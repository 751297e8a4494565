const { existsSync, readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

/**
 * NestJS 12 and other dependencies ship ES modules only; Jest's module system needs
 * CommonJS, so @swc/jest transforms them as well as our TypeScript (DESIGN.md §2). The
 * list is read from node_modules, so a new ESM-only dependency needs no change here.
 */
function esmPackages() {
  const root = join(__dirname, 'node_modules');
  const names = readdirSync(root).flatMap((name) =>
    name.startsWith('@') ? readdirSync(join(root, name)).map((sub) => `${name}/${sub}`) : [name],
  );
  return names.filter((name) => {
    const manifest = join(root, name, 'package.json');
    if (!existsSync(manifest)) return false;
    const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
    return pkg.type === 'module';
  });
}

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testRegex: '\\.(spec|test)\\.ts$',
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  transform: {
    '^.+\\.(t|j|mj|cj)s$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2023',
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  // src/metadata.ts imports with the `.js` suffix nodenext wants
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transformIgnorePatterns: [
    `/node_modules/(?!(${esmPackages().join('|').replace(/[.+]/g, '\\$&')})/)`,
  ],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 60000,
  maxWorkers: 2,
};
