import { getMetadataStorage, type MetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

/** A DTO class, as class-validator keys its metadata. */
export type Constructor = abstract new (...args: never[]) => unknown;

/**
 * Every rule class-validator holds for a DTO class, its parents' included, whatever the
 * group: what the validation pipe's own passes (code-point-length.ts, member-errors.ts)
 * read once per class and cache.
 */
export function validationMetadataOf(target: Constructor): readonly ValidationMetadata[] {
  return getMetadataStorage().getTargetValidationMetadatas(target, '', true, false);
}

const CACHED = Symbol('rule lookups cached');
type Storage = MetadataStorage & { [CACHED]?: true };
type Lookup = MetadataStorage['getTargetValidationMetadatas'];
type Grouping = MetadataStorage['groupByPropertyName'];

/**
 * class-validator finds a class's rules anew for every object it validates: it walks
 * every class that has rules (an `instanceof` each, for inherited ones), filters their
 * rules and groups them by property, and it has no option to keep them; keeping them
 * here took about 5.5 % off an order's instructions (docs/performance.md). A class's
 * rules change only when a decorator adds one, at load time, so both lookups are kept
 * per class and options, and all are dropped whenever a rule is added. The lists handed
 * out are frozen: they are shared from then on. class-validator keeps one storage per
 * process, reached through `getMetadataStorage()` by the decorators and by `validate`, so
 * its methods are wrapped in place rather than replaced by a subclass. Installing twice
 * changes nothing.
 */
export function cacheRuleLookups(storage: Storage = getMetadataStorage()): void {
  if (storage[CACHED]) return;
  storage[CACHED] = true;
  let lookups = new Map<unknown, Map<string, ValidationMetadata[]>>();
  let groupings = new WeakMap<ValidationMetadata[], ReturnType<Grouping>>();

  const addValidationMetadata = storage.addValidationMetadata.bind(storage);
  storage.addValidationMetadata = (metadata) => {
    addValidationMetadata(metadata);
    lookups = new Map();
    groupings = new WeakMap();
  };

  const lookUp: Lookup = storage.getTargetValidationMetadatas.bind(storage);
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const options = `${always}|${strictGroups}|${groups?.join('\n') ?? ''}|${schema}`;
    let byOptions = lookups.get(target);
    if (!byOptions) lookups.set(target, (byOptions = new Map<string, ValidationMetadata[]>()));
    let rules = byOptions.get(options);
    if (!rules) {
      // frozen, so a write to a shared list throws instead of changing a class's rules
      rules = Object.freeze(
        lookUp(target, schema, always, strictGroups, groups),
      ) as ValidationMetadata[];
      byOptions.set(options, rules);
    }
    return rules;
  };

  const group: Grouping = storage.groupByPropertyName.bind(storage);
  storage.groupByPropertyName = (rules) => {
    let grouped = groupings.get(rules);
    if (!grouped) {
      grouped = Object.freeze(group(rules));
      groupings.set(rules, grouped);
    }
    return grouped;
  };
}
