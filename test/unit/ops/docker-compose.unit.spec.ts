import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { replicatedStreamBugsOf } from '../../../src/infra/nats-server-version.js';
import { COMPOSE_NATS_USERS, natsAuthorizationConfig } from '../../../src/infra/nats-permissions.js';
import { projectRoot } from '../../../src/infra/project-root.js';
import { STORAGE_ENV } from '../../../src/config/storage-config.js';
import { parseLogWitnesses } from '../../../src/config/log-witnesses.js';
import { cosignerFromSeed } from '../../../src/witness/cosigner.js';

/** No Docker engine runs here: docker-compose.yml is checked as data. */
interface Service {
  image?: string;
  command?: string[];
  build?: unknown;
  ports?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  restart?: string;
  deploy?: { replicas?: number };
  security_opt?: string[];
  volumes?: string[];
}

describe('docker-compose.yml', () => {
  let services: Record<string, Service>;
  before(async () => {
    const text = await readFile(join(projectRoot, 'docker-compose.yml'), 'utf8');
    services = (parse(text, { merge: true }) as { services: Record<string, Service> }).services;
  });
  const appServices = () => Object.entries(services).filter(([, s]) => s.environment?.['ROLES']);
  const roleOf = (s: Service) => s.environment!['ROLES'];
  /** Every role but the witness, which is given nothing of the deployment (no NATS, no database). */
  const deploymentServices = () => appServices().filter(([, s]) => roleOf(s) !== 'witness');

  it('runs every role, with two API processes behind one entry point', () => {
    const roles = appServices().map(([, s]) => roleOf(s));
    for (const role of ['api', 'worker', 'signer', 'projector', 'dispatcher', 'scheduler', 'sequencer', 'witness'])
      assert.ok(roles.includes(role), role);
    const apis = appServices().filter(([, s]) => roleOf(s) === 'api');
    assert.equal(apis.length, 2);
    for (const [name, s] of apis) assert.equal(s.ports, undefined, `${name} publishes no host port of its own`);
    // Exactly the load balancer is trusted: one hop, never `true` (which believes a client-sent address).
    for (const [name, s] of apis) assert.equal(s.environment!['TRUST_PROXY'], '1', `${name} trusts one proxy hop`);
    const published = Object.entries(services).flatMap(([name, s]) =>
      (s.ports ?? []).map((p) => ({ name, host: p.split(':')[0] })),
    );
    assert.equal(new Set(published.map((p) => p.host)).size, published.length, 'no host port is bound twice');
    // The balancer alone publishes ports: the API's origin and the replay origin.
    assert.deepEqual(
      published.map((p) => `${p.name}:${p.host}`),
      ['lb:8080', 'lb:8081'],
    );
  });

  it('pins every image to a version, NATS to one without the clustered concurrency bugs', () => {
    for (const [name, s] of Object.entries(services)) {
      if (!s.image) continue;
      const tag = s.image.split(':')[1] ?? '';
      assert.match(tag, /^\d+\.\d+/, `${name}: ${s.image} is pinned to a release, not a floating major`);
    }
    const natsImages = Object.entries(services)
      .filter(([n]) => n.startsWith('nats-'))
      .map(([, s]) => s.image!);
    assert.equal(natsImages.length, 3);
    for (const image of natsImages)
      assert.deepEqual(replicatedStreamBugsOf(image.split(':')[1]!.split('-')[0]!), [], image);
  });

  it('gives every stream and bucket 3 replicas, and every service a healthcheck and a restart policy', () => {
    for (const [name, s] of deploymentServices()) {
      assert.equal(s.environment!['NATS_REPLICAS'], '3', name);
      assert.equal(s.environment!['NATS_URL']!.split(',').length, 3, name);
    }
    // `provision` runs once (streams and buckets, as the operator) and exits; the roles wait for its success.
    assert.deepEqual(services['provision']?.command, ['node', 'dist/src/provision-main.js']);
    assert.equal(services['provision']!.environment!['NATS_USER'], 'operator');
    for (const [name, s] of Object.entries(services).filter(([n]) => n !== 'provision')) {
      assert.ok(s.healthcheck?.test?.length, `${name} has a healthcheck`);
      assert.equal(s.restart, 'unless-stopped', name);
      for (const [dep, cond] of Object.entries(s.depends_on ?? {})) {
        assert.equal(
          cond.condition,
          dep === 'provision' ? 'service_completed_successfully' : 'service_healthy',
          `${name} → ${dep}`,
        );
      }
    }
    for (const [name, s] of deploymentServices())
      assert.ok(s.depends_on?.['provision'], `${name} starts after provision`);
    for (const [name, s] of deploymentServices())
      assert.ok(Object.keys(s.depends_on ?? {}).includes('nats-1'), `${name} waits for NATS`);
  });

  it('hands each role only the secrets it uses', () => {
    for (const [name, s] of appServices()) {
      const env = s.environment!;
      assert.equal('ADMIN_KEY' in env, roleOf(s) === 'api', `${name}: ADMIN_KEY only for the API`);
      assert.equal(
        'SIGNING_KEY' in env,
        roleOf(s) === 'signer',
        `${name}: SIGNING_KEY only for the signers, never the browser workers`,
      );
      assert.equal(
        'LOG_SIGNING_KEY' in env,
        roleOf(s) === 'sequencer',
        `${name}: the log's checkpoint key only for the sequencers`,
      );
      assert.equal(
        'WITNESS_SIGNING_KEY' in env,
        roleOf(s) === 'witness',
        `${name}: a witness key only for the witness`,
      );
      assert.equal('CAPTURE_API_KEY' in env, false, name);
      if (roleOf(s) === 'worker')
        assert.equal(env['SIGNER'], 'remote', `${name}: the workers ask the signers instead of signing in place`);
      if (roleOf(s) === 'signer')
        assert.equal(env['DATABASE_URL'], '', `${name}: the signer gets no database URL or password`);
    }
  });

  it('connects each role to NATS as its own user, with the permissions the service defines', async () => {
    for (const [name, s] of deploymentServices()) {
      assert.equal(s.environment!['NATS_USER'], roleOf(s), name);
      assert.equal(s.environment!['NATS_PASSWORD'], `\${NATS_${roleOf(s)!.toUpperCase()}_PASSWORD}`, name);
    }
    const conf = await readFile(join(projectRoot, 'ops', 'nats', 'cluster.conf'), 'utf8');
    assert.ok(
      conf.includes(natsAuthorizationConfig(COMPOSE_NATS_USERS)),
      'ops/nats/cluster.conf carries the authorization block of src/infra/nats-permissions.ts',
    );
  });

  it("lifts Docker's seccomp profile for the worker only, whose Chromium brings its own sandbox", () => {
    for (const [name, s] of Object.entries(services)) {
      const lifted = (s.security_opt ?? []).includes('seccomp=unconfined');
      assert.equal(lifted, s.environment?.['ROLES'] === 'worker', name);
    }
  });

  it('stores artifacts and the archive in its S3 service, whose credentials only the API, the workers and the sequencers get', () => {
    assert.ok(services['s3']?.healthcheck?.test?.length, 'an S3 service with a healthcheck');
    for (const [name, s] of appServices()) {
      const env = s.environment!;
      const archives = roleOf(s) === 'sequencer';
      const stores = roleOf(s) === 'api' || roleOf(s) === 'worker';
      assert.equal(
        'S3_SECRET_ACCESS_KEY' in env,
        stores || archives,
        `${name}: S3 credentials only where artifacts are stored or the archive written`,
      );
      if (archives) assert.match(String(env['ARCHIVE_URL']), /s3:\/\//, `${name} writes the archive`);
      if (!stores) continue;
      assert.equal(env['ARTIFACT_STORE'], 's3', name);
      for (const key of Object.keys(env).filter((k) => k.startsWith('S3_') || k === 'RETENTION_DEFAULT_DAYS'))
        assert.ok(key in STORAGE_ENV, `${name}: ${key} is a storage setting the service reads`);
      assert.equal(s.depends_on?.['s3']?.condition, 'service_healthy', `${name} waits for S3`);
    }
  });

  it('runs a witness of the log with its own key and nothing of the deployment; the sequencers ask it, the APIs check it', () => {
    const witnesses = appServices().filter(([, s]) => roleOf(s) === 'witness');
    assert.equal(witnesses.length, 1);
    const [name, witness] = witnesses[0]!;
    const env = witness.environment!;
    // Exactly what an outside party runs a witness with: its name and key, and the log's public key.
    assert.deepEqual(Object.keys(env).sort(), [
      'DATA_DIR',
      'HOST',
      'PORT',
      'ROLES',
      'WITNESS_LOG_KEYS',
      'WITNESS_NAME',
      'WITNESS_SIGNING_KEY',
    ]);
    assert.match(env['WITNESS_SIGNING_KEY']!, /^\$\{WITNESS_SIGNING_KEY:\?/, `${name}: its own key, required`);
    assert.match(env['WITNESS_LOG_KEYS']!, /^\$\{LOG_KEY:\?/, `${name}: the log's public key, required`);
    assert.deepEqual(witness.depends_on ?? {}, {}, `${name} waits for nothing of the deployment`);
    assert.equal(witness.deploy?.replicas ?? 1, 1, 'one witness: its record of the last checkpoint is its own');
    assert.ok(
      (witness.volumes ?? []).some((v) => /^[a-z0-9]+:\/data$/.test(v)),
      `${name}: its record on a named volume`,
    );
    // The sequencers ask it to cosign; the API processes check its cosignature: the same LOG_WITNESSES and quorum.
    const vkey = cosignerFromSeed('witness.example.org/w1', new Uint8Array(32).fill(3)).vkey;
    for (const [other, s] of appServices()) {
      const wired = roleOf(s) === 'sequencer' || roleOf(s) === 'api';
      assert.equal('LOG_WITNESSES' in s.environment!, wired, `${other}: LOG_WITNESSES only for sequencers and APIs`);
      if (!wired) continue;
      const entry = s.environment!['LOG_WITNESSES']!;
      assert.match(entry, /^\$\{WITNESS_VKEY:\?[^}]*\} http:\/\/witness:8080$/, other);
      // With the vkey filled in, the service's own parser takes the entry: the witness's URL inside the network.
      const parsed = parseLogWitnesses(entry.replace(/^\$\{[^}]*\}/, vkey));
      assert.ok('witnesses' in parsed, JSON.stringify(parsed));
      assert.deepEqual(
        parsed.witnesses.map((w) => [w.name, w.url]),
        [['witness.example.org/w1', 'http://witness:8080']],
        other,
      );
      assert.equal(s.environment!['LOG_WITNESS_QUORUM'], '1', other);
    }
    assert.equal(env['PORT'], '8080');
  });

  it('keeps local data out of the image', async () => {
    const ignore = (await readFile(join(projectRoot, '.dockerignore'), 'utf8')).split('\n').map((l) => l.trim());
    for (const entry of ['data', 'node_modules', '.git']) assert.ok(ignore.includes(entry), entry);
  });
});
