import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { InventoryModule } from '../inventory/inventory.module';
import { ProductEntity } from './product.entity';
import { ProductsRepository } from './products.repository';
import { ProductsService } from './products.service';
import { ProductsV1Controller, ProductsV2Controller } from './products.controller';

@Module({
  imports: [TypeOrmModule.forFeature([ProductEntity]), InventoryModule],
  controllers: [ProductsV1Controller, ProductsV2Controller],
  providers: [ProductsService, ProductsRepository],
  exports: [ProductsRepository],
})
export class ProductsModule {}
