import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseRepresentations, isManifestUrl, parseMpd } from '../../../src/capture/behaviors/dash-manifest.js';

describe('DASH manifests (auto-play)', () => {
  const url = 'https://cdn.example/v/manifest.mpd';

  it('lists a SegmentTemplate with a SegmentTimeline, per adaptation set and representation', () => {
    const mpd = `<?xml version="1.0"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT3.0S">
  <Period id="0">
    <AdaptationSet contentType="video">
      <SegmentTemplate timescale="1000" initialization="init-$RepresentationID$.m4s" media="chunk-$RepresentationID$-$Number%05d$.m4s" startNumber="1">
        <SegmentTimeline><S t="0" d="1000" r="2"/></SegmentTimeline>
      </SegmentTemplate>
      <Representation id="hi" bandwidth="900000"/>
      <Representation id="lo" bandwidth="100000"/>
    </AdaptationSet>
    <AdaptationSet contentType="audio">
      <Representation id="a" bandwidth="64000">
        <BaseURL>audio/</BaseURL>
        <SegmentTemplate timescale="48000" duration="96000" initialization="init.mp4" media="$Time$.m4s"/>
      </Representation>
    </AdaptationSet>
  </Period>
</MPD>`;
    const sets = parseMpd(mpd, url);
    assert.equal(sets.length, 2);
    assert.deepEqual(sets[0]![1], {
      id: 'lo',
      bandwidth: 100000,
      segments: [
        'https://cdn.example/v/init-lo.m4s',
        'https://cdn.example/v/chunk-lo-00001.m4s',
        'https://cdn.example/v/chunk-lo-00002.m4s',
        'https://cdn.example/v/chunk-lo-00003.m4s',
      ],
    });
    // 3 s at 2 s per segment: two segments, named by their start time.
    assert.deepEqual(sets[1]![0]!.segments, [
      'https://cdn.example/v/audio/init.mp4',
      'https://cdn.example/v/audio/0.m4s',
      'https://cdn.example/v/audio/96000.m4s',
    ]);
    // The smallest of each set, unless the player already used another.
    assert.deepEqual(
      chooseRepresentations(sets, new Set()).map((r) => r.id),
      ['lo', 'a'],
    );
    assert.deepEqual(
      chooseRepresentations(sets, new Set(['https://cdn.example/v/chunk-hi-00002.m4s'])).map((r) => r.id),
      ['hi', 'a'],
    );
  });

  it('lists a SegmentList and a representation that is one file', () => {
    const mpd = `<MPD mediaPresentationDuration="PT10S"><BaseURL>https://media.example/x/</BaseURL><Period>
  <AdaptationSet><Representation id="1" bandwidth="5">
    <SegmentList><Initialization sourceURL="i.mp4"/><SegmentURL media="s1.m4s"/><SegmentURL media="s2.m4s"/></SegmentList>
  </Representation></AdaptationSet>
  <AdaptationSet><Representation id="2" bandwidth="5"><BaseURL>whole.mp4</BaseURL><SegmentBase indexRange="0-99"/></Representation></AdaptationSet>
</Period></MPD>`;
    const sets = parseMpd(mpd, url);
    assert.deepEqual(sets[0]![0]!.segments, [
      'https://media.example/x/i.mp4',
      'https://media.example/x/s1.m4s',
      'https://media.example/x/s2.m4s',
    ]);
    assert.deepEqual(sets[1]![0]!.segments, ['https://media.example/x/whole.mp4']);
  });

  it('is not fooled by what is not a manifest', () => {
    assert.deepEqual(parseMpd('<html><body>404</body></html>', url), []);
    assert.deepEqual(parseMpd('not xml at all <<<', url), []);
    assert.equal(isManifestUrl('https://a/b/manifest.mpd?x'), true);
    assert.equal(isManifestUrl('https://a/b/manifest.mpd.html'), false);
  });
});
