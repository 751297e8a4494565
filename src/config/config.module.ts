import { Global, Module } from '@nestjs/common';
import { AppConfig } from './app-config';

/** Makes the AppConfig built at boot injectable everywhere. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig) {
    return {
      module: ConfigModule,
      providers: [{ provide: AppConfig, useValue: config }],
      exports: [AppConfig],
    };
  }
}
