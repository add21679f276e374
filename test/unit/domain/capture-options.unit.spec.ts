import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_CAPTURE_SETTINGS,
  parseCaptureOptions,
  resolveCaptureSettings,
} from '../../../src/domain/capture-options.js';
import { decideTenant, evolveTenant, initialTenantState } from '../../../src/domain/tenant/index.js';

describe('capture options', () => {
  it('absent or null means the defaults, which are the spec behaviour', () => {
    assert.deepEqual(parseCaptureOptions(undefined), { ok: true, options: undefined });
    assert.deepEqual(parseCaptureOptions(null), { ok: true, options: undefined });
    assert.deepEqual(parseCaptureOptions({}), { ok: true, options: undefined });
    assert.deepEqual(resolveCaptureSettings(undefined), DEFAULT_CAPTURE_SETTINGS);
    assert.deepEqual(DEFAULT_CAPTURE_SETTINGS, {
      viewport: { width: 1280, height: 800 },
      deviceScaleFactor: 1,
      fullPage: true,
      waitForSelector: null,
      delayMs: 0,
      pdf: false,
      behaviors: ['auto-scroll', 'auto-fetch', 'auto-play', 'expand', 'feed-timeline'],
      behaviorTimeoutMs: 20_000,
      recordSession: false,
      recordBoxes: [],
      recordTextBoxes: [],
    });
  });

  it('accepts every option at its limits and resolves the rest to defaults', () => {
    const parsed = parseCaptureOptions({
      viewport: { width: 3840, height: 240 },
      deviceScaleFactor: 2.5,
      fullPage: false,
      waitForSelector: '#x',
      delayMs: 10_000,
      pdf: true,
      behaviors: ['expand', 'auto-play', 'expand'],
      behaviorTimeout: 90,
      recordSession: true,
      recordBoxes: [' aside.ad ', '#clock', 'aside.ad'],
      recordTextBoxes: ['Updated \\d+:\\d+', ' now ', 'Updated \\d+:\\d+'],
    });
    assert.equal(parsed.ok, true);
    assert.deepEqual(resolveCaptureSettings(parsed.ok ? parsed.options : undefined), {
      viewport: { width: 3840, height: 240 },
      deviceScaleFactor: 2.5,
      fullPage: false,
      waitForSelector: '#x',
      delayMs: 10_000,
      pdf: true,
      behaviors: ['expand', 'auto-play'],
      behaviorTimeoutMs: 90_000,
      recordSession: true,
      recordBoxes: ['aside.ad', '#clock'],
      recordTextBoxes: ['Updated \\d+:\\d+', ' now '],
    });
    const some = parseCaptureOptions({ pdf: true });
    assert.deepEqual(resolveCaptureSettings(some.ok ? some.options : undefined), {
      ...DEFAULT_CAPTURE_SETTINGS,
      pdf: true,
    });
  });

  const refused: Array<[unknown, RegExp]> = [
    ['yes', /^options must be an object/],
    [[], /^options must be an object/],
    [{ viewport: { width: 319, height: 800 } }, /^options\.viewport\.width must be an integer from 320 to 3840/],
    [{ viewport: { width: 1280, height: 2161 } }, /^options\.viewport\.height/],
    [{ viewport: { width: 1280.5, height: 800 } }, /^options\.viewport\.width/],
    [{ viewport: { width: 1280, height: 800, depth: 1 } }, /^options\.viewport\.depth is not allowed/],
    [{ deviceScaleFactor: 0.5 }, /^options\.deviceScaleFactor must be a number from 1 to 3/],
    [{ deviceScaleFactor: '2' }, /^options\.deviceScaleFactor/],
    [{ fullPage: 'false' }, /^options\.fullPage must be true or false/],
    [{ recordSession: 'yes' }, /^options\.recordSession must be true or false/],
    [{ waitForSelector: '  ' }, /^options\.waitForSelector must be a non-empty CSS selector/],
    [{ delayMs: -1 }, /^options\.delayMs must be an integer from 0 to 10000/],
    [{ delayMs: 10_001 }, /^options\.delayMs/],
    [{ pdf: 1 }, /^options\.pdf must be true or false/],
    [{ fullpage: true }, /^options\.fullpage is not a capture option/],
    [{ behaviors: 'expand' }, /^options\.behaviors must be an array of behavior names/],
    [{ behaviors: ['expand', 'dance'] }, /^options\.behaviors\[1\] is not a behavior \(known: auto-scroll, /],
    [{ behaviorTimeout: 0 }, /^options\.behaviorTimeout must be an integer from 1 to 90 \(seconds\)/],
    [{ behaviorTimeout: 91 }, /^options\.behaviorTimeout/],
    [{ behaviorTimeout: 2.5 }, /^options\.behaviorTimeout/],
    [{ recordBoxes: '.ad' }, /^options\.recordBoxes must be an array of at most 20 CSS selectors/],
    [{ recordBoxes: Array.from({ length: 21 }, (_, i) => `#a${i}`) }, /^options\.recordBoxes must be an array/],
    [{ recordBoxes: ['.ad', ''] }, /^options\.recordBoxes\[1\] must be a non-empty CSS selector/],
    [{ recordBoxes: [`.${'a'.repeat(200)}`] }, /^options\.recordBoxes\[0\] must be a non-empty CSS selector/],
    [{ recordBoxes: ['div[['] }, /^options\.recordBoxes\[0\]: 'div\[\[' is not a valid CSS selector/],
    [{ recordTextBoxes: 'a' }, /^options\.recordTextBoxes must be an array of at most 20 regular expressions/],
    [{ recordTextBoxes: Array.from({ length: 21 }, (_, i) => `a${i}`) }, /^options\.recordTextBoxes must be an array/],
    [{ recordTextBoxes: ['a', ' '] }, /^options\.recordTextBoxes\[1\] must be a non-empty regular expression/],
    [{ recordTextBoxes: ['a'.repeat(201)] }, /^options\.recordTextBoxes\[0\] must be a non-empty regular expression/],
    [{ recordTextBoxes: ['(a'] }, /^options\.recordTextBoxes\[0\]: '\(a' is not a valid regular expression/],
  ];
  for (const [raw, message] of refused) {
    it(`refuses ${JSON.stringify(raw)} naming the field`, () => {
      const parsed = parseCaptureOptions(raw);
      assert.equal(parsed.ok, false);
      assert.match(parsed.ok ? '' : parsed.detail, message);
    });
  }

  it('behaviors: [] runs none', () => {
    const parsed = parseCaptureOptions({ behaviors: [] });
    assert.deepEqual(resolveCaptureSettings(parsed.ok ? parsed.options : undefined).behaviors, []);
  });

  it('names batch items by their index', () => {
    const parsed = parseCaptureOptions({ delayMs: 'soon' }, 'urls[3].options');
    assert.equal(parsed.ok, false);
    assert.match(parsed.ok ? '' : parsed.detail, /^urls\[3\]\.options\.delayMs/);
  });
});

describe('capture options of a schedule (given / when / then)', () => {
  it('a schedule created with options submits every run with them', () => {
    const now = new Date('2026-11-22T10:00:00Z');
    const options = { viewport: { width: 390, height: 844 }, pdf: true };
    const created = decideTenant(
      {
        type: 'CreateSchedule',
        data: { scheduleId: 'sch_1', url: 'https://example.org/', name: 'daily', cron: '0 6 * * *', options },
      },
      initialTenantState('acme'),
      now,
    );
    const state = created.events.reduce(
      (s, e) => evolveTenant(s, { ...e, occurredAt: now.toISOString() }),
      initialTenantState('acme'),
    );
    const fired = decideTenant(
      { type: 'FireSchedule', data: { scheduleId: 'sch_1', fireTime: '2026-11-23T06:00:00.000Z', captureId: 'cap_1' } },
      state,
      now,
    );
    const event = fired.events[0]!;
    assert.equal(event.type, 'capture.submitted');
    assert.deepEqual(event.type === 'capture.submitted' ? event.data.captures : null, [
      { captureId: 'cap_1', url: 'https://example.org/', options },
    ]);
  });

  it("a watched schedule's runs record the boxes of its ignoreSelectors", () => {
    const now = new Date('2026-11-22T10:00:00Z');
    const watch = {
      notifyOn: 'change' as const,
      minTextChange: 0,
      minPixelChange: null,
      ignoreSelectors: ['aside.ad', '#clock'],
      ignoreText: [],
    };
    const created = decideTenant(
      {
        type: 'CreateSchedule',
        data: {
          scheduleId: 'sch_1',
          url: 'https://example.org/',
          name: 'watched',
          cron: '0 6 * * *',
          options: { pdf: true, recordBoxes: ['#clock', 'nav'] },
          watch,
        },
      },
      initialTenantState('acme'),
      now,
    );
    const state = created.events.reduce(
      (s, e) => evolveTenant(s, { ...e, occurredAt: now.toISOString() }),
      initialTenantState('acme'),
    );
    const fired = decideTenant(
      { type: 'FireSchedule', data: { scheduleId: 'sch_1', fireTime: '2026-11-23T06:00:00.000Z', captureId: 'cap_1' } },
      state,
      now,
    );
    const event = fired.events[0]!;
    assert.deepEqual(event.type === 'capture.submitted' ? event.data.captures : null, [
      {
        captureId: 'cap_1',
        url: 'https://example.org/',
        options: { pdf: true, recordBoxes: ['#clock', 'nav', 'aside.ad'] },
      },
    ]);
  });
});
