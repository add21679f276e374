import { readFile } from 'node:fs/promises';

/** Read the PEM files named by WEBHOOK_CA_CERTS; a missing file stops the start, naming the variable. */
export async function loadWebhookCa(paths: string[]): Promise<string[]> {
  return Promise.all(
    paths.map((p) =>
      readFile(p, 'utf8').catch((err: Error) => {
        throw new Error(`WEBHOOK_CA_CERTS: cannot read ${p}: ${err.message}`);
      }),
    ),
  );
}
