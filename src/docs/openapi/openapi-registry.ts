import { Injectable } from '@nestjs/common';
import type { OpenApiDocuments } from './build-documents';

/** Holds the documents built at boot, for the routes that serve them. */
@Injectable()
export class OpenApiRegistry {
  private documents?: OpenApiDocuments;

  set(documents: OpenApiDocuments): void {
    this.documents = documents;
  }

  get(): OpenApiDocuments {
    if (!this.documents) throw new Error('OpenAPI documents are not built yet');
    return this.documents;
  }
}
