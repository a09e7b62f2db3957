import { Company } from '../modules/company/company.entity';
import { Retailer } from '../modules/retailer/retailer.entity';
import { RetailerLocation } from '../modules/retailer-location/retailer-location.entity';
import { Hour } from '../modules/retailer-location/hour.entity';
import { Territory } from '../modules/territory/territory.entity';
import { CompanyStoreType } from '../modules/company-store-type/company-store-type.entity';
import { Collection } from '../modules/collection/collection.entity';
import { Product } from '../modules/product/product.entity';
import { ProductImage } from '../modules/product/product-image.entity';
import { Stock } from '../modules/product/stock.entity';
import { CompanyRetailer } from '../modules/company-retailer/company-retailer.entity';
import { CompanyRetailerLocation } from '../modules/company-retailer-location/company-retailer-location.entity';
import { DeliveryArea } from '../modules/company-retailer-location/delivery-area.entity';
import { Location } from '../modules/contact/location.entity';
import { Email } from '../modules/contact/email.entity';
import { PhoneNumber } from '../modules/contact/phone-number.entity';
import { User } from '../modules/user/user.entity';
import { ApiKey } from '../modules/user/api-key.entity';
import { Lead } from '../modules/lead/lead.entity';
import { LeadActivity } from '../modules/lead/lead-activity.entity';
import { BaseEntity } from './base.entity';

/** Every entity class, passed to MikroORM explicitly (no globs: they break under jest and tsx alike). */
export const entities = [
  BaseEntity,
  Company,
  Retailer,
  RetailerLocation,
  Hour,
  Territory,
  CompanyStoreType,
  Collection,
  Product,
  ProductImage,
  Stock,
  CompanyRetailer,
  CompanyRetailerLocation,
  DeliveryArea,
  Location,
  Email,
  PhoneNumber,
  User,
  ApiKey,
  Lead,
  LeadActivity,
];
