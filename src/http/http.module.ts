import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { ProblemFilter } from './problems/problem.filter';
import { RouteTable } from './routing/route-table';
import { UndeclaredInputGuard } from './input/undeclared-input.guard';
import { StrictValidationPipe } from './input/validation.pipe';

/**
 * The HTTP contract layer in Nest: one filter, one validation pipe, the input rules no DTO
 * states. (The representation, envelope and ETag, is a Fastify hook: representation.hooks.ts.)
 */
@Global()
@Module({})
export class HttpModule {
  static forRoot(routes: RouteTable): DynamicModule {
    return {
      module: HttpModule,
      providers: [
        { provide: RouteTable, useValue: routes },
        { provide: APP_FILTER, useClass: ProblemFilter },
        { provide: APP_PIPE, useClass: StrictValidationPipe },
        { provide: APP_GUARD, useClass: UndeclaredInputGuard },
      ],
      exports: [RouteTable],
    };
  }
}
