import { OffsetListQueryDto } from '../../../http/pagination/list-query.dto';

/** `page` is refused on /api/v2 (cursor-only) by the one rule in http/. */
export class ListOAuthClientsDto extends OffsetListQueryDto {}
