import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { filterCompactRules, type IndexedCMPRuleset } from '@duckduckgo/autoconsent';
import { compactRulesFilter } from '../../../src/capture/consent-handler.js';

const require = createRequire(import.meta.url);
const rules = JSON.parse(
  readFileSync(require.resolve('@duckduckgo/autoconsent/rules/compact-rules.json'), 'utf8'),
) as IndexedCMPRuleset;

describe('the compact rules a frame is sent', () => {
  const rulesFor = compactRulesFilter(rules);
  const urls = [
    'http://127.0.0.1:4000/simple',
    'https://www.dropbox.com/home',
    'https://www.coinbase.com/',
    'https://www.abc.net.au/news',
    'https://coasthotels.com/',
    'https://widget-next.clym-sdk.net/embed?x=1',
    'https://webarchive.nationalarchives.gov.uk/ukgwa/',
    'https://example.org/?ref=https://www.abc.net.au/',
  ];

  it('are those of autoconsent’s own filter, in main frames and child frames alike', () => {
    for (const url of urls) {
      for (const mainFrame of [true, false]) {
        assert.deepEqual(
          rulesFor(url, mainFrame),
          filterCompactRules(rules, { url, mainFrame }),
          `${url} (main frame: ${mainFrame})`,
        );
      }
    }
  });

  it('include a site’s specific rules on that site only', () => {
    const generic = rulesFor('http://127.0.0.1:4000/simple', true).r.length;
    assert.ok(rulesFor('https://www.abc.net.au/news', true).r.length > generic);
    assert.equal(rulesFor('https://example.org/?ref=https://www.abc.net.au/', true).r.length, generic);
  });
});
