import type { Config } from '../config';
import { NullGeocoder, type Geocoder } from './geocoder';
import { HttpGeocoder } from './http-geocoder';
import { OfflineGeocoder } from './offline-geocoder';

/** The geocoder chosen by `GEOCODER` (PRODUCT.md section 8); offline by default. */
export function createGeocoder(config: Config): Geocoder {
  switch (config.geocoder.kind) {
    case 'offline':
      return new OfflineGeocoder();
    case 'http':
      return new HttpGeocoder(config.geocoder.url!, config.geocoder.timeoutMs);
    case 'none':
      return new NullGeocoder();
  }
}
