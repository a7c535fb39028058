import { ValidationError, ValidationPipe } from '@nestjs/common';
import { ValidateIf } from 'class-validator';
import { AppError, ErrorDetail } from './errors/app-error';

function flatten(errors: ValidationError[], parent = ''): ErrorDetail[] {
  return errors.flatMap((e) => {
    const field = parent ? `${parent}.${e.property}` : e.property;
    const own = Object.values(e.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...flatten(e.children ?? [], field)];
  });
}

/** Whitelisted, unknown fields refused, every problem listed in `details`. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: false,
    exceptionFactory: (errors) => new AppError('validation_failed', 'The request is malformed; see details.', flatten(errors)),
  });
}

/** Like @IsOptional(), but null is validated (and refused) instead of skipped. */
export const IsOmittable = () => ValidateIf((_: object, value: unknown) => value !== undefined);
