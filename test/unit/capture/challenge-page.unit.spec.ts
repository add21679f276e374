import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { challengeMessage, detectChallenge, type ChallengeEvidence } from '../../../src/capture/challenge-page.js';

const page = (over: Partial<ChallengeEvidence>): ChallengeEvidence => ({
  status: 200,
  headers: [],
  title: 'Shop',
  html: '<html><body>hello</body></html>',
  ...over,
});

describe('challenge page detection', () => {
  it('recognises Cloudflare by its header, its challenge script and its title with an error status', () => {
    assert.equal(detectChallenge(page({ status: 403, headers: [['cf-mitigated', 'challenge']] })), 'Cloudflare');
    assert.equal(
      detectChallenge(page({ status: 503, html: '<script>window._cf_chl_opt={cvId:"3"}</script>' })),
      'Cloudflare',
    );
    assert.equal(
      detectChallenge(page({ status: 403, title: 'Just a moment...', headers: [['Server', 'cloudflare']] })),
      'Cloudflare',
    );
  });

  it('does not flag an ordinary page behind Cloudflare (its bot script is on every page)', () => {
    const html =
      '<html><body>Article<script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script></body></html>';
    assert.equal(
      detectChallenge(
        page({
          html,
          headers: [
            ['Server', 'cloudflare'],
            ['cf-ray', '1-AMS'],
          ],
        }),
      ),
      undefined,
    );
    // A Turnstile widget on a login form is not a challenge page either.
    const turnstile =
      '<form><div class="cf-turnstile" data-sitekey="k"><iframe id="cf-chl-widget-abc" src="https://challenges.cloudflare.com/cdn-cgi/challenge-platform/h/b/turnstile/if/ov2/av0/rcv/x"></iframe></div></form>';
    assert.equal(detectChallenge(page({ title: 'Log in', html: turnstile })), undefined);
  });

  it('recognises DataDome, PerimeterX, Akamai, Imperva, AWS WAF and Kasada', () => {
    assert.equal(
      detectChallenge(
        page({ status: 403, html: '<iframe src="https://geo.captcha-delivery.com/captcha/?initialCid=x"></iframe>' }),
      ),
      'DataDome',
    );
    assert.equal(detectChallenge(page({ status: 403, html: '<div id="px-captcha"></div>' })), 'PerimeterX (HUMAN)');
    assert.equal(
      detectChallenge(
        page({
          status: 403,
          title: 'Access Denied',
          html: "You don't have permission. Reference #18.2d351ab8.1557333295 https://errors.edgesuite.net/18",
        }),
      ),
      'Akamai',
    );
    assert.equal(
      detectChallenge(page({ html: '<iframe src="/_Incapsula_Resource?SWUDNSAI=31"></iframe>' })),
      'Imperva (Incapsula)',
    );
    assert.equal(detectChallenge(page({ status: 405, headers: [['x-amzn-waf-action', 'captcha']] })), 'AWS WAF');
    assert.equal(detectChallenge(page({ status: 429, headers: [['x-kpsdk-ct', 'abc']] })), 'Kasada');
  });

  it('flags a captcha only as an interstitial (its title) or with an error status, not on a login form', () => {
    const form =
      '<form><div class="g-recaptcha" data-sitekey="k"></div></form><script src="https://www.google.com/recaptcha/api.js"></script>';
    assert.equal(detectChallenge(page({ title: 'Sign in', html: form })), undefined);
    assert.equal(detectChallenge(page({ status: 429, title: 'Sign in', html: form })), 'reCAPTCHA');
    assert.equal(
      detectChallenge(
        page({ title: 'Verify you are human', html: '<script src="https://hcaptcha.com/1/api.js"></script>' }),
      ),
      'hCaptcha',
    );
  });

  it('leaves ordinary error pages alone', () => {
    assert.equal(detectChallenge(page({ status: 404, title: 'Not found', html: '<h1>404</h1>' })), undefined);
    assert.equal(detectChallenge(page({ status: 403, title: 'Forbidden', html: '<h1>Forbidden</h1>' })), undefined);
  });

  it('names the protection and the status in the message', () => {
    assert.match(challengeMessage('Cloudflare', 403), /Cloudflare.*challenge.*HTTP 403/);
  });
});
