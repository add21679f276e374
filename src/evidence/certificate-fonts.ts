import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The certificate's fonts, all embedded (PDF/A): DejaVu Sans, Sans Bold and Sans Mono (Debian fonts-dejavu-core)
 * for Latin, Greek, Cyrillic and most symbols, and Noto Sans CJK JP (fonts-noto-cjk; ops/install-deps.sh installs
 * both) for the Chinese, Japanese and Korean characters DejaVu lacks. A character is drawn in the first of the two
 * that has it (fontFor), so a title in any of those scripts prints as it was.
 */

const DEJAVU = '/usr/share/fonts/truetype/dejavu';
const NOTO_CJK = '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc';

export const FONT = {
  regular: 'DejaVuSans',
  bold: 'DejaVuSans-Bold',
  mono: 'DejaVuSansMono',
  cjk: 'NotoSansCJKjp',
} as const;

export const CERTIFICATE_FONTS: Record<string, { path: string; family?: string }> = {
  [FONT.regular]: { path: `${DEJAVU}/DejaVuSans.ttf` },
  [FONT.bold]: { path: `${DEJAVU}/DejaVuSans-Bold.ttf` },
  [FONT.mono]: { path: `${DEJAVU}/DejaVuSansMono.ttf` },
  ...(existsSync(NOTO_CJK) ? { [FONT.cjk]: { path: NOTO_CJK, family: 'NotoSansCJKjp-Regular' } } : {}),
};

interface GlyphSource {
  hasGlyphForCodePoint(codePoint: number): boolean;
}
interface FontReader {
  openSync(path: string, postscriptName?: string): GlyphSource;
}
// fontkit is pdfkit's own font reader (a dependency of pdfkit); it answers which font holds a character. It loads
// with the first certificate that needs it, not with the process.
let fontkit: FontReader | null = null;
const opened = new Map<string, GlyphSource | null>();
function glyphs(name: string): GlyphSource | null {
  if (!opened.has(name)) {
    const font = CERTIFICATE_FONTS[name];
    fontkit ??= createRequire(import.meta.url)('fontkit') as FontReader;
    opened.set(name, font ? fontkit.openSync(font.path, font.family) : null);
  }
  return opened.get(name) ?? null;
}

/** The registered font to draw `char` in: the base font when it has the glyph, else the CJK font when that does. */
export function fontFor(base: keyof typeof FONT, char: string): string {
  const codePoint = char.codePointAt(0) ?? 0x20;
  if (codePoint < 0x250 || glyphs(FONT[base])?.hasGlyphForCodePoint(codePoint)) return FONT[base];
  return glyphs(FONT.cjk)?.hasGlyphForCodePoint(codePoint) ? FONT.cjk : FONT[base];
}
