import { Body, Controller, Delete, Get, Patch, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../auth/auth.decorators';
import { IfMatch } from '../http/if-match.decorator';
import { Location, type SetLocation } from '../http/location.decorator';
import {
  ApiCreated,
  ApiDeleted,
  ApiIfMatch,
  ApiPage,
  ApiResource,
} from '../http/openapi.decorators';
import { Page } from '../http/pagination/page';
import { ResourceId } from '../http/resource-id.pipe';
import { ListProductsV1Dto } from './dto/list-products.dto';
import { ProductPatchV1Dto, ProductWriteV1Dto } from './dto/product-write.v1.dto';
import { ProductV1Dto } from './dto/product.dto';
import { ProductsService } from './products.service';
import { productInputFromV1, productPatchFromV1, toProductV1 } from './products.v1.mapper';

@ApiTags('products')
@Controller({ path: 'products', version: '1' })
export class ProductsV1Controller {
  constructor(private readonly products: ProductsService) {}

  @Get()
  @RequirePermission('products:read')
  @ApiOperation({ operationId: 'listProducts', summary: 'List products' })
  @ApiPage(ProductV1Dto)
  async list(@Query() query: ListProductsV1Dto): Promise<Page<ProductV1Dto>> {
    return (await this.products.list(query, query)).map(toProductV1);
  }

  @Post()
  @RequirePermission('products:write')
  @ApiOperation({
    operationId: 'createProduct',
    summary: 'Create a product and its inventory item',
  })
  @ApiCreated(ProductV1Dto)
  async create(
    @Body() body: ProductWriteV1Dto,
    @Location() location: SetLocation,
  ): Promise<ProductV1Dto> {
    const product = await this.products.create(productInputFromV1(body));
    location(product.id);
    return toProductV1(product);
  }

  @Get(':id')
  @RequirePermission('products:read')
  @ApiOperation({ operationId: 'getProduct', summary: 'Get a product' })
  @ApiResource(ProductV1Dto)
  async get(@ResourceId('product') id: string): Promise<ProductV1Dto> {
    return toProductV1(await this.products.get(id));
  }

  @Put(':id')
  @RequirePermission('products:write')
  @ApiOperation({
    operationId: 'replaceProduct',
    summary: 'Replace a product (omitted optional fields reset)',
  })
  @ApiIfMatch()
  @ApiResource(ProductV1Dto)
  async replace(
    @ResourceId('product') id: string,
    @Body() body: ProductWriteV1Dto,
    @IfMatch() versions?: number[],
  ): Promise<ProductV1Dto> {
    return toProductV1(await this.products.replace(id, productInputFromV1(body), versions));
  }

  @Patch(':id')
  @RequirePermission('products:write')
  @ApiOperation({ operationId: 'updateProduct', summary: 'Change some fields of a product' })
  @ApiIfMatch()
  @ApiResource(ProductV1Dto)
  async update(
    @ResourceId('product') id: string,
    @Body() body: ProductPatchV1Dto,
    @IfMatch() versions?: number[],
  ): Promise<ProductV1Dto> {
    return toProductV1(await this.products.update(id, productPatchFromV1(body), versions));
  }

  @Delete(':id')
  @RequirePermission('products:write')
  @ApiOperation({ operationId: 'deleteProduct', summary: 'Archive a product' })
  @ApiIfMatch()
  @ApiDeleted()
  async remove(@ResourceId('product') id: string, @IfMatch() versions?: number[]): Promise<void> {
    await this.products.archive(id, versions);
  }
}
