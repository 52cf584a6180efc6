/**
 * deploy/: the smoke test with real nginx and the real Redis (deploy/smoke.sh: 3 instances, steady load
 * through nginx, one instance SIGKILLed mid-load and restarted: 0 failed requests; then deploy/smoke-jobs.sh:
 * 3 API replicas and 2 `zonal worker` processes, one worker SIGKILLed mid-job: every zone's row once, equal
 * to the direct answer), and the manifests read statically (probes on the service's own health routes, a PDB
 * and an HPA on the Deployment; Redis, the workers and the results store in compose and Kubernetes).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';

const ROOT = new URL('../../', import.meta.url).pathname;
const nginx =
  ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p)) ?? (spawnSync('sh', ['-c', 'command -v nginx']).stdout.toString().trim() || null);
if (!nginx) console.warn('deploy smoke test SKIPPED: no nginx on this machine (.ci/run installs it: apt-get install nginx)');

const read = (f: string) => readFileSync(`${ROOT}deploy/k8s/${f}`, 'utf8');
/** The document of that kind in a manifest file. */
const find = (f: string, kind: string): unknown =>
  parseAllDocuments(read(f))
    .map((d) => d.toJS() as unknown)
    .find((d) => at(d, 'kind') === kind);
/** The value at a dotted path (`spec.template.spec.containers.0`), undefined where there is none. */
function at(tree: unknown, path: string): unknown {
  let v = tree;
  for (const key of path.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  return v;
}

describe('deploy/', () => {
  it.skipIf(!nginx)(
    'smoke.sh: 3 instances behind nginx, one killed mid-load and restarted, 0 failed; a job survives a worker SIGKILLed mid-job',
    () => {
      const out = execFileSync('bash', ['deploy/smoke.sh'], {
        cwd: ROOT,
        env: { ...process.env, DURATION_S: '9', BASE_PORT: '3141', NGINX_PORT: '8141' },
        encoding: 'utf8',
        // A build when dist/ is stale, 9 s of load, then a job of several seconds on a possibly busy machine.
        timeout: 600_000,
      });
      const lines = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const load = lines.find((l) => 'sent' in l) as { sent: number; failed: number };
      // How many were sent depends on the machine's load; what is asserted is that none failed.
      expect(load.sent).toBeGreaterThan(0);
      expect(load.failed).toBe(0);
      const job = lines.find((l) => 'zones' in l) as Record<string, unknown>;
      expect(job).toMatchObject({ rows: job['zones'], duplicates: 0, gaps: 0, mismatches: 0, errors: 0, status: 'successful' });
      expect(job['killed_at_progress']).not.toBeNull();
    },
    660_000,
  );

  it('the Kubernetes manifests probe the service’s health routes and keep replicas through disruptions', () => {
    const d = read('deployment.yaml');
    expect(d).toMatch(/livenessProbe:\s*\n\s*httpGet: \{ path: \/health\/live/);
    expect(d).toMatch(/readinessProbe:\s*\n\s*httpGet: \{ path: \/health\/ready/);
    expect(d).toMatch(/resources:\s*\n\s*requests:/);
    expect(d).toMatch(/terminationGracePeriodSeconds: (\d+)/);
    expect(Number(/terminationGracePeriodSeconds: (\d+)/.exec(d)?.[1])).toBeGreaterThanOrEqual(35); // drain delay 5 s + grace 30 s
    expect(read('service.yaml')).toMatch(/kind: Service/);
    expect(read('pdb.yaml')).toMatch(/kind: PodDisruptionBudget[\s\S]*minAvailable: 2/);
    expect(read('hpa.yaml')).toMatch(/kind: HorizontalPodAutoscaler[\s\S]*name: zonal-stats/);
    expect(readFileSync(`${ROOT}deploy/compose.yaml`, 'utf8')).toMatch(/replicas: 3/);
  });

  it('Kubernetes: a Redis Service, the jobs configuration shared by the replicas and the workers, results in S3', () => {
    const service = find('redis.yaml', 'Service');
    const redis = find('redis.yaml', 'StatefulSet');
    expect(read('redis.yaml')).toMatch(/managed Redis/);
    expect(at(service, 'metadata.name')).toBe('zonal-redis');
    expect(at(service, 'spec.ports.0.port')).toBe(6379);
    expect(at(redis, 'spec.replicas')).toBe(1);
    expect((at(redis, 'spec.template.spec.containers.0.args') as string[]).join(' ')).toMatch(/--appendonly yes.*--maxmemory-policy noeviction/);
    const config = find('jobs-config.yaml', 'ConfigMap');
    expect(at(config, 'data.ZONAL_REDIS_URL')).toBe(`redis://${at(service, 'metadata.name') as string}:6379/0`);
    expect(at(config, 'data.ZONAL_RESULTS_URL')).toMatch(/^s3:\/\/[^/]+\//);
    expect(read('jobs-config.yaml')).toMatch(/IRSA/);
    const api = at(find('deployment.yaml', 'Deployment'), 'spec.template.spec.containers.0');
    expect(at(api, 'envFrom')).toContainEqual({ configMapRef: { name: at(config, 'metadata.name') } });
    expect(at(api, 'env')).toContainEqual({ name: 'ZONAL_JOB_WORKER', value: '0' });
  });

  it('Kubernetes: the workers run `zonal worker` non-root on a read-only root, with resources, and outlive their task lock when stopped', () => {
    const worker = find('worker.yaml', 'Deployment');
    const pod = at(worker, 'spec.template.spec');
    const c = at(pod, 'containers.0');
    expect(at(c, 'command')).toEqual(['node', 'dist/cli/main.js', 'worker']);
    expect(at(pod, 'securityContext.runAsNonRoot')).toBe(true);
    expect(at(pod, 'securityContext.runAsUser')).toBeGreaterThan(0);
    expect(at(c, 'securityContext')).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    for (const r of ['requests', 'limits']) expect(at(c, `resources.${r}`)).toMatchObject({ cpu: expect.anything(), memory: expect.anything() });
    const config = find('jobs-config.yaml', 'ConfigMap');
    expect(at(c, 'envFrom')).toContainEqual({ configMapRef: { name: at(config, 'metadata.name') } });
    expect(Number(at(pod, 'terminationGracePeriodSeconds')) * 1000).toBeGreaterThanOrEqual(Number(at(config, 'data.ZONAL_JOB_LOCK_MS')));
    const hpa = find('hpa-worker.yaml', 'HorizontalPodAutoscaler');
    expect(at(hpa, 'spec.scaleTargetRef.name')).toBe(at(worker, 'metadata.name'));
    expect(at(hpa, 'spec.metrics.0.external.metric.name')).toBe('zonal_job_queue_depth');
    expect(read('hpa-worker.yaml')).toMatch(/metrics adapter/);
  });

  it('compose: Redis with an append-only file, 2 workers, and the results volume at the same path in the replicas and the workers', () => {
    const compose = parse(readFileSync(`${ROOT}deploy/compose.yaml`, 'utf8'), { merge: true }) as unknown;
    const [zonal, worker, redis] = ['zonal', 'worker', 'redis'].map((s) => at(compose, `services.${s}`));
    expect(at(redis, 'image')).toBe('redis:7-alpine');
    expect((at(redis, 'command') as string[]).join(' ')).toMatch(/--appendonly yes/);
    expect(at(redis, 'volumes')).toContain('redis:/data');
    expect(at(worker, 'command')).toEqual(['node', 'dist/cli/main.js', 'worker']);
    expect(at(worker, 'image')).toBe(at(zonal, 'image'));
    expect(at(worker, 'deploy.replicas')).toBe(2);
    expect(at(zonal, 'deploy.replicas')).toBe(3);
    for (const s of [zonal, worker]) {
      expect(at(s, 'environment.ZONAL_REDIS_URL')).toBe('redis://redis:6379/0');
      expect(at(s, 'environment.ZONAL_RESULTS_URL')).toBe('file:///results');
      expect(at(s, 'volumes')).toContain('results:/results');
      const grace = Number(/^(\d+)s$/.exec(at(s, 'stop_grace_period') as string)?.[1]);
      expect(grace * 1000).toBeGreaterThanOrEqual(Number(at(s, 'environment.ZONAL_JOB_LOCK_MS')));
    }
    expect(at(zonal, 'environment.ZONAL_JOB_WORKER')).toBe('0');
    expect(Object.keys(at(compose, 'volumes') as object)).toEqual(expect.arrayContaining(['redis', 'results']));
  });

  it('the worker command the manifests run is one the CLI has, and the image holds it', () => {
    expect(readFileSync(`${ROOT}src/cli/main.ts`, 'utf8')).toMatch(/\.command\('worker'\)/);
    // The image copies the whole compiled dist/, where src/cli/main.ts compiles to dist/cli/main.js.
    expect(readFileSync(`${ROOT}Dockerfile`, 'utf8')).toMatch(/^COPY --from=build \/app\/dist \.\/dist$/m);
  });
});
