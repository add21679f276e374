import type { Page } from 'puppeteer-core';

/** Drop a file on the verification page as a visitor would: a drop event carrying it, on the page's drop zone. */
export async function dropOnVerifyPage(page: Page, name: string, type: string, bytes: Uint8Array): Promise<void> {
  await page.evaluate(
    (fileName: string, fileType: string, base64: string) => {
      const data = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([data], fileName, { type: fileType }));
      document
        .getElementById('drop')!
        .dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    },
    name,
    type,
    Buffer.from(bytes).toString('base64'),
  );
}
