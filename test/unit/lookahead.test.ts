import { GraphQLList, GraphQLObjectType, GraphQLSchema, GraphQLString, parse } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { selectedFields } from '../../src/graphql/lookahead';

// A list field whose resolver reports what its records are asked for, as the list resolvers do.
const seen: string[][] = [];
const Item = new GraphQLObjectType({ name: 'Item', fields: { a: { type: GraphQLString }, b: { type: GraphQLString }, c: { type: GraphQLString } } });
const Page = new GraphQLObjectType({ name: 'Page', fields: { nodes: { type: new GraphQLList(Item) } } });
const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      items: {
        type: Page,
        resolve: (_root, _args, _ctx, info) => {
          seen.push([...selectedFields(info, ['nodes'])].sort());
          return { nodes: [] };
        },
      },
    },
  }),
});

test('a compiled operation run again with other @include and @skip variables gets the fields those select', async () => {
  const document = parse(`query($withB: Boolean!, $noC: Boolean!) { items { nodes { a b @include(if: $withB) ...C } } }
    fragment C on Item { c @skip(if: $noC) }`);
  const compiled = compileQuery(schema, document);
  if (!isCompiledQuery(compiled)) throw new Error('not compiled');
  seen.length = 0;
  for (const variables of [
    { withB: true, noC: false },
    { withB: false, noC: false },
    { withB: true, noC: true },
    { withB: true, noC: false },
    { withB: false, noC: true },
  ]) {
    await compiled.query(undefined, {}, variables);
  }
  expect(seen).toEqual([['a', 'b', 'c'], ['a', 'c'], ['a', 'b'], ['a', 'b', 'c'], ['a']]);
});
