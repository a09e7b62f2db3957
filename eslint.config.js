// Lints schema/schema.graphql (the emitted SDL; `npm run schema:emit`) with @graphql-eslint's schema
// rules. test/graphql/schema-lint.test.ts runs it in `npm test`; `npx eslint schema/schema.graphql`
// prints the same report. Why each rule is kept, changed or off: docs/graphql.md, "Linting".
const graphql = require('@graphql-eslint/eslint-plugin');

/** Enums whose values clients already send and receive; every other enum is SCREAMING_SNAKE_CASE. */
const LEGACY_ENUMS = ['Role', 'RoutingRule', 'WebhookEvent'];
/** Input names the filter and nested-write contracts reserve (docs/graphql.md, "Naming"). */
const RESERVED_INPUTS = '^_(and|or|not|destroy)$';
// The recommended naming options, with enum values handled per enum below.
const { EnumValueDefinition: _enumValues, ...RECOMMENDED_NAMES } = graphql.configs['flat/schema-recommended'].rules['@graphql-eslint/naming-convention'][1];

module.exports = [
  {
    files: ['schema/**/*.graphql'],
    // Schema-aware rules (unreachable types, Relay shapes) read the same file as the schema.
    languageOptions: { parser: graphql.parser, parserOptions: { graphQLConfig: { schema: 'schema/schema.graphql' } } },
    plugins: { '@graphql-eslint': graphql },
    rules: {
      ...graphql.configs['flat/schema-recommended'].rules,
      ...graphql.configs['flat/schema-relay'].rules,
      // Every part of the schema explains itself in GraphiQL's docs pane.
      '@graphql-eslint/require-description': [
        'error',
        { types: true, rootField: true, FieldDefinition: true, InputValueDefinition: true, EnumValueDefinition: true, DirectiveDefinition: true },
      ],
      '@graphql-eslint/naming-convention': [
        'error',
        {
          ...RECOMMENDED_NAMES,
          InputValueDefinition: { style: 'camelCase', ignorePattern: RESERVED_INPUTS },
          [`EnumValueDefinition[parent.name.value!=/^(${LEGACY_ENUMS.join('|')})$/]`]: 'UPPER_CASE',
          // `CompanyStoreType` is a resource's name (contract and REST), not a "Type" suffix.
          'ObjectTypeDefinition,ObjectTypeExtension': { ...RECOMMENDED_NAMES['ObjectTypeDefinition,ObjectTypeExtension'], ignorePattern: '^CompanyStoreType$' },
        },
      ],
      // Value objects (a page's meta, a facet, an import report, a routing decision...) have no identity;
      // connections, edges and pages are containers.
      '@graphql-eslint/strict-id-in-types': [
        'error',
        {
          acceptedIdNames: ['id'],
          acceptedIdTypes: ['ID'],
          exceptions: {
            suffixes: ['Connection', 'Edge', 'Page'],
            types: ['Facet', 'FacetBucket', 'GeneratedApiKey', 'ImportReport', 'ImportRowError', 'LeadMerge', 'LeadResponseStatsRow', 'NotificationPreferences', 'PageInfo', 'RoutingDecision', 'ResponseTimeSettings', 'RoutingSettings', 'SearchMeta', 'WebhookDeliveryAttempt', 'WebhookEndpointSecret'],
          },
        },
      ],
      // Connections also carry `nodes` (a list of records without cursors), and records do not implement
      // a `Node` interface (there is no global `node(id)` query): both are beside what Relay needs.
      '@graphql-eslint/relay-edge-types': ['error', { withEdgeSuffix: true, shouldImplementNode: false, listTypeCanWrapOnlyEdgeType: false }],
      // Off: the contract's own names trip it (`Email.email`, `PhoneNumber.phoneNumber`, `Lead.leadActivities`).
      '@graphql-eslint/no-typename-prefix': 'off',
    },
  },
];
