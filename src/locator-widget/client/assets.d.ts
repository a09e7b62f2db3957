/** esbuild's `text` loader: a stylesheet imported as its text (put into the widget's shadow root). */
declare module '*.css' {
  const text: string;
  export default text;
}

/** Set at bundle time from the server's configuration (`LOCATOR_TILE_URL`, `LOCATOR_TILE_ATTRIBUTION`). */
declare const __LEADNET_LOCATOR__: { tileUrl: string; tileAttribution: string };
