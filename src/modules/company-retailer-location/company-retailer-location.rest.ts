import type { RestResource } from '../../rest/resource';

export const companyRetailerLocationRest: RestResource = {
  path: '/company_retailer_locations',
  root: 'company_retailer_location',
  plural: 'company_retailer_locations',
  inputType: 'CompanyRetailerLocationInput',
  operations: {
    list: 'ListCompanyRetailerLocations',
    show: 'ShowCompanyRetailerLocation',
    create: 'CreateCompanyRetailerLocation',
    update: 'UpdateCompanyRetailerLocation',
    destroy: 'DeleteCompanyRetailerLocation',
  },
  // SPEC 4.4: the nested objects travel beside the root key.
  bodyKeys: ['physical_address', 'general_email', 'general_phone_number', 'delivery_areas', 'retailer_location_hours', 'hour_exceptions'],
  associations: ['physical_address', 'general_email', 'general_phone_number', 'delivery_areas', 'retailer_location_hours', 'hour_exceptions'],
};
