import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OrdersModule } from '../orders/orders.module';
import { InvoiceLineEntity } from './invoice-line.entity';
import { InvoiceStatusHistoryEntity } from './invoice-status-history.entity';
import { InvoiceStatusController } from './invoice-status.controller';
import { InvoiceEntity } from './invoice.entity';
import { InvoicesRepository } from './invoices.repository';
import { InvoicesService } from './invoices.service';
import { InvoicesV1Controller, InvoicesV2Controller } from './invoices.controller';

@Module({
  imports: [
    TypeOrmModule.forFeature([InvoiceEntity, InvoiceLineEntity, InvoiceStatusHistoryEntity]),
    OrdersModule,
  ],
  controllers: [InvoicesV1Controller, InvoicesV2Controller, InvoiceStatusController],
  providers: [InvoicesService, InvoicesRepository],
})
export class InvoicesModule {}
