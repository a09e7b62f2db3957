import { allow } from 'graphql-shield';
import { isNetworkUser } from '../../graphql/rules';

/** Who reaches the lead fields; record scope and write rights are checked in LeadService / LeadActivityService. */
export const leadPermissions = {
  Query: {
    leads: isNetworkUser,
    lead: isNetworkUser,
    leadTimeline: isNetworkUser,
    leadActivities: isNetworkUser,
    leadActivity: isNetworkUser,
  },
  Mutation: {
    createLead: isNetworkUser,
    updateLead: isNetworkUser,
    replaceLead: isNetworkUser,
    deleteLead: isNetworkUser,
    createLeadActivity: isNetworkUser,
    updateLeadActivity: isNetworkUser,
    replaceLeadActivity: isNetworkUser,
    deleteLeadActivity: isNetworkUser,
  },
  Lead: allow,
  LeadPage: allow,
  LeadAssignee: allow,
  LeadActivity: allow,
  LeadActivityPage: allow,
  Email: allow,
  PhoneNumber: allow,
  Location: allow,
};
