/** The MapLibre map: background, graticule, optional basemap, the source's footprint and preview, the zones. */
import { Map as MapLibreMap, NavigationControl, ScaleControl, setWorkerUrl, type GeoJSONSource, type StyleSpecification } from 'maplibre-gl';
import type { FeatureCollection, Geometry, Polygon } from 'geojson';
import type { Basemap, Preview } from './api.ts';
import { graticule } from './graticule.ts';
import { previewCanvas } from './ramp.ts';

declare const __MAPLIBRE_WORKER__: string;

const EMPTY: FeatureCollection = { type: 'FeatureCollection', features: [] };
const ZONE_COLOR = '#d9480f';

function style(basemap: Basemap | null): StyleSpecification {
  const spec: StyleSpecification = {
    version: 8,
    sources: {
      graticule: { type: 'geojson', data: EMPTY },
      footprint: { type: 'geojson', data: EMPTY },
      zones: { type: 'geojson', data: EMPTY },
    },
    layers: [{ id: 'background', type: 'background', paint: { 'background-color': '#f3f5f7' } }],
  };
  if (basemap) {
    spec.sources['basemap'] = {
      type: 'raster',
      tiles: [basemap.tiles],
      tileSize: 256,
      maxzoom: 19,
      ...(basemap.attribution ? { attribution: basemap.attribution } : {}),
    };
    spec.layers.push({ id: 'basemap', type: 'raster', source: 'basemap' });
  }
  spec.layers.push(
    { id: 'graticule', type: 'line', source: 'graticule', paint: { 'line-color': '#b8c2cc', 'line-width': ['case', ['get', 'major'], 1, 0.5] } },
    { id: 'footprint-fill', type: 'fill', source: 'footprint', paint: { 'fill-color': '#3b528b', 'fill-opacity': 0.08 } },
    // (the preview raster layer goes here, below the outline)
    { id: 'footprint-line', type: 'line', source: 'footprint', paint: { 'line-color': '#3b528b', 'line-width': 1.5 } },
    {
      id: 'zones-fill',
      type: 'fill',
      source: 'zones',
      filter: ['==', ['geometry-type'], 'Polygon'],
      paint: { 'fill-color': ZONE_COLOR, 'fill-opacity': ['case', ['boolean', ['get', 'selected'], false], 0.28, 0.12] },
    },
    {
      id: 'zones-line',
      type: 'line',
      source: 'zones',
      filter: ['==', ['geometry-type'], 'Polygon'],
      paint: { 'line-color': ZONE_COLOR, 'line-width': ['case', ['boolean', ['get', 'selected'], false], 3, 2] },
    },
    {
      id: 'zones-point',
      type: 'circle',
      source: 'zones',
      filter: ['==', ['geometry-type'], 'Point'],
      paint: { 'circle-color': ZONE_COLOR, 'circle-radius': 5, 'circle-stroke-color': '#fff', 'circle-stroke-width': 1.5 },
    },
  );
  return spec;
}

export class ZonalMap {
  readonly map: MapLibreMap;
  private previewCanvas: HTMLCanvasElement | null = null;

  private constructor(map: MapLibreMap) {
    this.map = map;
  }

  /** Resolves once the style is loaded (sources and layers can be set). */
  static create(container: HTMLElement, basemap: Basemap | null): Promise<ZonalMap> {
    setWorkerUrl(new URL(__MAPLIBRE_WORKER__, import.meta.url).href);
    const map = new MapLibreMap({
      container,
      style: style(basemap),
      center: [0, 20],
      zoom: 1,
      attributionControl: { compact: true },
      renderWorldCopies: false,
    });
    map.addControl(new NavigationControl({ showCompass: false }), 'top-right');
    map.addControl(new ScaleControl({ unit: 'metric' }), 'bottom-left');
    const zmap = new ZonalMap(map);
    return new Promise((resolve) => {
      map.once('load', () => {
        zmap.updateGraticule();
        map.on('moveend', () => zmap.updateGraticule());
        resolve(zmap);
      });
    });
  }

  private updateGraticule(): void {
    const b = this.map.getBounds();
    const width = this.map.getContainer().clientWidth;
    void (this.map.getSource('graticule') as GeoJSONSource).setData(graticule(b.getWest(), b.getSouth(), b.getEast(), b.getNorth(), width > 700 ? 7 : 4));
  }

  /** The source's outline and, for rasters, its coloured preview; the view fitted to `bounds`. */
  showSource(footprint: Polygon | null, bounds: [number, number, number, number] | null, preview: Preview | null): void {
    const shown: Polygon | null = footprint && { type: 'Polygon', coordinates: footprint.coordinates.map((r) => r.map(([x, y]) => [x!, mercatorLat(y!)])) };
    void (this.map.getSource('footprint') as GeoJSONSource).setData(shown ? { type: 'Feature', properties: {}, geometry: shown } : EMPTY);
    this.clearPreview();
    if (preview && preview.width > 0 && preview.height > 0) {
      this.previewCanvas = previewCanvas(preview);
      this.map.addSource('preview', { type: 'canvas', canvas: this.previewCanvas, coordinates: preview.corners, animate: false });
      this.map.addLayer(
        { id: 'preview', type: 'raster', source: 'preview', paint: { 'raster-opacity': 0.85, 'raster-resampling': 'nearest', 'raster-fade-duration': 0 } },
        'footprint-line',
      );
    }
    // Bounds across the antimeridian come with west > east (RFC 7946); the map wants east past 180.
    if (bounds)
      this.map.fitBounds(
        [
          [bounds[0], mercatorLat(bounds[1])],
          [bounds[2] < bounds[0] ? bounds[2] + 360 : bounds[2], mercatorLat(bounds[3])],
        ],
        { padding: 40, duration: 0, maxZoom: 16 },
      );
  }

  private clearPreview(): void {
    if (this.map.getLayer('preview')) this.map.removeLayer('preview');
    if (this.map.getSource('preview')) this.map.removeSource('preview');
    this.previewCanvas = null;
  }

  /** The zones to show, each feature's properties carrying `index` and optionally `selected`. */
  setZones(zones: FeatureCollection<Geometry>): void {
    void (this.map.getSource('zones') as GeoJSONSource).setData(zones);
  }

  fitTo(zones: FeatureCollection<Geometry>): void {
    let w = Infinity,
      s = Infinity,
      e = -Infinity,
      n = -Infinity;
    const visit = (c: unknown): void => {
      if (Array.isArray(c) && typeof c[0] === 'number' && typeof c[1] === 'number') {
        w = Math.min(w, c[0]);
        e = Math.max(e, c[0]);
        s = Math.min(s, c[1]);
        n = Math.max(n, c[1]);
      } else if (Array.isArray(c)) c.forEach(visit);
    };
    for (const f of zones.features) if ('coordinates' in f.geometry) visit(f.geometry.coordinates);
    if (Number.isFinite(w))
      this.map.fitBounds(
        [
          [w, s],
          [e, n],
        ],
        { padding: 60, duration: 0, maxZoom: 14 },
      );
  }
}

/**
 * A latitude the map can draw: Web Mercator ends at ±85.05° (a global grid's edge cells, such as a cube's
 * around the poles, reach ±90° and past it).
 */
function mercatorLat(lat: number): number {
  return Math.max(-85.051129, Math.min(85.051129, lat));
}
