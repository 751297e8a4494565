import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { InventoryModule } from '../inventory/inventory.module';
import { ProductsModule } from '../products/products.module';
import { OrderLineEntity } from './order-line.entity';
import { OrderStatusHistoryEntity } from './order-status-history.entity';
import { OrderStatusController } from './order-status.controller';
import { OrderEntity } from './order.entity';
import { OrdersRepository } from './orders.repository';
import { OrdersService } from './orders.service';
import { OrdersV1Controller, OrdersV2Controller } from './orders.controller';

@Module({
  imports: [
    TypeOrmModule.forFeature([OrderEntity, OrderLineEntity, OrderStatusHistoryEntity]),
    InventoryModule,
    ProductsModule,
  ],
  controllers: [OrdersV1Controller, OrdersV2Controller, OrderStatusController],
  providers: [OrdersService, OrdersRepository],
  exports: [OrdersService],
})
export class OrdersModule {}
