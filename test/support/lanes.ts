// Running test cases a few at a time: renders and layout checks do their work on libuv's and ffmpeg's threads, so a
// few lanes overlap on the machines this runs on (two cores) without crowding them.

/** Runs `work` over `items` in `lanes` lanes; the answers keep the items' order. */
export async function inLanes<T, R>(items: T[], work: (item: T) => Promise<R>, lanes = 2): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return out;
}
