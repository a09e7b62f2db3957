// The command groups of `leadnet`: one line per module exporting `register(program, runtime)`.
export * as bootstrap from './bootstrap';
export * as data from './data';
export * as keys from './keys';
export * as migrate from './migrate';
export * as seedDemo from './seed-demo';
export * as users from './users';
export * as reindex from './reindex';
export * as search from './search';
export * as dataImport from './import';
export * as audit from './audit';
export * as personalData from './personal-data';
