// Also the permission rule of docs/roles.md ("One way in") over src/**/*.ts: test/architecture/permissions.test.ts.
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

/**
 * "May X do Y?" is asked of a policy (`can` / `authorize`, src/access/policy.ts), never answered in place:
 * outside the policies (`*.policy.ts`, src/access/) and the roles themselves (src/auth/), nothing throws
 * or returns `forbidden()`, compares a caller's role, or looks a table up by role.
 */
const ROLE_MEMBER = "MemberExpression[property.name='role']";
const ROLE_VALUE = "MemberExpression[object.name='Role']";
const PERMISSION_SYNTAX = [
  { selector: "CallExpression[callee.name='forbidden']", message: 'Only policies refuse: ask `authorize(caller, action, target)` (src/access/policy.ts).' },
  {
    selector: `BinaryExpression[operator=/^[!=]==?$/]:matches(:has(> ${ROLE_VALUE}), :has(> ${ROLE_MEMBER}):not(:has(> Identifier[name='undefined'])):not(:has(> Literal[raw='null'])))`,
    message: 'Compare roles in a policy: ask `can(caller, action, target)`.',
  },
  { selector: `SwitchStatement > ${ROLE_MEMBER}.discriminant`, message: 'Switch on roles in a policy: ask `can(caller, action, target)`.' },
  { selector: `MemberExpression[computed=true] > ${ROLE_MEMBER}.property`, message: "Look tables up by role in a policy (or `writableBy`)." },
  { selector: "CallExpression[callee.property.name='includes'] > MemberExpression[property.name='role'].arguments", message: 'Test role membership in a policy.' },
  { selector: "CallExpression[callee.name=/^is(Company|Retailer)Role$/]", message: 'Role groups are read by policies (src/access/audience.ts).' },
  { selector: "Literal[value=/\\b\\w+\\.role\\s*(=|<>|!=|in\\s*\\()/]", message: 'SQL that picks users by role belongs to a policy.' },
  { selector: "TemplateElement[value.raw=/\\b\\w+\\.role\\s*(=|<>|!=|in\\s*\\()/]", message: 'SQL that picks users by role belongs to a policy.' },
];

module.exports = [
  {
    files: ['src/**/*.ts'],
    // The demo network's data names its people by role (src/modules/demo/, `*.demo.ts`): no decision there.
    ignores: ['src/**/*.policy.ts', 'src/access/**', 'src/auth/**', 'src/modules/demo/**', 'src/**/*.demo.ts', 'src/locator-widget/client/**'],
    languageOptions: { parser: require('@typescript-eslint/parser') },
    rules: {
      'no-restricted-syntax': ['error', ...PERMISSION_SYNTAX],
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/access/audience'], message: 'Role groups are read by policies only.' }] }],
    },
  },
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
            types: ['Facet', 'FacetBucket', 'GeneratedApiKey', 'HourExceptionSpan', 'ImportReport', 'ImportRowError', 'LeadFunnelReasonCount', 'LeadFunnelRevenue', 'LeadFunnelRow', 'LeadMerge', 'LeadOutcome', 'LeadResponseStatsRow', 'LocatorDemandCell', 'LocatorDemandGroup', 'LocatorDemandNearest', 'LocatorDemandReport', 'NotificationDeliveryLogEntry', 'NotificationPreferences', 'PageInfo', 'RoutingDecision', 'ResponseTimeSettings', 'RetentionDryRun', 'RetentionSettings', 'RoutingSettings', 'SearchMeta', 'WebhookDeliveryAttempt', 'WebhookEndpointSecret'],
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
