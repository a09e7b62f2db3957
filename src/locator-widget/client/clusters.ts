import * as L from 'leaflet';

/** A store's marker and where the store is. */
export interface Pin {
  id: string;
  latlng: L.LatLng;
  marker: L.Marker;
}

export interface ClusterOptions {
  /** Markers closer than this many pixels (their size) are drawn as one. */
  radius: number;
  /** The accessible name of a cluster of `pins` (in list order). */
  label(pins: Pin[]): string;
}

/**
 * Overlapping markers drawn as one (a small clustering of our own: leaflet.markercluster extends the page's
 * global `L`, which the finder does not leave behind). At each zoom, pins are grouped greedily in list
 * order: a pin joins the first group whose first pin is within `radius` pixels, else starts one. A group
 * that zooming in can split is a round cluster showing its count (click or Enter: zoom until it splits);
 * a group that even the deepest zoom cannot split (stores at one address, or the same postal centroid) is
 * fanned out around its place, each marker joined to it by a short line.
 */
export class Clusters {
  private pins: Pin[] = [];
  private drawn: L.Layer[] = [];

  constructor(
    private readonly map: L.Map,
    private readonly options: ClusterOptions,
  ) {
    map.on('zoomend viewreset', () => this.draw());
  }

  /** Shows `pins` (replacing the previous ones). */
  set(pins: Pin[]): void {
    for (const pin of this.pins) pin.marker.remove();
    this.pins = pins;
    this.draw();
  }

  /** The groups of pins at `zoom`. */
  groups(zoom: number, pins: Pin[] = this.pins): Pin[][] {
    const groups: Array<{ at: L.Point; pins: Pin[] }> = [];
    for (const pin of pins) {
      const at = this.map.project(pin.latlng, zoom);
      const group = groups.find((g) => g.at.distanceTo(at) < this.options.radius);
      if (group) group.pins.push(pin);
      else groups.push({ at, pins: [pin] });
    }
    return groups.map((g) => g.pins);
  }

  private get maxZoom(): number {
    return this.map.getMaxZoom();
  }

  /** Whether zooming in can split `pins`: some two of them are `radius` apart at the deepest zoom. */
  private separable(pins: Pin[]): boolean {
    const points = pins.map((p) => this.map.project(p.latlng, this.maxZoom));
    return points.some((a, i) => points.slice(i + 1).some((b) => a.distanceTo(b) >= this.options.radius));
  }

  /** How `pins` are drawn at `zoom`: as a cluster (`bubble`) or each on its own (single or fanned). */
  private bubbles(pins: Pin[], zoom: number): boolean {
    return pins.length > 1 && zoom < this.maxZoom && this.separable(pins);
  }

  private draw(): void {
    for (const layer of this.drawn) layer.remove();
    this.drawn = [];
    for (const pin of this.pins) pin.marker.remove();
    const zoom = this.map.getZoom();
    for (const group of this.groups(zoom)) {
      if (group.length === 1) {
        group[0].marker.setLatLng(group[0].latlng).addTo(this.map);
      } else if (this.bubbles(group, zoom)) {
        this.drawn.push(this.bubble(group));
      } else {
        this.fan(group, zoom);
      }
    }
  }

  private centre(pins: Pin[]): L.LatLng {
    return L.latLngBounds(pins.map((p) => p.latlng)).getCenter();
  }

  private bubble(pins: Pin[]): L.Marker {
    const label = this.options.label(pins);
    const marker = L.marker(this.centre(pins), {
      icon: L.divIcon({ className: 'ln-cluster', html: String(pins.length), iconSize: [36, 36] }),
      title: label,
      alt: label,
      keyboard: true,
      riseOnHover: true,
      zIndexOffset: 500,
    });
    marker.on('add', () => {
      const el = marker.getElement();
      el?.setAttribute('aria-label', label);
      el?.setAttribute('data-store-ids', pins.map((p) => p.id).join(' '));
    });
    marker.on('click', () => this.zoomInto(pins));
    return marker.addTo(this.map);
  }

  /** Stores the deepest zoom still draws on one spot: around it, at equal angles, each joined to it by a line. */
  private fan(pins: Pin[], zoom: number): void {
    const centre = this.map.project(this.centre(pins), zoom);
    const distance = Math.max(this.options.radius * 0.9, (pins.length * (this.options.radius + 4)) / (2 * Math.PI));
    pins.forEach((pin, i) => {
      const angle = -Math.PI / 2 + (2 * Math.PI * i) / pins.length;
      const at = this.map.unproject(centre.add(L.point(Math.cos(angle) * distance, Math.sin(angle) * distance)), zoom);
      this.drawn.push(L.polyline([pin.latlng, at], { className: 'ln-leg', weight: 2, interactive: false }).addTo(this.map));
      pin.marker.setLatLng(at).addTo(this.map);
    });
  }

  /** The smallest zoom above the current one at which `pins` no longer stay one cluster. */
  private splitZoom(pins: Pin[]): number {
    for (let z = this.map.getZoom() + 1; z < this.maxZoom; z++) {
      const groups = this.groups(z, pins);
      if (groups.length > 1 || !this.bubbles(groups[0], z)) return z;
    }
    return this.maxZoom;
  }

  /** Zooms in on a cluster until it splits, keeping all its stores in view. */
  private zoomInto(pins: Pin[]): void {
    const before = this.map.getZoom();
    this.map.fitBounds(L.latLngBounds(pins.map((p) => p.latlng)), { maxZoom: this.splitZoom(pins), padding: [48, 48], animate: false });
    if (this.map.getZoom() <= before) this.map.setView(this.centre(pins), before + 1, { animate: false });
  }

  /** Zooms in (if it is in a cluster) and pans (if it is out of view) so the marker of `id` is drawn on its own. */
  reveal(id: string): void {
    const pin = this.pins.find((p) => p.id === id);
    if (!pin) return;
    let zoom = this.map.getZoom();
    while (zoom < this.maxZoom) {
      const group = this.groups(zoom).find((g) => g.includes(pin))!;
      if (!this.bubbles(group, zoom)) break;
      zoom++;
    }
    if (zoom !== this.map.getZoom()) this.map.setView(pin.latlng, zoom, { animate: false });
    else if (!this.map.getBounds().contains(pin.marker.getLatLng())) this.map.panTo(pin.latlng, { animate: false });
  }
}
