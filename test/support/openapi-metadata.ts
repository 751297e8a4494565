import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { PluginMetadataGenerator } from '@nestjs/cli/lib/compiler/plugins/plugin-metadata-generator.js';
import { ReadonlyVisitor } from '@nestjs/swagger/plugin';

/**
 * The @nestjs/swagger CLI plugin documents DTOs at `nest build` time. Jest runs the code
 * through SWC instead, so the same metadata is generated into src/metadata.ts (ignored by
 * git), which src/docs/openapi/plugin-metadata.ts loads when present. The options mirror
 * nest-cli.json.
 */
export function generateOpenApiMetadata(): void {
  const src = join(__dirname, '..', '..', 'src');
  // Written under a private name, then renamed: concurrent test runs never read half a file.
  const scratch = `metadata.${process.pid}.tmp.ts`;
  new PluginMetadataGenerator().generate({
    visitors: [
      new ReadonlyVisitor({
        introspectComments: true,
        classValidatorShim: true,
        dtoFileNameSuffix: ['.dto.ts'],
        pathToSource: src,
      }),
    ],
    outputDir: src,
    filename: scratch,
    // relative to the working directory, which is the project root under npm test
    tsconfigPath: 'tsconfig.build.json',
    printDiagnostics: false,
  });
  renameSync(join(src, scratch), join(src, 'metadata.ts'));
}
