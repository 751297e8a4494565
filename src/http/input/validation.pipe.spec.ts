import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsIn,
  IsString,
  Length,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { Type } from 'class-transformer';
import { Problem } from '../problems/problem';
import { StrictValidationPipe } from './validation.pipe';

class Tag {
  @IsString()
  @MaxLength(3)
  name: string;
}

class Dated {
  @Matches(/^\d{4}$/, { message: 'must be a year' })
  @Length(4, 4, { message: 'must be a year' })
  year: string;
}

class Tagged {
  @ArrayMinSize(1)
  @ArrayUnique()
  @ArrayMaxSize(3)
  @IsString({ each: true })
  @IsIn(['red', 'blue', 'abcd\uFE0F'], { each: true })
  @MaxLength(4, { each: true })
  colours: string[];

  @ValidateNested({ each: true })
  @Type(() => Tag)
  tags: Tag[];
}

async function errorsFor(body: unknown): Promise<{ field: string; message: string }[]> {
  try {
    await new StrictValidationPipe().transform(body, { type: 'body', metatype: Tagged });
  } catch (error) {
    if (error instanceof Problem) return error.errors ?? [];
    throw error;
  }
  throw new Error('accepted');
}

describe('StrictValidationPipe messages', () => {
  it('says a message two rules of one field share once', async () => {
    const pipe = new StrictValidationPipe();
    const refusal = await pipe.transform({ year: 'x' }, { type: 'body', metatype: Dated }).then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(refusal).toBeInstanceOf(Problem);
    expect((refusal as Problem).errors).toEqual([{ field: 'year', message: 'must be a year' }]);
  });
});

describe('StrictValidationPipe names array members', () => {
  it('moves a per-member rule from the array to each member failing it', async () => {
    const errors = await errorsFor({ colours: ['red', 'pink', 7], tags: [] });

    expect(errors).toEqual(
      expect.arrayContaining([
        { field: 'colours[2]', message: 'must be a string' },
        { field: 'colours[1]', message: expect.stringMatching(/^must be one of the following/) },
        { field: 'colours[2]', message: expect.stringMatching(/^must be one of the following/) },
      ]),
    );
    expect(errors.map((e) => e.field)).not.toContain('colours[0]');
    expect(errors.map((e) => e.field)).not.toContain('colours');
  });

  it('leaves a rule about the whole array on the array', async () => {
    const errors = await errorsFor({ colours: ['red', 'blue', 'red', 'blue'], tags: [] });

    expect(errors).toEqual([
      { field: 'colours', message: 'must hold at most 3 items' },
      { field: 'colours', message: 'must not hold the same item twice' },
    ]);
  });

  it('says an array must not be empty in plain words', async () => {
    expect(await errorsFor({ colours: [], tags: [] })).toEqual([
      { field: 'colours', message: 'must not be empty' },
    ]);
  });

  it('says a field that is missing is required, not of which type it must be', async () => {
    expect(await errorsFor({ colours: ['red'], tags: [{}] })).toEqual([
      { field: 'tags[0].name', message: 'is required' },
    ]);
  });

  it('names members inside nested objects as before', async () => {
    const errors = await errorsFor({
      colours: ['red'],
      tags: [{ name: 'ok' }, { name: 'long' }],
    });

    expect(errors).toEqual([
      { field: 'tags[1].name', message: 'must be shorter than or equal to 3 characters' },
    ]);
  });

  it('names a member too long in code points that validator.js counts shorter', async () => {
    // "abcd" + U+FE0F: five code points, four characters to validator.js
    const errors = await errorsFor({ colours: ['red', 'abcd\uFE0F'], tags: [] });

    expect(errors).toEqual([
      { field: 'colours[1]', message: 'must be shorter than or equal to 4 characters' },
    ]);
  });
});
