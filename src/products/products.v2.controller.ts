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
import { ListProductsV2Dto } from './dto/list-products.dto';
import { ProductPatchV2Dto, ProductWriteV2Dto } from './dto/product-write.v2.dto';
import { ProductV2Dto } from './dto/product.dto';
import { ProductsService } from './products.service';
import { productInputFromV2, productPatchFromV2, toProductV2 } from './products.v2.mapper';

@ApiTags('products')
@Controller({ path: 'products', version: '2' })
export class ProductsV2Controller {
  constructor(private readonly products: ProductsService) {}

  @Get()
  @RequirePermission('products:read')
  @ApiOperation({ operationId: 'listProducts', summary: 'List products' })
  @ApiPage(ProductV2Dto)
  async list(@Query() query: ListProductsV2Dto): Promise<Page<ProductV2Dto>> {
    return (await this.products.list(query, query)).map(toProductV2);
  }

  @Post()
  @RequirePermission('products:write')
  @ApiOperation({
    operationId: 'createProduct',
    summary: 'Create a product and its inventory item',
  })
  @ApiCreated(ProductV2Dto)
  async create(
    @Body() body: ProductWriteV2Dto,
    @Location() location: SetLocation,
  ): Promise<ProductV2Dto> {
    const product = await this.products.create(productInputFromV2(body));
    location(product.id);
    return toProductV2(product);
  }

  @Get(':id')
  @RequirePermission('products:read')
  @ApiOperation({ operationId: 'getProduct', summary: 'Get a product' })
  @ApiResource(ProductV2Dto)
  async get(@ResourceId('product') id: string): Promise<ProductV2Dto> {
    return toProductV2(await this.products.get(id));
  }

  @Put(':id')
  @RequirePermission('products:write')
  @ApiOperation({
    operationId: 'replaceProduct',
    summary: 'Replace a product (omitted optional fields reset)',
  })
  @ApiIfMatch()
  @ApiResource(ProductV2Dto)
  async replace(
    @ResourceId('product') id: string,
    @Body() body: ProductWriteV2Dto,
    @IfMatch() versions?: number[],
  ): Promise<ProductV2Dto> {
    return toProductV2(await this.products.replace(id, productInputFromV2(body), versions));
  }

  @Patch(':id')
  @RequirePermission('products:write')
  @ApiOperation({ operationId: 'updateProduct', summary: 'Change some fields of a product' })
  @ApiIfMatch()
  @ApiResource(ProductV2Dto)
  async update(
    @ResourceId('product') id: string,
    @Body() body: ProductPatchV2Dto,
    @IfMatch() versions?: number[],
  ): Promise<ProductV2Dto> {
    return toProductV2(await this.products.update(id, productPatchFromV2(body), versions));
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
