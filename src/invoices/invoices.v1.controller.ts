import { Body, Controller, Get, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { IfMatch } from '../http/if-match.decorator';
import { Location, type SetLocation } from '../http/location.decorator';
import { ApiCreated, ApiIfMatch, ApiPage, ApiResource } from '../http/openapi.decorators';
import { Page } from '../http/pagination/page';
import { ResourceId } from '../http/resource-id.pipe';
import { InvoiceCreateDto, InvoicePatchDto } from './dto/invoice-write.dto';
import { InvoiceV1Dto } from './dto/invoice.dto';
import { ListInvoicesV1Dto } from './dto/list-invoices.dto';
import { invoiceInputFrom, invoicePatchFrom } from './invoice-input';
import { CREATE_INVOICE_DESCRIPTION, CREATE_INVOICE_SUMMARY } from './invoices.openapi';
import { InvoicesService } from './invoices.service';
import { toInvoiceV1 } from './invoices.v1.mapper';

@ApiTags('invoices')
@Controller({ path: 'invoices', version: '1' })
export class InvoicesV1Controller {
  constructor(private readonly invoices: InvoicesService) {}

  @Get()
  @RequirePermission('invoices:read')
  @ApiOperation({ operationId: 'listInvoices', summary: 'List invoices (a customer: its own)' })
  @ApiPage(InvoiceV1Dto)
  async list(
    @Query() query: ListInvoicesV1Dto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<Page<InvoiceV1Dto>> {
    return (await this.invoices.list(principal, query, query)).map(toInvoiceV1);
  }

  @Post()
  @RequirePermission('invoices:write')
  @ApiOperation({
    operationId: 'createInvoice',
    summary: CREATE_INVOICE_SUMMARY,
    description: CREATE_INVOICE_DESCRIPTION,
  })
  @ApiCreated(InvoiceV1Dto)
  async create(
    @Body() body: InvoiceCreateDto,
    @CurrentPrincipal() principal: Principal,
    @Location() location: SetLocation,
  ): Promise<InvoiceV1Dto> {
    const invoice = await this.invoices.create(principal, invoiceInputFrom(body));
    location(invoice.id);
    return toInvoiceV1(invoice);
  }

  @Get(':id')
  @RequirePermission('invoices:read')
  @ApiOperation({ operationId: 'getInvoice', summary: 'Get an invoice' })
  @ApiResource(InvoiceV1Dto)
  async get(
    @ResourceId('invoice') id: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<InvoiceV1Dto> {
    return toInvoiceV1(await this.invoices.get(principal, id));
  }

  @Patch(':id')
  @RequirePermission('invoices:write')
  @ApiOperation({
    operationId: 'updateInvoice',
    summary: 'Change the due date or notes of a draft or open invoice',
  })
  @ApiIfMatch()
  @ApiResource(InvoiceV1Dto)
  async update(
    @ResourceId('invoice') id: string,
    @Body() body: InvoicePatchDto,
    @CurrentPrincipal() principal: Principal,
    @IfMatch() versions?: number[],
  ): Promise<InvoiceV1Dto> {
    return toInvoiceV1(await this.invoices.update(principal, id, invoicePatchFrom(body), versions));
  }
}
