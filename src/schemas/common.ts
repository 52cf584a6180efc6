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

export const DEFAULT_STATS = ['min', 'max', 'mean', 'count'];
