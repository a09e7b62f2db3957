/** The address parts a geocoder reads (a Location's fields). */
export interface AddressQuery {
  streetLineOne?: string | null;
  streetLineTwo?: string | null;
  postalCode?: string | null;
  city?: string | null;
  province?: string | null;
  country?: string | null;
}

export interface Coordinates {
  latitude: number;
  longitude: number;
}

/**
 * Turns an address into coordinates. Implementations never throw for an address they cannot place:
 * they return null, and the write that asked goes on (PRODUCT.md section 8).
 */
export interface Geocoder {
  geocode(address: AddressQuery): Promise<Coordinates | null>;
}

/** Places nothing; used until a real geocoder is configured. */
export class NullGeocoder implements Geocoder {
  async geocode(): Promise<Coordinates | null> {
    return null;
  }
}
