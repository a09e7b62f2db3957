import type { AddressQuery, Coordinates, Geocoder } from '../../src/geo/geocoder';

/** A geocoder for tests: places every address at a fixed point except those in the city `Nowhere`, and records each call. */
export class RecordingGeocoder implements Geocoder {
  readonly calls: AddressQuery[] = [];

  constructor(private readonly point: Coordinates = { latitude: 45.52, longitude: -122.68 }) {}

  async geocode(address: AddressQuery): Promise<Coordinates | null> {
    this.calls.push({
      streetLineOne: address.streetLineOne ?? null,
      postalCode: address.postalCode ?? null,
      city: address.city ?? null,
      province: address.province ?? null,
      country: address.country ?? null,
    });
    return address.city === 'Nowhere' ? null : this.point;
  }
}
