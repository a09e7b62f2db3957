import type { MikroORM } from '@mikro-orm/postgresql';
import { NullGeocoder, type Geocoder } from './geocoder';
import { HttpGeocoder } from './http-geocoder';
import { OfflineGeocoder } from './offline-geocoder';

/** Which geocoder to use (`GEOCODER`, `GEOCODER_URL`, `GEOCODER_TIMEOUT_MS`; parsed by src/config.ts). */
export interface GeocoderConfig {
  kind: 'offline' | 'http' | 'none';
  url?: string;
  timeoutMs: number;
}

/**
 * The geocoder chosen by `GEOCODER` (PRODUCT.md section 8); offline by default, which reads its city
 * gazetteer from the database of `orm` (the table `geo_city`).
 */
export function createGeocoder(config: { geocoder: GeocoderConfig }, orm: Pick<MikroORM, 'em'>): Geocoder {
  switch (config.geocoder.kind) {
    case 'offline':
      return new OfflineGeocoder(orm);
    case 'http':
      return new HttpGeocoder(config.geocoder.url!, config.geocoder.timeoutMs);
    case 'none':
      return new NullGeocoder();
  }
}
