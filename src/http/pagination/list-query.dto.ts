import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { QueryInteger } from '../../common/dto/query-transforms';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
export const MAX_PAGE = 1_000_000;

/** The paging parameters of every /api/v2 collection (API.md §4): cursor style only. */
export class CursorListQueryDto {
  /** Page size. */
  @IsOptional()
  @QueryInteger()
  @IsInt()
  @Min(1)
  @Max(MAX_LIMIT)
  limit?: number;

  /** Opaque cursor from `pagination.next` or `pagination.prev` of the previous answer. */
  @IsOptional()
  @IsString()
  // Longer than any cursor this API issues: the longest carries every sortable product
  // field, a name of 200 and a category of 100 characters each escaped as `\u0001` in
  // its JSON (about 2,900 characters once in base64url).
  @MaxLength(4096)
  @Matches(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, { message: 'is not a cursor this API issued' })
  cursor?: string;

  /** Comma list of fields, `-` for descending; the id breaks ties. */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @Matches(/^-?[A-Za-z]+(,-?[A-Za-z]+)*$/, {
    message: 'must be a comma list of fields, e.g. -createdAt,name',
  })
  sort?: string;
}

/** /api/v1 collections also take `page`, the offset style. */
export class OffsetListQueryDto extends CursorListQueryDto {
  /** 1-based page number (offset style); not together with `cursor`. */
  @IsOptional()
  @QueryInteger()
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE)
  page?: number;
}
