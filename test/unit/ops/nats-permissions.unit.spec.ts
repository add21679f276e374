import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  natsAuthorizationConfig,
  natsInboxPrefix,
  publishAllow,
  ROLE_GRANTS,
  type NatsRole,
} from '../../../src/infra/nats-permissions.js';

/** NATS subject matching: `*` one token, `>` one or more trailing tokens. */
function matches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}
const allows = (role: NatsRole, subject: string) => publishAllow(ROLE_GRANTS[role]).some((p) => matches(p, subject));
const roles = Object.keys(ROLE_GRANTS) as NatsRole[];

describe('NATS permissions per role (allow lists, src/infra/nats-permissions.ts)', () => {
  it('grants no role the whole JetStream API, stream configuration, deletion, or a right to publish into inboxes', () => {
    for (const role of roles) {
      const allow = publishAllow(ROLE_GRANTS[role]);
      for (const wide of ['$JS.API.>', '$JS.ACK.>', '$JS.FC.>', '_INBOX.>', '>', '$KV.>', '$O.>', 'ledger.>'])
        assert.ok(!allow.includes(wide), `${role}: ${wide}`);
      for (const subject of [
        '$JS.API.STREAM.CREATE.X',
        '$JS.API.STREAM.UPDATE.LEDGER',
        '$JS.API.STREAM.DELETE.LEDGER',
        '$JS.API.STREAM.PURGE.OBJ_artifacts',
        '$JS.API.STREAM.MSG.DELETE.LEDGER',
        '$JS.API.CONSUMER.DELETE.LEDGER.job-feeder',
        '$JS.API.STREAM.LIST',
        '_INBOX.abc.1',
      ]) {
        assert.equal(allows(role, subject), false, `${role} may not publish ${subject}`);
      }
      assert.ok(
        allows(role, '$JS.API.INFO') && allows(role, '$JS.API.STREAM.INFO.LEDGER'),
        `${role} inspects the streams`,
      );
    }
  });

  it('keeps tenant facts, system facts and the webhook keys with the roles that own them', () => {
    const writers = roles.filter((r) => allows(r, 'ledger.tenant.acme'));
    assert.deepEqual(
      writers.sort(),
      ['api', 'dispatcher', 'scheduler'],
      'the roles with tenant actors append tenant facts',
    );
    assert.deepEqual(
      roles.filter((r) => allows(r, 'ledger.system')),
      ['signer'],
    );
    // The sequencer runs the archiver, which reads the keys to seal them again for the archive; it writes none.
    assert.deepEqual(roles.filter((r) => allows(r, '$JS.API.STREAM.MSG.GET.KV_webhook-keys')).sort(), [
      'api',
      'dispatcher',
      'sequencer',
    ]);
    assert.deepEqual(
      roles.filter((r) => allows(r, '$JS.API.DIRECT.GET.KV_webhook-keys.$KV.webhook-keys.whk_1')).sort(),
      ['api', 'dispatcher', 'sequencer'],
    );
    assert.deepEqual(roles.filter((r) => allows(r, '$KV.webhook-keys.whk_1')).sort(), ['api', 'dispatcher']);
    assert.deepEqual(
      roles.filter((r) => allows(r, '$O.artifacts.C.x')),
      ['worker'],
      'only the worker writes artifacts',
    );
  });

  it('gives the worker its own consumers and nothing of the deliveries, snapshots or rate limits', () => {
    for (const ok of [
      '$JS.API.CONSUMER.MSG.NEXT.JOBS.capture-workers',
      '$JS.ACK.JOBS.capture-workers.1.2.3.4.5.6.7',
      '$JS.API.CONSUMER.CREATE.LEDGER.job-feeder.ledger.tenant.>',
      'capture.outcome',
      'capture.pending',
      'notary.sign',
      '$KV.capture-attempts.cap_1',
    ]) {
      assert.ok(allows('worker', ok), ok);
    }
    for (const no of [
      '$JS.API.CONSUMER.CREATE.DELIVERIES',
      '$JS.API.CONSUMER.MSG.NEXT.DELIVERIES.webhook-dispatchers',
      '$JS.API.STREAM.MSG.GET.DELIVERIES',
      '$JS.API.DIRECT.GET.DELIVERIES',
      '$JS.API.CONSUMER.MSG.NEXT.LEDGER.webhook-feeder',
      '$JS.API.CONSUMER.CREATE.LEDGER.x',
      '$JS.API.CONSUMER.CREATE.TLOG',
      '$JS.API.STREAM.MSG.GET.KV_actor-snapshots',
      '$JS.API.STREAM.MSG.GET.KV_ratelimits',
      '$KV.actor-snapshots.acme',
      'notary.certify',
      'jobs.webhook',
    ]) {
      assert.equal(allows('worker', no), false, no);
    }
  });

  it('lets each user subscribe to its own inbox prefix only, and lets only the roles that serve requests answer them', () => {
    const conf = natsAuthorizationConfig(roles.map((role) => ({ user: `u-${role}`, password: 'p', role })));
    for (const role of roles) {
      const line = conf.split('\n').find((l) => l.includes(`"u-${role}"`))!;
      const subscribe = JSON.parse(/subscribe: \{ allow: (\[[^\]]*\])/.exec(line)![1]!) as string[];
      assert.equal(subscribe[0], `${natsInboxPrefix(`u-${role}`)}.>`);
      assert.ok(!subscribe.some((s) => s.startsWith('_INBOX.') || s === '>'), role);
      assert.equal(line.includes('allow_responses: true'), ['api', 'signer', 'sequencer'].includes(role), role);
    }
    assert.ok(
      !conf.includes('"operator"') ||
        /"operator", password: "[^"]*", permissions: \{ publish: \{ deny: \["\$JS\.API\.STREAM\.PURGE\.>", "\$JS\.API\.STREAM\.MSG\.DELETE\.>"\] \} \} \}/.test(
          conf,
        ),
    );
  });
});
