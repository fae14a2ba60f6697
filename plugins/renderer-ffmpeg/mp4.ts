// What an encoded MP4 holds, read from its own boxes (ISO/IEC 14496-12): the codec, size and length of its first video
// track and the length of the movie. The check after every render reads this instead of starting ffprobe, whose start
// alone (~0.06 s of CPU: Debian's build loads ~200 libraries) cost more than the whole read.
import { RenderError } from "./ffmpeg";

export type Mp4Facts = { codec: string; width: number; height: number; duration: number };

type Box = { type: string; start: number; end: number };

/** The boxes laid side by side in bytes [from, to) of `data`. */
function boxesIn(data: DataView, from: number, to: number): Box[] {
  const boxes: Box[] = [];
  for (let at = from; at + 8 <= to; ) {
    let size = data.getUint32(at);
    const type = String.fromCharCode(data.getUint8(at + 4), data.getUint8(at + 5), data.getUint8(at + 6), data.getUint8(at + 7));
    let head = 8;
    if (size === 1) {
      if (at + 16 > to) break;
      size = Number(data.getBigUint64(at + 8));
      head = 16;
    } else if (size === 0) size = to - at;
    if (size < head || at + size > to) throw new RenderError(`the rendered video's ${type} box runs past its end`, "invalid");
    boxes.push({ type, start: at + head, end: at + size });
    at += size;
  }
  return boxes;
}

const child = (data: DataView, box: Box, type: string) => boxesIn(data, box.start, box.end).find((b) => b.type === type);

/** A full box's (timescale, duration) pair, as mvhd and mdhd hold it after their version's creation times. */
function timing(data: DataView, box: Box): { timescale: number; duration: number } {
  const v1 = data.getUint8(box.start) === 1;
  const at = box.start + (v1 ? 20 : 12);
  return { timescale: data.getUint32(at), duration: v1 ? Number(data.getBigUint64(at + 4)) : data.getUint32(at + 4) };
}

/** The codec and coded size of a video track's first sample entry (stsd), or null for another kind of track. */
function videoEntry(data: DataView, trak: Box): { codec: string; width: number; height: number } | null {
  const mdia = child(data, trak, "mdia");
  const hdlr = mdia && child(data, mdia, "hdlr");
  if (!hdlr || data.getUint32(hdlr.start + 8) !== 0x76696465 /* "vide" */) return null;
  const minf = child(data, mdia, "minf");
  const stbl = minf && child(data, minf, "stbl");
  const stsd = stbl && child(data, stbl, "stsd");
  if (!stsd || data.getUint32(stsd.start + 4) < 1) throw new RenderError("the rendered video's track describes no samples", "invalid");
  const [entry] = boxesIn(data, stsd.start + 8, stsd.end);
  if (!entry) throw new RenderError("the rendered video's track describes no samples", "invalid");
  // A visual sample entry: 6 reserved bytes, the data reference index, 16 bytes of zeros, then width and height.
  const codec = entry.type === "avc1" || entry.type === "avc3" ? "h264" : entry.type;
  return { codec, width: data.getUint16(entry.start + 24), height: data.getUint16(entry.start + 26) };
}

/** The facts of an MP4 file; a RenderError ("invalid") when it is not a whole MP4 with a video track and its data. */
export async function mp4Facts(file: string): Promise<Mp4Facts> {
  const bytes = await Bun.file(file).arrayBuffer();
  const data = new DataView(bytes);
  const top = boxesIn(data, 0, bytes.byteLength);
  const moov = top.find((b) => b.type === "moov");
  if (!moov || !top.some((b) => b.type === "mdat")) throw new RenderError("the rendered file is not a whole MP4 (no moov or mdat box)", "invalid");
  const mvhd = child(data, moov, "mvhd");
  if (!mvhd) throw new RenderError("the rendered video has no movie header", "invalid");
  const movie = timing(data, mvhd);
  const video = boxesIn(data, moov.start, moov.end).filter((b) => b.type === "trak").map((t) => videoEntry(data, t)).find((e) => e !== null);
  if (!video) throw new RenderError("the rendered file has no video stream", "invalid");
  return { ...video, duration: movie.timescale > 0 ? movie.duration / movie.timescale : NaN };
}
