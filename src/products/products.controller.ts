import { Body, Controller, Delete, Get, Patch, Put, Query, Type } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../auth/auth.decorators';
import { IfMatch } from '../http/input/if-match.decorator';
import { Location, type SetLocation } from '../http/responses/location.decorator';
import {
  ApiCreated,
  ApiDeleted,
  ApiIfMatch,
  ApiPage,
  ApiResource,
} from '../http/routing/openapi.decorators';
import { Page } from '../http/pagination/page';
import { ResourceId } from '../http/input/resource-id.pipe';
import { ParamType, type ResourceVersion } from '../http/routing/versioned-controller';
import { ListProductsV1Dto, ListProductsV2Dto } from './dto/list-products.dto';
import { ProductPatchV1Dto, ProductWriteV1Dto } from './dto/product-write.v1.dto';
import { ProductPatchV2Dto, ProductWriteV2Dto } from './dto/product-write.v2.dto';
import { ProductV1Dto, ProductV2Dto } from './dto/product.dto';
import type { ProductInput, ProductPatch } from './product-input';
import type { ProductEntity } from './product.entity';
import { ProductsService } from './products.service';
import { productInputFromV1, productPatchFromV1, toProductV1 } from './products.v1.mapper';
import { productInputFromV2, productPatchFromV2, toProductV2 } from './products.v2.mapper';
import { PRODUCTS } from './products.repository';
import { CommitHook } from '../idempotency/commit-hook.decorator';
import { IdempotentPost } from '../idempotency/idempotent-post.decorator';

/** Products also differ by version in what a client writes (v2: price as an object). */
interface ProductsVersion<Dto, Write, PatchBody> extends ResourceVersion<
  ProductEntity,
  Dto,
  ListProductsV1Dto | ListProductsV2Dto
> {
  write: Type<Write>;
  patch: Type<PatchBody>;
  inputFrom: (body: Write) => ProductInput;
  patchFrom: (body: PatchBody) => ProductPatch;
}

/** `/products` in one API version; the versions differ only in what `api` gives. */
function productsController<Dto, Write, PatchBody>(api: ProductsVersion<Dto, Write, PatchBody>) {
  @ApiTags('products')
  @Controller({ path: 'products', version: api.version })
  class ProductsController {
    constructor(private readonly products: ProductsService) {}

    @Get()
    @RequirePermission('products:read')
    @ApiOperation({ operationId: 'listProducts', summary: 'List products' })
    @ApiPage(api.dto, () => PRODUCTS)
    async list(
      @Query() @ParamType(api.listQuery) query: ListProductsV1Dto | ListProductsV2Dto,
    ): Promise<Page<Dto>> {
      return (await this.products.list(query, query)).map(api.toDto);
    }

    @IdempotentPost()
    @RequirePermission('products:write')
    @ApiOperation({
      operationId: 'createProduct',
      summary: 'Create a product and its inventory item',
    })
    @ApiCreated(api.dto)
    async create(
      @Body() @ParamType(api.write) body: Write,
      @Location() location: SetLocation,
      @CommitHook() commitHook: CommitHook | undefined,
    ): Promise<Dto> {
      const product = await this.products.create(api.inputFrom(body), commitHook);
      location(product.id);
      return api.toDto(product);
    }

    @Get(':id')
    @RequirePermission('products:read')
    @ApiOperation({ operationId: 'getProduct', summary: 'Get a product' })
    @ApiResource(api.dto)
    async get(@ResourceId('product') id: string): Promise<Dto> {
      return api.toDto(await this.products.get(id));
    }

    @Put(':id')
    @RequirePermission('products:write')
    @ApiOperation({
      operationId: 'replaceProduct',
      summary: 'Replace a product (omitted optional fields reset)',
    })
    @ApiIfMatch()
    @ApiResource(api.dto)
    async replace(
      @ResourceId('product') id: string,
      @Body() @ParamType(api.write) body: Write,
      @IfMatch() versions?: number[],
    ): Promise<Dto> {
      return api.toDto(await this.products.replace(id, api.inputFrom(body), versions));
    }

    @Patch(':id')
    @RequirePermission('products:write')
    @ApiOperation({ operationId: 'updateProduct', summary: 'Change some fields of a product' })
    @ApiIfMatch()
    @ApiResource(api.dto)
    async update(
      @ResourceId('product') id: string,
      @Body() @ParamType(api.patch) body: PatchBody,
      @IfMatch() versions?: number[],
    ): Promise<Dto> {
      return api.toDto(await this.products.update(id, api.patchFrom(body), versions));
    }

    @Delete(':id')
    @RequirePermission('products:write')
    @ApiOperation({ operationId: 'deleteProduct', summary: 'Archive a product' })
    @ApiIfMatch()
    @ApiDeleted(
      'Archived: the product and its inventory item are 404 and out of every list from now on, and its sku stays taken; orders keep their snapshot of it.',
    )
    async remove(@ResourceId('product') id: string, @IfMatch() versions?: number[]): Promise<void> {
      await this.products.archive(id, versions);
    }
  }
  return ProductsController;
}

export class ProductsV1Controller extends productsController({
  version: '1',
  dto: ProductV1Dto,
  listQuery: ListProductsV1Dto,
  toDto: toProductV1,
  write: ProductWriteV1Dto,
  patch: ProductPatchV1Dto,
  inputFrom: productInputFromV1,
  patchFrom: productPatchFromV1,
}) {}

export class ProductsV2Controller extends productsController({
  version: '2',
  dto: ProductV2Dto,
  listQuery: ListProductsV2Dto,
  toDto: toProductV2,
  write: ProductWriteV2Dto,
  patch: ProductPatchV2Dto,
  inputFrom: productInputFromV2,
  patchFrom: productPatchFromV2,
}) {}
