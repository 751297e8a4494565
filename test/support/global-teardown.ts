import { dropDatabase, TEMPLATE_ENV } from './test-database';

export default async function globalTeardown(): Promise<void> {
  const url = process.env.DATABASE_URL;
  const template = process.env[TEMPLATE_ENV];
  if (url && template) await dropDatabase(url, template);
}
