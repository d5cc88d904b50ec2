import { expect } from 'chai';
import { judgePrintFile } from '../../src/modules/print-files/print-file-rules.ts';
import {
  htmlWithInlineSvg,
  tinyEps,
  tinyHtml,
  tinyIco,
  tinyJpeg,
  tinyPdf,
  tinyPng,
  tinyPostScript,
  tinySvg,
} from './print-file-fixtures.ts';

describe('print file rules (bytes + URL path)', () => {
  it('accepts PDF, PNG and JPEG whatever the URL is called', async () => {
    expect(await judgePrintFile(tinyPdf(), '/download')).to.deep.equal({
      ok: true,
      fileType: 'pdf',
      needsConversion: false,
    });
    expect(await judgePrintFile(tinyPng(), '/art.pdf')).to.deep.equal({
      ok: true,
      fileType: 'png',
      needsConversion: false,
    });
    expect(await judgePrintFile(tinyJpeg(), '/photo.jpeg')).to.deep.equal({
      ok: true,
      fileType: 'jpg',
      needsConversion: false,
    });
  });

  it('accepts EPS, PS and SVG only behind their own extension, case-insensitively', async () => {
    expect(await judgePrintFile(tinyEps(), '/logo.EPS')).to.deep.equal({
      ok: true,
      fileType: 'eps',
      needsConversion: true,
    });
    expect(await judgePrintFile(tinyPostScript(), '/proof.ps')).to.deep.equal({
      ok: true,
      fileType: 'ps',
      needsConversion: true,
    });
    expect(await judgePrintFile(tinySvg(), '/card.Svg')).to.deep.equal({
      ok: true,
      fileType: 'svg',
      needsConversion: true,
    });
    expect(await judgePrintFile(tinySvg(), '/card%2Esvg')).to.deep.equal({
      ok: true,
      fileType: 'svg',
      needsConversion: true,
    });
  });

  it('accepts Illustrator files, PDF-based or PostScript-based, behind .ai', async () => {
    expect(await judgePrintFile(tinyPdf(), '/design.ai')).to.deep.equal({
      ok: true,
      fileType: 'ai',
      needsConversion: true,
    });
    expect(await judgePrintFile(tinyPostScript(), '/design.ai')).to.deep.equal({
      ok: true,
      fileType: 'ai',
      needsConversion: true,
    });
  });

  it('refuses an EPS that is not behind .eps, .ps or .ai', async () => {
    const verdict = await judgePrintFile(tinyEps(), '/logo');
    expect(verdict).to.deep.equal({
      ok: false,
      reason:
        'the file is an EPS file, not a PDF, PNG or JPG; EPS, PS and AI files are accepted only when the URL ends in .eps, .ps or .ai',
    });
  });

  it('refuses an extension the bytes do not back up', async () => {
    expect(await judgePrintFile(tinyHtml(), '/card.svg')).to.deep.equal({
      ok: false,
      reason: 'the URL ends in .svg but the file is an HTML document, not an SVG image',
    });
    expect(await judgePrintFile(htmlWithInlineSvg(), '/card.svg')).to.deep.equal({
      ok: false,
      reason: 'the URL ends in .svg but the file is an HTML document, not an SVG image',
    });
    expect(await judgePrintFile(tinyPng(), '/logo.eps')).to.deep.equal({
      ok: true,
      fileType: 'png',
      needsConversion: false,
    });
    expect(await judgePrintFile(Buffer.from('hello'), '/logo.eps')).to.deep.equal({
      ok: false,
      reason: 'the URL ends in .eps but the file is plain text, not an EPS file',
    });
  });

  it('names what the file really is when refusing it', async () => {
    const reason = async (bytes: Buffer, path = '/file.pdf') =>
      ((await judgePrintFile(bytes, path)) as { reason: string }).reason;
    expect(await reason(tinyIco())).to.equal('the file is an ICO icon, not a PDF, PNG or JPG');
    expect(await reason(tinyHtml())).to.equal('the file is an HTML document, not a PDF, PNG or JPG');
    expect(await reason(Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'))).to.equal(
      'the file is a GIF image, not a PDF, PNG or JPG',
    );
    expect(await reason(Buffer.from('{"error":"not found"}'))).to.equal(
      'the file is a JSON document, not a PDF, PNG or JPG',
    );
    expect(await reason(Buffer.from([0x00, 0x01, 0x02, 0x03, 0xfe]))).to.equal(
      'the file is of an unknown type, not a PDF, PNG or JPG',
    );
    expect(await reason(Buffer.alloc(0))).to.equal('the file is empty');
    expect(await reason(tinySvg())).to.equal(
      'the file is an SVG image, not a PDF, PNG or JPG; SVG files are accepted only when the URL ends in .svg',
    );
  });
});
