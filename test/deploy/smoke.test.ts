/**
 * deploy/: the smoke test with real nginx (deploy/smoke.sh: 3 instances, steady load through nginx, one
 * instance SIGKILLed mid-load and restarted: 0 failed requests), and the Kubernetes manifests read
 * statically (probes on the service's own health routes, a PDB and an HPA on the Deployment).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const nginx =
  ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p)) ?? (spawnSync('sh', ['-c', 'command -v nginx']).stdout.toString().trim() || null);
if (!nginx) console.warn('deploy smoke test SKIPPED: no nginx on this machine (.ci/run installs it: apt-get install nginx)');

describe('deploy/', () => {
  it.skipIf(!nginx)(
    'smoke.sh: 3 instances behind nginx, one killed mid-load and restarted, 0 failed',
    () => {
      const out = execFileSync('bash', ['deploy/smoke.sh'], {
        cwd: ROOT,
        env: { ...process.env, DURATION_S: '9', BASE_PORT: '3141', NGINX_PORT: '8141' },
        encoding: 'utf8',
        timeout: 120_000,
      });
      const result = JSON.parse(out.trim().split('\n').pop() as string) as { sent: number; failed: number; p99_ms: number };
      expect(result.sent).toBeGreaterThan(500);
      expect(result.failed).toBe(0);
    },
    150_000,
  );

  it('the Kubernetes manifests probe the service’s health routes and keep replicas through disruptions', () => {
    const read = (f: string) => readFileSync(`${ROOT}deploy/k8s/${f}`, 'utf8');
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
});
