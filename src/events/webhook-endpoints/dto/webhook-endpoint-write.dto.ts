import { ApiProperty, PartialType } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
} from 'class-validator';
import { IsOmittable } from '../../../common/dto/omittable';
import { ABSOLUTE_URI_PATTERN, URI_MESSAGE } from '../../../common/dto/uri';
import { EVENT_TYPES } from '../../event-types';
import { IsText } from '../../../common/dto/text';

/** What an endpoint may subscribe to: each event type, or `*` for all (also future) types. */
export const SUBSCRIBABLE = [...Object.keys(EVENT_TYPES), '*'];
export const MAX_URL_LENGTH = 2048;

/** POST body of /webhook-endpoints. */
export class WebhookEndpointCreateDto {
  /**
   * Where events are POSTed: https (http is accepted outside production). Its host must
   * resolve to public addresses only, unless the service runs with
   * WEBHOOK_ALLOW_PRIVATE_URLS; no credentials and no fragment in the URL.
   * @example "https://erp.example.com/webhooks/commerce"
   */
  @ApiProperty({ format: 'uri', pattern: ABSOLUTE_URI_PATTERN.source })
  @IsString()
  @Length(1, MAX_URL_LENGTH)
  @Matches(ABSOLUTE_URI_PATTERN, { message: URI_MESSAGE })
  url: string;

  /**
   * The event types to receive, or `["*"]` for every type, including types added later.
   * @example ["order.created","order.status_changed"]
   */
  @ApiProperty({ type: [String], enum: SUBSCRIBABLE })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(SUBSCRIBABLE.length)
  @ArrayUnique()
  @IsString({ each: true })
  @IsIn(SUBSCRIBABLE, { each: true })
  events: string[];

  /**
   * A note for the people who run the receiver; omitted or null means none.
   * @example "ERP order import"
   */
  @IsOptional()
  @IsString()
  @MaxLength(500)
  @IsText()
  description?: string | null;
}

/** PATCH body of /webhook-endpoints/{id}: any subset. */
export class WebhookEndpointPatchDto extends PartialType(WebhookEndpointCreateDto, {
  skipNullProperties: false,
}) {
  /**
   * false stops deliveries (outstanding ones become `dead`); true resumes them for new
   * events, also after the service disabled the endpoint.
   */
  @IsOmittable()
  @IsBoolean()
  enabled?: boolean;
}
