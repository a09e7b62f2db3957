import type { RestResource } from '../../rest/resource';

export const companyRetailerRest: RestResource = {
  path: '/company_retailers',
  root: 'company_retailer',
  plural: 'company_retailers',
  inputType: 'CompanyRetailerInput',
  operations: {
    list: 'ListCompanyRetailers',
    show: 'ShowCompanyRetailer',
    create: 'CreateCompanyRetailer',
    update: 'UpdateCompanyRetailer',
    replace: 'ReplaceCompanyRetailer',
    destroy: 'DeleteCompanyRetailer',
  },
  associations: ['retailer', 'company', 'territory', 'physical_address'],
};
