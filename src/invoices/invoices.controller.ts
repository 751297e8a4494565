import { Body, Controller, Get, Patch, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { IfMatch } from '../http/input/if-match.decorator';
import { Location, type SetLocation } from '../http/responses/location.decorator';
import { ApiCreated, ApiIfMatch, ApiPage, ApiResource } from '../http/routing/openapi.decorators';
import { Page } from '../http/pagination/page';
import { ResourceId } from '../http/input/resource-id.pipe';
import { ParamType, type ResourceVersion } from '../http/routing/versioned-controller';
import { InvoiceCreateDto, InvoicePatchDto } from './dto/invoice-write.dto';
import { InvoiceV1Dto, InvoiceV2Dto } from './dto/invoice.dto';
import { ListInvoicesV1Dto, ListInvoicesV2Dto } from './dto/list-invoices.dto';
import { invoiceInputFrom, invoicePatchFrom } from './invoice-input';
import type { InvoiceEntity } from './invoice.entity';
import { CREATE_INVOICE_DESCRIPTION, CREATE_INVOICE_SUMMARY } from './invoices.openapi';
import { InvoicesService } from './invoices.service';
import { toInvoiceV1, toInvoiceV2 } from './invoices.mapper';
import { INVOICES } from './invoices.repository';
import { CommitHook } from '../idempotency/commit-hook.decorator';
import { IdempotentPost } from '../idempotency/idempotent-post.decorator';

type InvoicesVersion<Dto> = ResourceVersion<
  InvoiceEntity,
  Dto,
  ListInvoicesV1Dto | ListInvoicesV2Dto
>;

/** `/invoices` in one API version; the versions differ only in what `api` gives. */
function invoicesController<Dto>(api: InvoicesVersion<Dto>) {
  @ApiTags('invoices')
  @Controller({ path: 'invoices', version: api.version })
  class InvoicesController {
    constructor(private readonly invoices: InvoicesService) {}

    @Get()
    @RequirePermission('invoices:read')
    @ApiOperation({ operationId: 'listInvoices', summary: 'List invoices (a customer: its own)' })
    @ApiPage(api.dto, () => INVOICES)
    async list(
      @Query() @ParamType(api.listQuery) query: ListInvoicesV1Dto | ListInvoicesV2Dto,
      @CurrentPrincipal() principal: Principal,
    ): Promise<Page<Dto>> {
      return (await this.invoices.list(principal, query, query)).map(api.toDto);
    }

    @IdempotentPost()
    @RequirePermission('invoices:write')
    @ApiOperation({
      operationId: 'createInvoice',
      summary: CREATE_INVOICE_SUMMARY,
      description: CREATE_INVOICE_DESCRIPTION,
    })
    @ApiCreated(api.dto)
    async create(
      @Body() body: InvoiceCreateDto,
      @CurrentPrincipal() principal: Principal,
      @Location() location: SetLocation,
      @CommitHook() commitHook: CommitHook | undefined,
    ): Promise<Dto> {
      const invoice = await this.invoices.create(principal, invoiceInputFrom(body), commitHook);
      location(invoice.id);
      return api.toDto(invoice);
    }

    @Get(':id')
    @RequirePermission('invoices:read')
    @ApiOperation({ operationId: 'getInvoice', summary: 'Get an invoice' })
    @ApiResource(api.dto)
    async get(
      @ResourceId('invoice') id: string,
      @CurrentPrincipal() principal: Principal,
    ): Promise<Dto> {
      return api.toDto(await this.invoices.get(principal, id));
    }

    @Patch(':id')
    @RequirePermission('invoices:write')
    @ApiOperation({
      operationId: 'updateInvoice',
      summary: 'Change the due date or notes of a draft or open invoice',
    })
    @ApiIfMatch()
    @ApiResource(api.dto)
    async update(
      @ResourceId('invoice') id: string,
      @Body() body: InvoicePatchDto,
      @IfMatch() versions?: number[],
    ): Promise<Dto> {
      return api.toDto(await this.invoices.update(id, invoicePatchFrom(body), versions));
    }
  }
  return InvoicesController;
}

export class InvoicesV1Controller extends invoicesController({
  version: '1',
  dto: InvoiceV1Dto,
  listQuery: ListInvoicesV1Dto,
  toDto: toInvoiceV1,
}) {}

export class InvoicesV2Controller extends invoicesController({
  version: '2',
  dto: InvoiceV2Dto,
  listQuery: ListInvoicesV2Dto,
  toDto: toInvoiceV2,
}) {}
