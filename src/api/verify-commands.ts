/**
 * The command lines that check one capture's bundle without this service's verdict, as the verify
 * page shows them in <pre> (and the README and the certificate describe): download the bundle with curl, then run
 * the published verifier with npx (the npm tarball) or plain node (the single file). Everything the lines need is
 * a URL of this deployment, filled in; they need only Node ≥ 20 and curl, and no npm registry.
 */
import { VERIFIER_CLI_PATH, VERIFIER_TARBALL_PATH } from './verifier-assets.js';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** POSIX shell single quotes: a URL is pasted as one word whatever it holds. */
const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export interface VerifyCommandsDeployment {
  /** PUBLIC_BASE_URL. */
  publicBaseUrl: string;
  /** Whether the deployment runs a transparency log (then the lines check the bundle's inclusion too). */
  log: boolean;
}

/** The trust options: the deployment's published keys, TSA certificates and, where it runs one, its log's key. */
export function trustOptions({ publicBaseUrl: base, log }: VerifyCommandsDeployment): string {
  const logKey = log ? ` --log-key-url ${sh(`${base}/v1/log/key`)}` : '';
  return `--keys-url ${sh(`${base}/.well-known/signing-keys`)} --tsa-ca-url ${sh(`${base}/.well-known/tsa-certificates`)}${logKey}`;
}

export function verifyCommands(deployment: VerifyCommandsDeployment, captureId: string): { npx: string; node: string } {
  const base = deployment.publicBaseUrl;
  const download = `curl -fsSL -o capture.wacz ${sh(`${base}/v1/captures/${captureId}/artifacts/wacz`)}`;
  return {
    npx: `${download}\nnpx --yes ${sh(`${base}${VERIFIER_TARBALL_PATH}`)} capture.wacz ${trustOptions(deployment)}`,
    node: `${download}\ncurl -fsSL -o capture-ledger-verify.mjs ${sh(`${base}${VERIFIER_CLI_PATH}`)}\nnode capture-ledger-verify.mjs capture.wacz ${trustOptions(deployment)}`,
  };
}

/** The page's section: both ways, each a block to paste into an empty directory. */
export function verifyCommandsHtml(deployment: VerifyCommandsDeployment, captureId: string): string {
  const { npx, node } = verifyCommands(deployment, captureId);
  return `<section id="verify-commands">
<h2>Check it yourself, on your computer</h2>
<p>In an empty directory, with Node.js 20 or later and curl (no npm registry needed). Exit status 0 means verified; the checks print as JSON.</p>
<p>With npx:</p>
<pre id="verify-npx"><code>${esc(npx)}</code></pre>
<p>Or with plain node:</p>
<pre id="verify-node"><code>${esc(node)}</code></pre>
</section>`;
}
