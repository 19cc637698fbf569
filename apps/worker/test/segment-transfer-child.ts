// Run as its own process under a small heap (`node --max-old-space-size=64 --import tsx …`):
// uploads the segment file `path` as `count` objects at once through the worker's streaming
// upload, fetches the first back into `<path>.fetched` through the worker's checked fetch, and
// prints what it saw as one JSON line: peak RSS before and after, the hashes, the key filter.
// The segment-transfer test runs it; the worker README's "segment upload" bench row is its output.
import { open } from "node:fs/promises";
import { openObjectStore, parseObjectStoreLocation } from "@lastword/object-store";
import { fetchSegmentObject, uploadSegmentFile } from "../src/durability/segment-transfer";

const [location, path, sizeText, countText] = process.argv.slice(2);
if (!location || !path || !sizeText || !countText) {
  throw new Error("usage: segment-transfer-child.ts <object store location> <segment file> <size> <count>");
}
const size = Number(sizeText);
const count = Number(countText);
const store = await openObjectStore(parseObjectStoreLocation(location), {
  accessKeyId: "test",
  secretAccessKey: "test",
});
const peakRss = () => process.resourceUsage().maxRSS * 1024;
const baseline = peakRss();
const started = performance.now();
const keys = Array.from({ length: count }, (_, i) => `segments/p/${process.pid}-${i}`);
const uploads = await Promise.all(
  keys.map(async (key) => {
    const file = await open(path, "r");
    try {
      return await uploadSegmentFile(store, key, file, size, { keyFilter: true });
    } finally {
      await file.close();
    }
  }),
);
const uploadMs = performance.now() - started;
const afterUpload = peakRss();
const out = await open(`${path}.fetched`, "w");
let written = 0;
for await (const chunk of fetchSegmentObject(store, {
  objectKey: keys[0]!,
  sha256: uploads[0]!.sha256,
  byteSize: size,
})) {
  await out.write(chunk, 0, chunk.length, written);
  written += chunk.length;
}
await out.close();
await store.close();
process.stdout.write(
  `${JSON.stringify({
    baseline,
    afterUpload,
    afterFetch: peakRss(),
    uploadMs: Math.round(uploadMs),
    sha256: uploads.map((u) => u.sha256),
    keyFilter: uploads[0]!.keyFilter?.toString("base64") ?? null,
    written,
  })}\n`,
);
