import { getMetadataStorage, IsInt, IsString, validateSync } from 'class-validator';
import { cacheRuleLookups, validationMetadataOf } from './validation-metadata';

class Base {
  @IsString()
  name: unknown;
}

class Derived extends Base {
  @IsInt()
  count: unknown;
}

const failing = (object: object) => validateSync(object).map((e) => e.property);

describe('cacheRuleLookups', () => {
  beforeAll(() => {
    cacheRuleLookups();
    cacheRuleLookups(); // installing again wraps nothing twice
  });

  it('hands out one frozen list per class and options, with the inherited rules', () => {
    const first = validationMetadataOf(Derived);
    expect(validationMetadataOf(Derived)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(first.map((m) => m.propertyName).sort()).toEqual(['count', 'name']);
    const storage = getMetadataStorage();
    expect(storage.getTargetValidationMetadatas(Derived, '', false, false)).not.toBe(first);
    const grouped = storage.groupByPropertyName(
      storage.getTargetValidationMetadatas(Derived, '', false, false),
    );
    expect(
      storage.groupByPropertyName(storage.getTargetValidationMetadatas(Derived, '', false, false)),
    ).toBe(grouped);
  });

  it('validates as class-validator does, the parent class rules included', () => {
    expect(failing(Object.assign(new Derived(), { name: 5, count: 'x' })).sort()).toEqual([
      'count',
      'name',
    ]);
    expect(failing(Object.assign(new Derived(), { name: 'a', count: 1 }))).toEqual([]);
  });

  it('sees a rule added after a class was validated, in the class and its subclasses', () => {
    expect(failing(Object.assign(new Derived(), { name: 'a', count: 1, late: 5 }))).toEqual([]);
    IsString()(Base.prototype, 'late');
    expect(failing(Object.assign(new Derived(), { name: 'a', count: 1, late: 5 }))).toEqual([
      'late',
    ]);
    expect(validationMetadataOf(Base).map((m) => m.propertyName)).toContain('late');
  });
});
