import { Body, Controller, Get, Patch, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { etagForVersion } from '../http/etag';
import { IfMatch } from '../http/if-match.decorator';
import { ApiIfMatch, ApiResource } from '../http/openapi.decorators';
import { ResourceId } from '../http/resource-id.pipe';
import { InvoiceStatusDto } from './dto/invoice-status.dto';
import { InvoiceStatusWriteDto } from './dto/invoice-write.dto';
import { toInvoiceStatus } from './invoice-status.mapper';
import { InvoicesService } from './invoices.service';

const STATUS_ETAG =
  "The invoice's status and history; `ETag` is the invoice's version, so `If-Match` works here as on the invoice.";

/**
 * The status sub-resource holds no money, so one controller serves v1 and v2. Its ETag
 * is the invoice's version: the same tag guards PATCH /invoices/{id} and its status.
 */
@ApiTags('invoices')
@Controller({ path: 'invoices/:id/status', version: ['1', '2'] })
export class InvoiceStatusController {
  constructor(private readonly invoices: InvoicesService) {}

  @Get()
  @RequirePermission('invoices:read')
  @ApiOperation({
    operationId: 'getInvoiceStatus',
    summary: 'Get the status of an invoice and its history',
  })
  @ApiResource(InvoiceStatusDto, STATUS_ETAG)
  async get(
    @ResourceId('invoice') id: string,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<InvoiceStatusDto> {
    const status = await this.invoices.statusOf(principal, id);
    void reply.header('ETag', etagForVersion(status.invoice.version));
    return toInvoiceStatus(status);
  }

  @Patch()
  @RequirePermission('invoices:write')
  @ApiOperation({
    operationId: 'updateInvoiceStatus',
    summary: 'Open, pay or void an invoice; paid sets paidAt and amountDue to zero',
  })
  @ApiIfMatch()
  @ApiResource(InvoiceStatusDto, STATUS_ETAG)
  async update(
    @ResourceId('invoice') id: string,
    @Body() body: InvoiceStatusWriteDto,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
    @IfMatch() versions?: number[],
  ): Promise<InvoiceStatusDto> {
    const status = await this.invoices.changeStatus(principal, id, body.status, versions);
    void reply.header('ETag', etagForVersion(status.invoice.version));
    return toInvoiceStatus(status);
  }
}
