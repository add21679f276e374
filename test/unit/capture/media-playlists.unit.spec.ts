import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseRendition, isPlaylistUrl, parsePlaylist } from '../../../src/capture/behaviors/media-playlists.js';

describe('HLS playlists (auto-play)', () => {
  const base = 'https://cdn.example/v/master.m3u8?token=1';

  it('reads a multivariant playlist: each rendition with its bandwidth, resolved against the playlist', () => {
    const text = [
      '#EXTM3U',
      '#EXT-X-STREAM-INF:BANDWIDTH=600000,RESOLUTION=320x240',
      'high/index.m3u8',
      '#EXT-X-STREAM-INF:AVERAGE-BANDWIDTH=150000,BANDWIDTH=200000',
      'https://other.example/low.m3u8',
    ].join('\n');
    assert.deepEqual(parsePlaylist(text, base), {
      kind: 'multivariant',
      renditions: [
        { url: 'https://cdn.example/v/high/index.m3u8', bandwidth: 600000 },
        { url: 'https://other.example/low.m3u8', bandwidth: 200000 },
      ],
    });
  });

  it('reads a media playlist: init segment, key and segments, once each', () => {
    const text = [
      '#EXTM3U',
      '#EXT-X-MAP:URI="init.mp4"',
      '#EXT-X-KEY:METHOD=AES-128,URI="/keys/1"',
      '#EXTINF:1.0,',
      'seg0.ts',
      '#EXTINF:1.0,',
      'seg1.ts',
      'seg1.ts',
      '#EXT-X-ENDLIST',
    ].join('\r\n');
    assert.deepEqual(parsePlaylist(text, base), {
      kind: 'media',
      segments: [
        'https://cdn.example/v/init.mp4',
        'https://cdn.example/keys/1',
        'https://cdn.example/v/seg0.ts',
        'https://cdn.example/v/seg1.ts',
      ],
    });
  });

  it('is not fooled by what is not a playlist', () => {
    assert.deepEqual(parsePlaylist('<html>404</html>', base), { kind: 'unknown' });
  });

  it('keeps the rendition the player chose, else the smallest', () => {
    const renditions = [
      { url: 'https://a/high.m3u8', bandwidth: 600 },
      { url: 'https://a/low.m3u8', bandwidth: 200 },
      { url: 'https://a/mid.m3u8', bandwidth: 400 },
    ];
    assert.equal(chooseRendition(renditions, new Set(['https://a/mid.m3u8']))?.url, 'https://a/mid.m3u8');
    assert.equal(chooseRendition(renditions, new Set())?.url, 'https://a/low.m3u8');
    assert.equal(chooseRendition([], new Set()), undefined);
  });

  it('knows a playlist by its path', () => {
    assert.equal(isPlaylistUrl('https://a/v/index.m3u8?x=1'), true);
    assert.equal(isPlaylistUrl('https://a/v/index.m3u8.txt'), false);
    assert.equal(isPlaylistUrl('not a url'), false);
  });
});
