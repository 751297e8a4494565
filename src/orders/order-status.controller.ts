import { statusController } from '../http/routing/status-controller';
import { OrderStatusDto } from './dto/order-status.dto';
import { OrderStatusWriteDto } from './dto/order-write.dto';
import { CUSTOMERS_CANNOT_CHANGE_ORDERS } from './order-problems';
import type { OrderStatus } from './order-status';
import { OrdersService } from './orders.service';

/** `GET` and `PATCH /orders/{id}/status`; only staff move an order. */
export class OrderStatusController extends statusController<OrderStatus>({
  resource: 'order',
  collection: 'orders',
  owner: OrdersService,
  dto: OrderStatusDto,
  writeDto: OrderStatusWriteDto,
  read: 'orders:read',
  write: 'orders:write',
  staffOnly: CUSTOMERS_CANNOT_CHANGE_ORDERS,
  changeSummary: 'Move an order to another status (staff only); cancel releases, ship takes stock',
}) {}
