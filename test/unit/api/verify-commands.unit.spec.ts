import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verifyCommands, verifyCommandsHtml } from '../../../src/api/verify-commands.js';

describe('verify page command lines', () => {
  const deployment = { publicBaseUrl: 'https://ledger.example.org', log: true };

  it('download the bundle with curl, then run the served verifier with npx or node, the URLs filled in', () => {
    const { npx, node } = verifyCommands(deployment, 'cap_0123');
    const download = "curl -fsSL -o capture.wacz 'https://ledger.example.org/v1/captures/cap_0123/artifacts/wacz'";
    const trust =
      "--keys-url 'https://ledger.example.org/.well-known/signing-keys' --tsa-ca-url 'https://ledger.example.org/.well-known/tsa-certificates' --log-key-url 'https://ledger.example.org/v1/log/key'";
    assert.equal(
      npx,
      `${download}\nnpx --yes 'https://ledger.example.org/verifier/capture-ledger-verifier.tgz' capture.wacz ${trust}`,
    );
    assert.equal(
      node,
      `${download}\ncurl -fsSL -o capture-ledger-verify.mjs 'https://ledger.example.org/verifier/capture-ledger-verify.mjs'\nnode capture-ledger-verify.mjs capture.wacz ${trust}`,
    );
  });

  it('leave out the log key where the deployment runs no log, and quote a URL for the shell', () => {
    const { npx } = verifyCommands({ publicBaseUrl: "https://ex.org/it's", log: false }, 'cap_1');
    assert.doesNotMatch(npx, /--log-key-url/);
    assert.match(npx, /'https:\/\/ex\.org\/it'\\''s\/v1\/captures\/cap_1\/artifacts\/wacz'/);
  });

  it('are served in <pre><code>, HTML-escaped', () => {
    const html = verifyCommandsHtml({ publicBaseUrl: 'https://ex.org/a&b', log: false }, 'cap_1');
    assert.equal(html.match(/<pre id="verify-(npx|node)"><code>/g)?.length, 2);
    assert.match(html, /https:\/\/ex\.org\/a&#38;b\/verifier/);
  });
});
