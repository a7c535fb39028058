import { ArgumentMetadata } from '@nestjs/common';
import { Type } from 'class-transformer';
import { getMetadataStorage, IsInt, IsOptional, IsString, MaxLength, Min, ValidateNested } from 'class-validator';
import { AppError } from './errors/app-error';
import { createValidationPipe, MAX_INPUT_DEPTH } from './validation';

class LimitsDto {
  @IsInt()
  @Min(1)
  readonly perMinute!: number;
}

class CreateThingDto {
  @IsString()
  @MaxLength(20)
  readonly name!: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => LimitsDto)
  readonly limits?: LimitsDto;
}

const body: ArgumentMetadata = { type: 'body', metatype: CreateThingDto };

async function rejection(value: unknown): Promise<AppError> {
  try {
    await createValidationPipe().transform(value, body);
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected the pipe to refuse the value');
}

describe('createValidationPipe', () => {
  it('turns a valid body into an instance of the DTO', async () => {
    const value = await createValidationPipe().transform({ name: 'web', limits: { perMinute: 5 } }, body);
    expect(value).toBeInstanceOf(CreateThingDto);
    expect(value.limits).toBeInstanceOf(LimitsDto);
    expect(value).toEqual({ name: 'web', limits: { perMinute: 5 } });
  });

  it('refuses unknown fields as validation_failed naming each of them', async () => {
    const error = await rejection({ name: 'web', role: 'OWNER' });
    expect(error).toBeInstanceOf(AppError);
    expect(error.code).toBe('validation_failed');
    expect(error.status).toBe(400);
    expect(error.details).toEqual([{ field: 'role', message: expect.stringContaining('role') }]);
  });

  it('lists every wrong field, with dotted paths for nested ones', async () => {
    const error = await rejection({ name: 42, limits: { perMinute: 'lots', extra: true } });
    expect(error.code).toBe('validation_failed');
    const fields = error.details?.map((d) => d.field) ?? [];
    expect(fields).toEqual(expect.arrayContaining(['name', 'limits.perMinute', 'limits.extra']));
    for (const d of error.details ?? []) expect(d.message).toEqual(expect.any(String));
    expect(error.details).toContainEqual({ field: 'limits.perMinute', message: expect.stringMatching(/integer/) });
  });

  it('reports every broken rule of a field, not only the first', async () => {
    const error = await rejection({ name: 7 });
    const messages = error.details?.filter((d) => d.field === 'name').map((d) => d.message) ?? [];
    expect(messages.length).toBeGreaterThanOrEqual(2);
  });

  it('refuses a missing required field', async () => {
    const error = await rejection({});
    expect(error.details?.map((d) => d.field)).toContain('name');
  });

  it('refuses nesting past MAX_INPUT_DEPTH before class-transformer recurses into it', async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    const error = await rejection({ name: 'web', limits: { perMinute: deep } });
    expect(error.details).toEqual([{ field: 'limits', message: expect.stringContaining(`${MAX_INPUT_DEPTH}`) }]);
  });

  it('refuses NUL characters and unpaired surrogates in values and keys, naming the path', async () => {
    const error = await rejection({ name: 'a\u0000', limits: { perMinute: 5, ['k\ud800']: 1 }, list: ['ok', '\udc00'] });
    expect(error.details?.map((d) => d.field).sort()).toEqual(['limits.k\ud800', 'list.1', 'name']);
  });

  it('checks query and path values too, naming a bare value by its parameter', async () => {
    const pipe = createValidationPipe();
    await expect(pipe.transform('a\u0000', { type: 'param', data: 'id', metatype: String })).rejects.toMatchObject({
      details: [{ field: 'id', message: expect.stringContaining('NUL') }],
    });
    await expect(pipe.transform({ q: '\ud800' }, { type: 'query', metatype: Object })).rejects.toMatchObject({
      details: [{ field: 'q', message: expect.any(String) }],
    });
  });

  it('keeps well-formed text, surrogate pairs included', async () => {
    const value = await createValidationPipe().transform({ name: 'rocket \ud83d\ude80' }, body);
    expect(value.name).toBe('rocket 🚀');
  });

  it('looks a DTO’s rules up once, and sees rules registered later, an inherited one included', async () => {
    const pipe = createValidationPipe();
    const storage = getMetadataStorage();
    const first = storage.getTargetValidationMetadatas(CreateThingDto, undefined as unknown as string, false, false);
    expect(storage.getTargetValidationMetadatas(CreateThingDto, undefined as unknown as string, false, false)).toBe(first);

    // Declared after the first look-ups: its rules and its parent's apply.
    class RenameThingDto extends CreateThingDto {
      @IsString()
      readonly reason!: string;
    }
    const rename: ArgumentMetadata = { type: 'body', metatype: RenameThingDto };
    await expect(pipe.transform({ name: 'web', reason: 'clearer' }, rename)).resolves.toBeInstanceOf(RenameThingDto);
    await expect(pipe.transform({ name: 7 }, rename)).rejects.toMatchObject({
      details: expect.arrayContaining([
        { field: 'name', message: expect.stringContaining('string') },
        { field: 'reason', message: expect.stringContaining('string') },
      ]),
    });
    await expect(pipe.transform({ name: 'web', reason: 'x', extra: 1 }, rename)).rejects.toMatchObject({
      details: [{ field: 'extra', message: expect.stringContaining('should not exist') }],
    });
  });
});
