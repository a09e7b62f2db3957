/** `opts_where` -> `optsWhere`: the contract's snake_case names as GraphQL's camelCase ones. */
export const camel = (s: string) => s.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
/** `optsWhere` -> `opts_where`. */
export const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
