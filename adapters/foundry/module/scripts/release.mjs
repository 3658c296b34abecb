// Zip a release: module.json, the built bundle and the styles, as Foundry installs it
// (release/vttbridge-<version>.zip, files at the zip's root). Run `npm run release`.
// A small stored/deflated zip writer on node:zlib, so the release needs no extra package.
import { deflateRawSync, crc32 } from "node:zlib";
import { readFileSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const manifest = JSON.parse(readFileSync(path.join(root, "module.json"), "utf8"));
const files = ["module.json", ...manifest.esmodules, ...manifest.styles];
for (const f of files) {
  if (!existsSync(path.join(root, f))) {
    console.error(`release: ${f} is missing (run npm run build first)`);
    process.exit(1);
  }
}

function zip(entries) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const packed = deflateRawSync(data);
    const nameBuf = Buffer.from(name, "utf8");
    const crc = crc32(data);
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4); // version needed
    header.writeUInt16LE(0x0800, 6); // UTF-8 names
    header.writeUInt16LE(8, 8); // deflate
    header.writeUInt32LE(0, 10); // time, date
    header.writeUInt32LE(crc, 14);
    header.writeUInt32LE(packed.length, 18);
    header.writeUInt32LE(data.length, 22);
    header.writeUInt16LE(nameBuf.length, 26);
    header.writeUInt16LE(0, 28);
    locals.push(header, nameBuf, packed);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(0, 12);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBuf.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, nameBuf);
    offset += header.length + nameBuf.length + packed.length;
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

const out = path.join(root, "release", `${manifest.id}-${manifest.version}.zip`);
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, zip(files.map((name) => ({ name, data: readFileSync(path.join(root, name)) }))));
writeFileSync(path.join(root, "release", "module.json"), JSON.stringify(manifest, null, 2) + "\n");
console.log(`release: ${path.relative(process.cwd(), out)} (${files.length} files)`);
