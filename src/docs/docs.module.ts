import { Module } from '@nestjs/common';
import { DocsController } from './docs.controller';
import { OpenApiRegistry } from './openapi/openapi-registry';

@Module({
  controllers: [DocsController],
  providers: [OpenApiRegistry],
  exports: [OpenApiRegistry],
})
export class DocsModule {}
