/** Saved example operations the IDE opens as tabs: what a dashboard developer asks first. */
export const exampleTabs: Array<{ query: string; variables?: string }> = [
  {
    query: `# The newest leads the key may see, with contacts, assignee and status facets.
# \`where\`, \`order\` and \`aggs\` are typed: press Ctrl-Space inside them for the fields.
query NewestLeads($perPage: Int = 10, $where: LeadWhere) {
  leads(perPage: $perPage, where: $where, order: [CREATED_AT_DESC], aggs: [{field: STATUS}]) {
    meta { total page perPage totalPages facets { field buckets { key docCount } } }
    nodes {
      id
      name
      status
      createdAt
      emails { email }
      phoneNumbers { phoneNumber formatted }
      location { city province country }
      assignee { id name }
    }
  }
}
`,
    variables: '{ "perPage": 10, "where": { "createdAt": { "gte": "2026-01-01" } } }',
  },
  {
    query: `# Response times per store and week: leads received and answered, median and 90th-percentile
# seconds to the first response, first-response times missed, won and lost. Scoped like the lead list.
query ResponseTimes($where: LeadWhere, $groupBy: [ResponseStatsGroup!]) {
  leadResponseStats(where: $where, groupBy: $groupBy) {
    storeId
    week
    received
    answered
    medianFirstResponseSeconds
    p90FirstResponseSeconds
    breaches
    won
    lost
  }
}
`,
    variables: '{ "where": { "createdAt": { "gte": "2026-01-01" } }, "groupBy": ["STORE", "WEEK"] }',
  },
  {
    query: `# The newest lead's whole timeline, newest first. For one lead by its id:
# leadTimeline(leadId: "<id>") { id type createdAt data }
query LeadTimeline {
  leads(perPage: 1, order: [CREATED_AT_DESC]) {
    nodes {
      id
      name
      status
      leadActivities {
        id
        type
        createdAt
        data
      }
    }
  }
}
`,
  },
  {
    query: `# The stores (company retailer locations) of the network, with hours and flags.
query Stores {
  companyRetailerLocations(perPage: 20) {
    meta { total }
    nodes {
      id
      name
      receivingLeads
      physicalAddress { city province country }
      retailerLocationHours { day open openAtHour openAtMinute closeAtHour closeAtMinute }
    }
  }
}
`,
  },
];
