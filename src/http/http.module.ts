import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { PageInterceptor } from './page.interceptor';
import { ProblemFilter } from './problem.filter';
import { UndeclaredInputInterceptor } from './undeclared-input.interceptor';
import { RouteTable } from './route-table';
import { StrictValidationPipe } from './validation.pipe';
import { VersionEtagInterceptor } from './version-etag.interceptor';

/** The HTTP contract layer: one filter, one validation pipe, the representation interceptors. */
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
        { provide: APP_INTERCEPTOR, useClass: UndeclaredInputInterceptor },
        { provide: APP_INTERCEPTOR, useClass: VersionEtagInterceptor },
        { provide: APP_INTERCEPTOR, useClass: PageInterceptor },
      ],
      exports: [RouteTable],
    };
  }
}
