import { statusController } from '../http/routing/status-controller';
import { InvoiceStatusDto } from './dto/invoice-status.dto';
import { InvoiceStatusWriteDto } from './dto/invoice-write.dto';
import type { InvoiceStatus } from './invoice-status';
import { InvoicesService } from './invoices.service';

/** `GET` and `PATCH /invoices/{id}/status`. */
export class InvoiceStatusController extends statusController<InvoiceStatus>({
  resource: 'invoice',
  collection: 'invoices',
  owner: InvoicesService,
  dto: InvoiceStatusDto,
  writeDto: InvoiceStatusWriteDto,
  read: 'invoices:read',
  write: 'invoices:write',
  changeSummary: 'Open, pay or void an invoice; paid sets paidAt and amountDue to zero',
}) {}
