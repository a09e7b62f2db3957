/** Types of the `zipcodes` package (US ZIP and Canadian FSA centroids), which ships none. */
declare module 'zipcodes' {
  interface ZipCode {
    zip: string;
    latitude: number;
    longitude: number;
    city: string;
    state: string;
    country: string;
  }
  const zipcodes: {
    lookup(zip: string): ZipCode | undefined;
    codes: Record<string, ZipCode>;
    states: {
      full: Record<string, string>;
      abbr: Record<string, string>;
      normalize(state: string): string | undefined;
    };
  };
  export = zipcodes;
}
