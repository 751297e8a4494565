import { generateOpenApiMetadata } from './openapi-metadata';
import { createTemplate, TEMPLATE_ENV } from './test-database';

export default async function globalSetup(): Promise<void> {
  generateOpenApiMetadata();
  const url = process.env.DATABASE_URL;
  if (url) process.env[TEMPLATE_ENV] = await createTemplate(url);
}
