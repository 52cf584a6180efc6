/** Request pieces shared by the endpoints (CONTRACT §2). */
import { Type } from '@sinclair/typebox';

export const UrlSchema = Type.String({
  minLength: 1,
  maxLength: 4096,
  description: 'http(s)://, s3:// or file:// URL of the source (file:// only inside the configured data roots).',
});

export const StatsSchema = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  minItems: 1,
  maxItems: 64,
  description:
    'Statistics to compute: count, min, max, mean, sum, std, median, percentile_<q>, range, majority, minority, unique, freq_hist, nodata (raster), density (vector). Default ["min","max","mean","count"].',
});

/**
 * The /docs examples run as written against the bundled demo data. They name it as the container sees it;
 * the docs plugin rewrites this prefix to the folder this instance was started from. The STAC examples read
 * the bundled Items over http from 127.0.0.1:8001 (the README's one-line server) or a real public Item.
 */
export const DEMO_URL = 'file:///app/fixtures/demo/';
export const DEMO_STAC_URL = 'http://127.0.0.1:8001/stac/';
export const PUBLIC_S2_ITEM = 'https://earth-search.aws.element84.com/v1/collections/sentinel-2-l2a/items/S2B_33TWN_20240715_0_L2A';

export const DEFAULT_STATS = ['min', 'max', 'mean', 'count'];
