import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { getMetadataStorage, type MetadataStorage, ValidateIf } from 'class-validator';
import { AppError, ErrorDetail } from './errors/app-error';

/**
 * How deep a body, query or path value may nest. Our DTOs nest two levels (a list of strings in an
 * object); class-transformer and class-validator recurse once per level, and a JSON body nested a
 * few thousand deep overflowed their stack (a 500). docs/DECISIONS.md, "Input the validators or
 * PostgreSQL cannot take".
 */
export const MAX_INPUT_DEPTH = 32;

function flatten(errors: ValidationError[], parent = ''): ErrorDetail[] {
  return errors.flatMap((e) => {
    const field = parent ? `${parent}.${e.property}` : e.property;
    const own = Object.values(e.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...flatten(e.children ?? [], field)];
  });
}

/** A NUL, or a UTF-16 surrogate without its pair: PostgreSQL stores neither in a text column. */
// eslint-disable-next-line no-control-regex -- matching NUL is the point
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNSTORABLE_MESSAGE = 'must not contain NUL characters or unpaired UTF-16 surrogates';

/** Enough to point at the problem; a 64 KiB body of bad strings would otherwise list thousands. */
const MAX_PROBLEMS = 20;

/**
 * What in `value` no DTO rule should ever see: nesting past MAX_INPUT_DEPTH, and strings (values
 * or keys) PostgreSQL cannot store. Iterative, so the check itself cannot overflow the stack.
 */
function unsafeParts(value: unknown, root: string): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const pending: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: '', depth: 0 }];
  for (let next = pending.pop(); next !== undefined && problems.length < MAX_PROBLEMS; next = pending.pop()) {
    const field = next.path || root;
    if (typeof next.value === 'string') {
      if (UNSTORABLE.test(next.value)) problems.push({ field, message: UNSTORABLE_MESSAGE });
    } else if (typeof next.value === 'object' && next.value !== null) {
      if (next.depth === MAX_INPUT_DEPTH) {
        problems.push({ field: field.split('.')[0], message: `must not be nested deeper than ${MAX_INPUT_DEPTH} levels` });
        continue;
      }
      for (const [key, child] of Object.entries(next.value)) {
        const path = next.path ? `${next.path}.${key}` : key;
        if (UNSTORABLE.test(key)) problems.push({ field: path, message: UNSTORABLE_MESSAGE });
        pending.push({ value: child, path, depth: next.depth + 1 });
      }
    }
  }
  return problems;
}

/**
 * Whitelisted, unknown fields refused, every problem listed in `details`. Before the DTO's rules,
 * every body, query and path value is checked for what would otherwise answer 500: nesting that
 * overflows the validators' stack, and text PostgreSQL refuses.
 */
class AppValidationPipe extends ValidationPipe {
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type !== 'custom') {
      const problems = unsafeParts(value, metadata.data ?? metadata.type);
      if (problems.length > 0)
        return Promise.reject(new AppError('validation_failed', 'The request is malformed; see details.', problems.reverse()));
    }
    return super.transform(value, metadata);
  }
}

type ValidationMetadata = ReturnType<MetadataStorage['getTargetValidationMetadatas']>[number];

/**
 * class-validator looks a DTO's rules up anew on every validation, testing every decorated class
 * for an ancestor of it (typestack/class-validator#2686): with Gatehouse's DTOs loaded, a fifth of
 * the validation of a one-field body (4.9 → 4.0 µs kept). A class's rules are all registered when
 * its module loads, so the look-up is kept per class and options, with its grouping by property;
 * registering any rule forgets them all. Look-ups with groups or a schema (Gatehouse uses neither)
 * are left to class-validator. What is kept is frozen: class-validator only reads it.
 */
function rememberRuleLookups(): void {
  const storage = getMetadataStorage();
  const lookUp = storage.getTargetValidationMetadatas.bind(storage);
  const group = storage.groupByPropertyName.bind(storage);
  const register = storage.addValidationMetadata.bind(storage);
  let rules = new WeakMap<object, ValidationMetadata[][]>();
  let grouped = new WeakMap<ValidationMetadata[], ReturnType<typeof group>>();
  storage.addValidationMetadata = (metadata) => {
    rules = new WeakMap();
    grouped = new WeakMap();
    register(metadata);
  };
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    if (schema !== undefined || (groups !== undefined && groups.length > 0)) return lookUp(target, schema, always, strictGroups, groups);
    let byOptions = rules.get(target);
    if (byOptions === undefined) rules.set(target, (byOptions = []));
    const slot = (always ? 2 : 0) + (strictGroups ? 1 : 0);
    return (byOptions[slot] ??= Object.freeze(lookUp(target, schema, always, strictGroups, groups)) as ValidationMetadata[]);
  };
  storage.groupByPropertyName = (metadata) => {
    if (!Object.isFrozen(metadata)) return group(metadata);
    let byProperty = grouped.get(metadata);
    if (byProperty === undefined) {
      byProperty = group(metadata);
      for (const list of Object.values(byProperty)) Object.freeze(list);
      grouped.set(metadata, Object.freeze(byProperty));
    }
    return byProperty;
  };
}

let ruleLookupsRemembered = false;

export function createValidationPipe(): ValidationPipe {
  if (!ruleLookupsRemembered) {
    rememberRuleLookups();
    ruleLookupsRemembered = true;
  }
  return new AppValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: false,
    exceptionFactory: (errors) => new AppError('validation_failed', 'The request is malformed; see details.', flatten(errors)),
  });
}

/** Like @IsOptional(), but null is validated (and refused) instead of skipped. */
export const IsOmittable = () => ValidateIf((_: object, value: unknown) => value !== undefined);
