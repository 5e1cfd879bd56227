#!/usr/bin/env node
// `npm run package`: the LMS packages of the built lab (dist/, after npm run build):
//   position-lab-scorm12.zip    imsmanifest.xml (SCORM 1.2, adlcp:scormtype="sco")
//   position-lab-scorm2004.zip  imsmanifest.xml (SCORM 2004 4th edition, adlcp:scormType="sco")
//   position-lab-cmi5.zip       cmi5.xml (one AU per exercise)
// Options: --sco per-exercise|whole (one SCO/AU per exercise, the default, or
// the whole path as one), --mastery 0.8 (the passing share of the points),
// --dist DIR (default dist/), --out DIR (default dist-packages/).
// Each launch URL is index.html?lms=<kind>[&exercise=<id>]: the page's LMS
// reporter (web/js/lms/) connects only then. The zip is written here (stored
// or deflated with node:zlib), so no packaging tool is needed.
import { readFileSync, readdirSync, statSync, mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { join, dirname, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateRawSync, crc32 } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export function parseArgs(argv) {
  const o = { sco: 'per-exercise', mastery: 0.8, dist: join(root, 'dist'), out: join(root, 'dist-packages') };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`package: ${a} needs a value`);
      return v;
    };
    if (a === '--sco') o.sco = value();
    else if (a === '--mastery') o.mastery = Number(value());
    else if (a === '--dist') o.dist = value();
    else if (a === '--out') o.out = value();
    else throw new Error(`package: unknown option ${a} (allowed: --sco per-exercise|whole, --mastery 0–1, --dist DIR, --out DIR)`);
  }
  if (o.sco !== 'per-exercise' && o.sco !== 'whole') throw new Error(`package: --sco must be per-exercise or whole, got ${JSON.stringify(o.sco)}`);
  if (!(o.mastery >= 0 && o.mastery <= 1)) throw new Error(`package: --mastery must be a number from 0 to 1, got ${o.mastery}`);
  return o;
}

// ---- zip (PKWARE APPNOTE: local headers, central directory, end record) ----
function dosTime(d) {
  return { time: (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1), date: ((d.getFullYear() - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate() };
}

/** entries: [{name, data: Buffer}] → the zip as a Buffer (deflate when it helps, else store). */
export function zip(entries, { date = new Date(2026, 0, 1) } = {}) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  const { time, date: day } = dosTime(date);
  for (const { name, data } of entries) {
    const nameBuf = Buffer.from(name, 'utf8');
    const deflated = deflateRawSync(data, { level: 9 });
    const useDeflate = deflated.length < data.length;
    const body = useDeflate ? deflated : data;
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(useDeflate ? 8 : 0, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(day, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBuf.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // made by
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(useDeflate ? 8 : 0, 10);
    central.writeUInt16LE(time, 12);
    central.writeUInt16LE(day, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBuf.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBuf, body);
    centrals.push(central, nameBuf);
    offset += local.length + nameBuf.length + body.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

// ---- manifests ----
const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const xmlId = (s) => String(s).replace(/[^A-Za-z0-9_.-]/g, '_');
const TITLE = { ja: '位置エンコーディング実験室', en: 'Position Lab' };
const DESCRIPTION = { ja: 'Transformer に位置情報が必要な理由を、手を動かして学ぶ実験室です。', en: 'A hands-on lab for learning why a Transformer needs position information.' };
// An item title in SCORM is one string: Japanese first, then English.
const bothTitles = (t) => (titleOf(t, 'ja') === titleOf(t, 'en') ? titleOf(t, 'ja') : `${titleOf(t, 'ja')} / ${titleOf(t, 'en')}`);
const titleOf = (t, lang = 'ja') => (typeof t === 'object' && t ? t[lang] ?? t.en ?? t.ja : String(t));

// The units of the package: one per exercise, or the whole path.
export function units(exercises, sco) {
  if (sco === 'whole') return [{ id: 'whole', exercise: null, title: TITLE, summary: DESCRIPTION }];
  return exercises.map((e) => ({ id: e.id, exercise: e.id, title: e.title, summary: e.summary ?? e.title }));
}

export const launchQuery = (kind, u) => `?lms=${kind}${u.exercise ? `&exercise=${encodeURIComponent(u.exercise)}` : ''}`;

// The part both SCORM manifests share: the organization (one item per unit)
// and the resources (the units, then every file as one asset). 1.2 spells the
// attribute adlcp:scormtype, 2004 adlcp:scormType.
function organizationsAndResources({ items, scos, files, scormTypeAttr }) {
  return `  <organizations default="position-lab">
    <organization identifier="position-lab">
      <title>${esc(TITLE.ja)} / ${esc(TITLE.en)}</title>
${items}
    </organization>
  </organizations>
  <resources>
${scos}
    <resource identifier="lab-files" type="webcontent" adlcp:${scormTypeAttr}="asset">
${files.map((f) => `      <file href="${esc(f)}"/>`).join('\n')}
    </resource>
  </resources>`;
}

export function scorm12Manifest({ units: list, files, mastery }) {
  const items = list
    .map((u) => `      <item identifier="item-${xmlId(u.id)}" identifierref="sco-${xmlId(u.id)}" parameters="${esc(launchQuery('scorm12', u))}">
        <title>${esc(bothTitles(u.title))}</title>
        <adlcp:masteryscore>${Math.round(mastery * 100)}</adlcp:masteryscore>
      </item>`)
    .join('\n');
  const scos = list
    .map((u) => `    <resource identifier="sco-${xmlId(u.id)}" type="webcontent" adlcp:scormtype="sco" href="index.html">
      <file href="index.html"/>
      <dependency identifierref="lab-files"/>
    </resource>`)
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="position-lab-scorm12" version="1.0"
  xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xsi:schemaLocation="http://www.imsproject.org/xsd/imscp_rootv1p1p2 imscp_rootv1p1p2.xsd http://www.imsglobal.org/xsd/imsmd_rootv1p2p1 imsmd_rootv1p2p1.xsd http://www.adlnet.org/xsd/adlcp_rootv1p2 adlcp_rootv1p2.xsd">
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>1.2</schemaversion>
  </metadata>
${organizationsAndResources({ items, scos, files, scormTypeAttr: "scormtype" })}
</manifest>
`;
}

export function scorm2004Manifest({ units: list, files, mastery }) {
  const items = list
    .map((u) => `      <item identifier="item-${xmlId(u.id)}" identifierref="sco-${xmlId(u.id)}" parameters="${esc(launchQuery('scorm2004', u))}">
        <title>${esc(bothTitles(u.title))}</title>
        <imsss:sequencing>
          <imsss:objectives>
            <imsss:primaryObjective objectiveID="obj-${xmlId(u.id)}" satisfiedByMeasure="true">
              <imsss:minNormalizedMeasure>${mastery}</imsss:minNormalizedMeasure>
            </imsss:primaryObjective>
          </imsss:objectives>
        </imsss:sequencing>
      </item>`)
    .join('\n');
  const scos = list
    .map((u) => `    <resource identifier="sco-${xmlId(u.id)}" type="webcontent" adlcp:scormType="sco" href="index.html">
      <file href="index.html"/>
      <dependency identifierref="lab-files"/>
    </resource>`)
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="position-lab-scorm2004" version="1.0"
  xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"
  xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3"
  xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3"
  xmlns:imsss="http://www.imsglobal.org/xsd/imsss"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xsi:schemaLocation="http://www.imsglobal.org/xsd/imscp_v1p1 imscp_v1p1.xsd http://www.adlnet.org/xsd/adlcp_v1p3 adlcp_v1p3.xsd http://www.adlnet.org/xsd/adlseq_v1p3 adlseq_v1p3.xsd http://www.adlnet.org/xsd/adlnav_v1p3 adlnav_v1p3.xsd http://www.imsglobal.org/xsd/imsss imsss_v1p0.xsd">
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>2004 4th Edition</schemaversion>
  </metadata>
${organizationsAndResources({ items, scos, files, scormTypeAttr: "scormType" })}
</manifest>
`;
}

const langstrings = (t, indent) => ['ja', 'en'].map((l) => `${indent}<langstring lang="${l}">${esc(titleOf(t, l))}</langstring>`).join('\n');

export function cmi5Xml({ units: list, mastery }) {
  const aus = list
    .map((u) => `  <au id="urn:position-lab:au:${esc(encodeURIComponent(u.id))}" moveOn="CompletedAndPassed" masteryScore="${mastery}" launchMethod="AnyWindow">
    <title>
${langstrings(u.title, '      ')}
    </title>
    <description>
${langstrings(u.summary, '      ')}
    </description>
    <url>${esc(`index.html${launchQuery('cmi5', u)}`)}</url>
  </au>`)
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<courseStructure xmlns="https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd">
  <course id="urn:position-lab:course">
    <title>
${langstrings(TITLE, '      ')}
    </title>
    <description>
${langstrings(DESCRIPTION, '      ')}
    </description>
  </course>
${aus}
</courseStructure>
`;
}

function listFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p).split(sep).join('/'));
    }
  };
  walk(dir);
  return out;
}

// A cmi5 AU talks to the LMS's LRS, whose address comes only at launch
// (endpoint=, fetch=): so the cmi5 package's page may connect to any http(s)
// origin. The SCORM packages keep the page's own policy (connect-src 'self').
export function cmi5Page(html) {
  const text = html.toString('utf8');
  const out = text.replace(/connect-src 'self' data:/, "connect-src 'self' data: https: http:");
  if (out === text) throw new Error("package: dist/index.html has no \"connect-src 'self' data:\" in its Content-Security-Policy to widen for cmi5");
  return Buffer.from(out, 'utf8');
}

// The lab's files: everything in dist/ the page needs (not the host-page kit or the types).
const LEFT_OUT = new Set(['embed.js', 'embed-example.html', 'embed-example.js', 'poslab.d.ts', 'exercises.json']);

// The files of dist/ that go into a package. Not the server's .br/.gz copies
// (scripts/precompress.mjs): a zip is compressed anyway, and the page from
// file:// or an LMS never asks for them.
export function packageFiles(dist) {
  return listFiles(dist).filter((f) => !LEFT_OUT.has(f) && !/\.(br|gz)$/.test(f));
}

export function buildPackages(o) {
  for (const f of ['index.html', 'app.js', 'poslab.js', 'exercises.json']) if (!existsSync(join(o.dist, f))) throw new Error(`package: ${join(o.dist, f)} is missing: run npm run build first`);
  const exercises = JSON.parse(readFileSync(join(o.dist, 'exercises.json'), 'utf8'));
  const files = packageFiles(o.dist);
  const list = units(exercises, o.sco);
  const content = files.map((f) => ({ name: f, data: readFileSync(join(o.dist, f)) }));
  mkdirSync(o.out, { recursive: true });
  const written = {};
  const write = (kind, descriptor, text) => {
    const path = join(o.out, `position-lab-${kind}.zip`);
    const files = kind === 'cmi5' ? content.map((c) => (c.name === 'index.html' ? { name: c.name, data: cmi5Page(c.data) } : c)) : content;
    writeFileSync(path, zip([{ name: descriptor, data: Buffer.from(text, 'utf8') }, ...files]));
    written[kind] = path;
  };
  write('scorm12', 'imsmanifest.xml', scorm12Manifest({ units: list, files, mastery: o.mastery }));
  write('scorm2004', 'imsmanifest.xml', scorm2004Manifest({ units: list, files, mastery: o.mastery }));
  write('cmi5', 'cmi5.xml', cmi5Xml({ units: list, mastery: o.mastery }));
  return { written, units: list, files };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const o = parseArgs(process.argv.slice(2));
    const r = buildPackages(o);
    for (const [kind, path] of Object.entries(r.written)) console.log(`package: ${kind}: ${relative(process.cwd(), path)} (${r.units.length} ${o.sco === 'whole' ? 'unit: the whole path' : 'units, one per exercise'}, ${r.files.length} files, ${statSync(path).size} bytes)`);
  } catch (e) {
    console.error(e.message);
    process.exit(2);
  }
}
