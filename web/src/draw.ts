/** Drawing zones with terra-draw: polygon, circle (sent as its polygon) and point modes; "static" pans. */
import type { Map as MapLibreMap } from 'maplibre-gl';
import { TerraDraw, TerraDrawCircleMode, TerraDrawPointMode, TerraDrawPolygonMode } from 'terra-draw';
import { TerraDrawMapLibreGLAdapter } from 'terra-draw-maplibre-gl-adapter';
import type { Point, Polygon } from 'geojson';

export type DrawMode = 'static' | 'polygon' | 'circle' | 'point';
const COLOR = '#d9480f';

export class Drawing {
  private readonly draw: TerraDraw;

  /** `onZone` receives each finished shape's geometry (a circle as its polygon). */
  constructor(map: MapLibreMap, onZone: (geometry: Polygon | Point) => void) {
    this.draw = new TerraDraw({
      adapter: new TerraDrawMapLibreGLAdapter({ map, coordinatePrecision: 7 }),
      modes: [
        new TerraDrawPolygonMode({
          styles: {
            fillColor: COLOR,
            fillOpacity: 0.2,
            outlineColor: COLOR,
            outlineWidth: 2,
            closingPointColor: '#ffffff',
            closingPointOutlineColor: COLOR,
            closingPointOutlineWidth: 2,
          },
        }),
        new TerraDrawCircleMode({ styles: { fillColor: COLOR, fillOpacity: 0.2, outlineColor: COLOR, outlineWidth: 2 } }),
        new TerraDrawPointMode({ styles: { pointColor: COLOR, pointWidth: 5, pointOutlineColor: '#ffffff', pointOutlineWidth: 1.5 } }),
      ],
    });
    this.draw.start();
    this.draw.on('finish', (id, context) => {
      if (context.action !== 'draw') return;
      const feature = this.draw.getSnapshotFeature(id);
      // The shape moves to the page's own zone list (drawn like pasted zones); terra-draw keeps nothing.
      setTimeout(() => {
        if (this.draw.hasFeature(id)) this.draw.removeFeatures([id]);
      }, 0);
      if (feature && (feature.geometry.type === 'Polygon' || feature.geometry.type === 'Point')) onZone(structuredClone(feature.geometry) as Polygon | Point);
    });
  }

  setMode(mode: DrawMode): void {
    this.draw.setMode(mode);
  }

  /** Drops a shape being drawn. */
  clear(): void {
    this.draw.clear();
  }
}
