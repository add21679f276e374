/**
 * The stream's protocol. The viewer (the console page) sends JSON text messages: pointer, wheel and key input,
 * pasted text, and the address bar's navigate / back / reload. The service sends each screencast frame as one binary
 * message (the JPEG's bytes) and what the viewer shows besides as JSON text messages (ServiceMessage).
 * Parsing is pure and bounded: a message over MAX_MESSAGE_BYTES is refused by the socket before it is read, and any
 * message that is not one of these shapes is dropped.
 */
export const MAX_MESSAGE_BYTES = 64 * 1024;
/** The most text one paste inserts. */
export const MAX_PASTE_CHARS = 10_000;

export type MouseButton = 'none' | 'left' | 'middle' | 'right';

export type ViewerMessage =
  | {
      t: 'mouse';
      kind: 'down' | 'up' | 'move';
      x: number;
      y: number;
      button: MouseButton;
      clickCount: number;
      modifiers: number;
    }
  | { t: 'wheel'; x: number; y: number; deltaX: number; deltaY: number; modifiers: number }
  | { t: 'key'; kind: 'down' | 'up'; key: string; code: string; keyCode: number; text?: string; modifiers: number }
  | { t: 'text'; text: string }
  | { t: 'navigate'; url: string }
  | { t: 'back' }
  | { t: 'reload' };

export type ServiceMessage =
  /** Sent first: the page's size in CSS pixels, which the frames show and input coordinates are counted in. */
  | { t: 'viewport'; width: number; height: number }
  | { t: 'location'; url: string; title: string; canGoBack: boolean }
  /** An address or a page the browser will not show, and why. */
  | { t: 'refused'; reason: string }
  /** The session is over (saved, cancelled, idle or hard limit, service stopping); the socket closes after it. */
  | { t: 'ended'; reason: string };

export interface Viewport {
  width: number;
  height: number;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
const shortString = (v: unknown, max: number): string | null => (typeof v === 'string' && v.length <= max ? v : null);
const modifiersOf = (v: unknown): number => {
  const n = num(v);
  return n === null ? 0 : clamp(Math.trunc(n), 0, 15); // Alt=1, Ctrl=2, Meta=4, Shift=8
};
const BUTTONS: readonly MouseButton[] = ['none', 'left', 'middle', 'right'];
/** The most a wheel event scrolls, in CSS pixels: a page is scrolled, never flung. */
const MAX_WHEEL_DELTA = 2000;

/** A viewer's message as one of the shapes above, coordinates kept inside the viewport; null for anything else. */
export function parseViewerMessage(raw: string, viewport: Viewport): ViewerMessage | null {
  let m: unknown;
  try {
    m = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof m !== 'object' || m === null) return null;
  const o = m as Record<string, unknown>;
  const point = () => {
    const x = num(o.x);
    const y = num(o.y);
    return x === null || y === null ? null : { x: clamp(x, 0, viewport.width), y: clamp(y, 0, viewport.height) };
  };
  switch (o.t) {
    case 'mouse': {
      const at = point();
      const kind = o.kind;
      if (!at || (kind !== 'down' && kind !== 'up' && kind !== 'move')) return null;
      const button = BUTTONS.includes(o.button as MouseButton) ? (o.button as MouseButton) : 'none';
      const clickCount = clamp(Math.trunc(num(o.clickCount) ?? (kind === 'move' ? 0 : 1)), 0, 3);
      return { t: 'mouse', kind, ...at, button, clickCount, modifiers: modifiersOf(o.modifiers) };
    }
    case 'wheel': {
      const at = point();
      const dx = num(o.deltaX) ?? 0;
      const dy = num(o.deltaY) ?? 0;
      if (!at) return null;
      return {
        t: 'wheel',
        ...at,
        deltaX: clamp(dx, -MAX_WHEEL_DELTA, MAX_WHEEL_DELTA),
        deltaY: clamp(dy, -MAX_WHEEL_DELTA, MAX_WHEEL_DELTA),
        modifiers: modifiersOf(o.modifiers),
      };
    }
    case 'key': {
      const kind = o.kind;
      const key = shortString(o.key, 32);
      const code = shortString(o.code ?? '', 32);
      if ((kind !== 'down' && kind !== 'up') || !key || code === null) return null;
      const text = o.text === undefined ? undefined : shortString(o.text, 4);
      if (text === null) return null;
      const keyCode = clamp(Math.trunc(num(o.keyCode) ?? 0), 0, 255);
      return { t: 'key', kind, key, code, keyCode, ...(text ? { text } : {}), modifiers: modifiersOf(o.modifiers) };
    }
    case 'text': {
      const text = shortString(o.text, MAX_PASTE_CHARS);
      return text ? { t: 'text', text } : null;
    }
    case 'navigate': {
      const url = shortString(o.url, 4096);
      return url === null ? null : { t: 'navigate', url };
    }
    case 'back':
    case 'reload':
      return { t: o.t };
    default:
      return null;
  }
}

/** The DevTools protocol call that replays an input message in the page (Input domain). */
export function inputCommand(m: Extract<ViewerMessage, { t: 'mouse' | 'wheel' | 'key' | 'text' }>): {
  method: 'Input.dispatchMouseEvent' | 'Input.dispatchKeyEvent' | 'Input.insertText';
  params: object;
} {
  switch (m.t) {
    case 'mouse':
      return {
        method: 'Input.dispatchMouseEvent',
        params: {
          type: m.kind === 'down' ? 'mousePressed' : m.kind === 'up' ? 'mouseReleased' : 'mouseMoved',
          x: m.x,
          y: m.y,
          button: m.button,
          clickCount: m.clickCount,
          modifiers: m.modifiers,
        },
      };
    case 'wheel':
      return {
        method: 'Input.dispatchMouseEvent',
        params: { type: 'mouseWheel', x: m.x, y: m.y, deltaX: m.deltaX, deltaY: m.deltaY, modifiers: m.modifiers },
      };
    case 'key':
      return {
        method: 'Input.dispatchKeyEvent',
        params: {
          // A key that types something is a keyDown with its text; any other (Tab, arrows, shortcuts) a rawKeyDown.
          type: m.kind === 'up' ? 'keyUp' : m.text ? 'keyDown' : 'rawKeyDown',
          key: m.key,
          code: m.code,
          windowsVirtualKeyCode: m.keyCode,
          nativeVirtualKeyCode: m.keyCode,
          modifiers: m.modifiers,
          ...(m.kind === 'down' && m.text ? { text: m.text, unmodifiedText: m.text } : {}),
        },
      };
    case 'text':
      return { method: 'Input.insertText', params: { text: m.text } };
  }
}
