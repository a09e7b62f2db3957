import { allow, deny } from 'graphql-shield';
import { withoutAllowedFields } from '../../src/graphql/schema';

test('only the wrappers of fields allowed outright are dropped; deny fallbacks and real rules stay', () => {
  const wrap = () => undefined;
  const middleware = {
    Query: { products: wrap, secret: wrap },
    Product: { id: wrap, sku: wrap },
    User: { email: wrap, notes: wrap },
    Unlisted: { x: wrap },
  };
  const rules = { Query: { products: deny }, Product: allow, User: { email: allow } };
  expect(withoutAllowedFields(middleware as any, rules)).toEqual({
    Query: { products: wrap, secret: wrap },
    User: { notes: wrap },
    Unlisted: { x: wrap },
  });
});
