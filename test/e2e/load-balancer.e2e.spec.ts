import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../src/infra/free-port.js';
import { projectRoot } from '../../src/infra/project-root.js';
import { startInfra, type Infra } from '../support/harness.js';
import { type ServiceProcess, startServiceProcess } from '../support/service-process.js';
import { httpCall } from '../support/test-server.js';

const ADMIN = 'lb-admin-key-0123456789';

/** ops/nginx/lb.conf with its compose names and ports replaced by loopback ones; throws if the file changed shape. */
interface LbPorts {
  lb: number;
  replay: number;
  apis: [number, number];
  replays: [number, number];
}

async function templatedLbConf(ports: LbPorts): Promise<string> {
  let conf = await readFile(join(projectRoot, 'ops', 'nginx', 'lb.conf'), 'utf8');
  const swap = (from: string, to: string) => {
    assert.ok(conf.includes(from), `ops/nginx/lb.conf no longer contains "${from}"; update this test's template`);
    conf = conf.replace(from, to);
  };
  swap('server api-1:8080', `server 127.0.0.1:${ports.apis[0]}`);
  swap('server api-2:8080', `server 127.0.0.1:${ports.apis[1]}`);
  swap('listen 8080;', `listen 127.0.0.1:${ports.lb};`);
  swap('server api-1:8081', `server 127.0.0.1:${ports.replays[0]}`);
  swap('server api-2:8081', `server 127.0.0.1:${ports.replays[1]}`);
  swap('listen 8081;', `listen 127.0.0.1:${ports.replay};`);
  return conf;
}

/**
 * The compose entry point for real (DESIGN decision 10): Debian's nginx on loopback runs the project's own
 * lb.conf in front of two API processes that trust one hop (TRUST_PROXY=1, as docker-compose.yml sets it).
 * A client that writes its own X-Forwarded-For is still counted by its real address.
 */
describe('nginx (ops/nginx/lb.conf) in front of two API processes', () => {
  let infra: Infra;
  let apis: ServiceProcess[] = [];
  let nginx: ChildProcess | undefined;
  let nginxLog = '';
  let lb: string;
  let replay: string;

  before(async () => {
    infra = await startInfra();
    const env = {
      NATS_URL: infra.nats.url,
      DATABASE_URL: await infra.freshDatabase(),
      ADMIN_KEY: ADMIN,
      SIGNING_KEY: 'none',
      TSA_URL: 'none',
      DATA_DIR: infra.dir,
      TRUST_PROXY: '1',
    };
    const ports: LbPorts = {
      lb: await freePort(),
      replay: await freePort(),
      apis: [await freePort(), await freePort()],
      replays: [await freePort(), await freePort()],
    };
    // As docker-compose.yml: clients know the balancer's two origins; each API serves its replay listener too.
    const origins = {
      PUBLIC_BASE_URL: `http://localhost:${ports.lb}`,
      REPLAY_ORIGIN: `http://127.0.0.1:${ports.replay}`,
    };
    apis = [
      await startServiceProcess(
        { ...env, ...origins, ROLES: 'api,projector', REPLAY_PORT: String(ports.replays[0]) },
        ports.apis[0],
      ),
      await startServiceProcess(
        { ...env, ...origins, ROLES: 'api', REPLAY_PORT: String(ports.replays[1]) },
        ports.apis[1],
      ),
    ];
    replay = origins.REPLAY_ORIGIN;

    const dir = join(infra.dir, 'nginx');
    await mkdir(dir, { recursive: true });
    // nginx's workers may run as nobody: their temp directories must be theirs to write.
    for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) {
      await mkdir(join(dir, sub), { recursive: true });
      await chmod(join(dir, sub), 0o777);
    }
    await chmod(infra.dir, 0o755);
    await chmod(dir, 0o755);
    await writeFile(join(dir, 'lb.conf'), await templatedLbConf(ports));
    await writeFile(
      join(dir, 'nginx.conf'),
      [
        'worker_processes 1;',
        `pid ${join(dir, 'nginx.pid')};`,
        `error_log ${join(dir, 'error.log')} warn;`,
        'events { worker_connections 256; }',
        'http {',
        '  access_log off;',
        ...['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
          (t) => `  ${t === 'body' ? 'client_body' : t}_temp_path ${join(dir, t)};`,
        ),
        `  include ${join(dir, 'lb.conf')};`,
        '}',
      ].join('\n'),
    );
    // ops/install-deps.sh installs Debian's nginx for `make test`.
    nginx = spawn(
      existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx',
      ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    nginx.stdout!.on('data', (c) => (nginxLog += c));
    nginx.stderr!.on('data', (c) => (nginxLog += c));
    lb = `http://127.0.0.1:${ports.lb}`;
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (nginx.exitCode !== null) throw new Error(`nginx exited with ${nginx.exitCode}: ${nginxLog}`);
      const ok = await fetch(`${lb}/health`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`nginx never answered /health: ${nginxLog}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  });

  after(async () => {
    if (nginx && nginx.exitCode === null) {
      const exited = new Promise((r) => nginx!.once('exit', r));
      nginx.kill('SIGQUIT');
      await exited;
    }
    await Promise.all(apis.map((a) => a.kill('SIGTERM')));
    await infra?.stop();
  });

  it('counts a client by its real address whatever X-Forwarded-For it sends (operator key limit: 5 per 60 s)', async () => {
    const attempt = (i: number, from: string) =>
      httpCall(
        `${lb}/v1/admin/keys`,
        'POST',
        {
          authorization: 'Bearer not-the-admin-key-000000',
          'content-type': 'application/json',
          'x-forwarded-for': `203.0.113.${i}, 198.51.100.${i}`,
        },
        JSON.stringify({ tenantId: 'lb', scopes: ['read'], name: 'k' }),
        from,
      );
    const statuses: number[] = [];
    for (let i = 1; i <= 8; i++) statuses.push((await attempt(i, '127.0.0.1')).status);
    assert.deepEqual(
      statuses.slice(0, 5),
      [401, 401, 401, 401, 401],
      `the first five are judged on their key: ${statuses}`,
    );
    assert.deepEqual(
      statuses.slice(5),
      [429, 429, 429],
      `every forged address after the fifth is the same client: ${statuses}`,
    );
    // Another real address is another client: the APIs do count what nginx saw, not nginx's own address.
    assert.equal((await attempt(9, '127.0.0.7')).status, 401);
  });

  it('passes the real client address through to the API processes', async () => {
    // The per-IP limit of unauthenticated requests is keyed by the same address; a spoofed header from a
    // fresh real address starts a fresh count, which the first test could not show for its own address.
    const r = await httpCall(
      `${lb}/v1/admin/keys`,
      'POST',
      { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json', 'x-forwarded-for': '127.0.0.1' },
      JSON.stringify({ tenantId: 'lb', scopes: ['read'], name: 'k' }),
      '127.0.0.8',
    );
    assert.equal(
      r.status,
      201,
      `a forged X-Forwarded-For naming the exhausted address does not borrow its count: ${r.text}`,
    );
  });

  it('serves the replay origin on its own port: the viewer, and nothing of the API', async () => {
    const viewer = await fetch(`${replay}/replay/ui.js`);
    assert.equal(viewer.status, 200);
    assert.match(viewer.headers.get('content-type') ?? '', /javascript/);
    assert.equal((await fetch(`${replay}/v1/captures`)).status, 404, 'the replay origin answers no API route');
    assert.equal((await fetch(`${lb}/replay/ui.js`)).status, 404, "the API's origin serves no replay");
  });
});
