// Edge decontamination for cut-outs: semi-transparent edge pixels get an estimate of the product's own colour instead
// of the photo's mix of product and old background, so a cut-out on a new backdrop shows no fringe of the old one.
//
// The estimate is Forte and Pitié's blur fusion ("Approximate fast foreground colour estimation", ICIP 2021):
// F = F̂ + α·(I − α·F̂ − (1−α)·B̂), with F̂ and B̂ the alpha-weighted local means of foreground and background colour,
// run twice: once with a wide window (computed on a grid 4× coarser, it only has to be smooth) and once with a narrow
// one on the first pass's result, so each edge pixel borrows colour from the product right next to it. The narrow
// pass takes its background from the photo's fully transparent pixels nearby, which follows gradients and textures
// better than the paper's re-blurred coarse background. Only pixels with 0 < α < 1 change colour; fully transparent
// pixels touching the product take the product's colour too (invisible, but a renderer that scales the cut-out without
// premultiplying alpha would otherwise pull the old background into the edge).

/** The wide pass works on cells this many pixels square. */
const GRID = 4;
/** Opaque pixels this close (chessboard) to a non-opaque one are part of the band. */
const RING = 2;
/** The most of an opaque edge pixel's colour that can be taken for background, and the least colour difference (RGB) that lets it. */
const MAX_UNMIX = 0.6;
const MIN_CONTRAST = 30;

/** The window radii for a cut-out of this size: wide ≈ 1/12 of the longer side, narrow 6 px per 1024. */
export function edgeRadii(width: number, height: number): { wide: number; narrow: number } {
  const side = Math.max(width, height);
  return { wide: Math.max(8, Math.round(side / 12)), narrow: Math.max(3, Math.round((6 * side) / 1024)) };
}

/** Running-sum box filter in place over a w×h plane (window (2r+1)², clipped at the borders, sums not means). */
function boxSum(plane: Float32Array, w: number, h: number, r: number, tmp: Float32Array, column: Float64Array) {
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let sum = 0;
    for (let x = 0; x < Math.min(r, w); x++) sum += plane[row + x];
    for (let x = 0; x < w; x++) {
      if (x + r < w) sum += plane[row + x + r];
      if (x > r) sum -= plane[row + x - r - 1];
      tmp[row + x] = sum;
    }
  }
  // Down the columns a row at a time (not a column at a time, which strides through memory). The sums are whole
  // numbers well below 2^53, exact in any order, so the result is as the column-by-column one was.
  column.fill(0);
  for (let y = 0; y < Math.min(r, h); y++) for (let x = 0, j = y * w; x < w; x++, j++) column[x] += tmp[j];
  for (let y = 0; y < h; y++) {
    const into = (y + r) * w, from = (y - r - 1) * w, at = y * w;
    if (y + r < h && y > r) {
      for (let x = 0; x < w; x++) plane[at + x] = column[x] += tmp[into + x] - tmp[from + x];
      continue;
    }
    if (y + r < h) for (let x = 0; x < w; x++) column[x] += tmp[into + x];
    if (y > r) for (let x = 0; x < w; x++) column[x] -= tmp[from + x];
    for (let x = 0; x < w; x++) plane[at + x] = column[x];
  }
}

/** Pixels whose colour is re-estimated, in raster order: partly transparent ones, and transparent ones touching the product. */
export function edgeBand(alpha: Uint8Array, w: number, h: number): Int32Array {
  // edge: partly transparent, or transparent beside a pixel that is not. near: an edge pixel lies within RING along
  // the row; its rows are padded to whole 4-byte words so they can be added four columns at a time.
  const stride = (w + 3) & ~3;
  const edge = new Uint8Array(w * h);
  const near = new Uint8Array(stride * h);
  const rowNear = new Uint8Array(h);
  for (let y = 0, i = 0; y < h; y++) {
    let marked = -1; // the row's near[] is set up to this x
    for (let x = 0; x < w; x++, i++) {
      const a = alpha[i];
      if (a === 255) continue;
      if (a === 0 && !((x > 0 && alpha[i - 1] > 0) || (x < w - 1 && alpha[i + 1] > 0) || (y > 0 && alpha[i - w] > 0) || (y < h - 1 && alpha[i + w] > 0))) continue;
      edge[i] = 1;
      const to = Math.min(w - 1, x + RING);
      for (let xx = Math.max(marked + 1, x - RING), j = y * stride + xx; xx <= to; xx++, j++) near[j] = 1;
      marked = to;
    }
    rowNear[y] = marked >= 0 ? 1 : 0;
  }
  // Opaque pixels next to the edge carry some of the old background too (the photo's own blur, JPEG's halved chroma):
  // those within RING of an edge pixel (chessboard), found by counting near[] down each column over 2·RING+1 rows.
  // Counts stay below 256, so adding and taking away whole words never carries from one column into the next.
  const within = new Uint8Array(stride);
  const within4 = new Uint32Array(within.buffer), near4 = new Uint32Array(near.buffer);
  const words = stride >> 2;
  const update = (y: number, sign: number) => {
    if (y < 0 || y >= h || !rowNear[y]) return;
    if (sign > 0) for (let c = 0, j = y * words; c < words; c++, j++) within4[c] += near4[j];
    else for (let c = 0, j = y * words; c < words; c++, j++) within4[c] -= near4[j];
  };
  for (let y = 0; y < RING; y++) update(y, 1);
  const band = new Int32Array(w * h);
  let n = 0;
  for (let y = 0; y < h; y++) {
    update(y + RING, 1);
    update(y - RING - 1, -1);
    // Every band pixel has a count: an edge pixel counts itself.
    for (let c = 0; c < words; c++) {
      if (within4[c] === 0) continue;
      for (let x = c * 4, end = Math.min(w, x + 4), i = y * w + x; x < end; x++, i++) {
        if (within[x] && (edge[i] || alpha[i] === 255)) band[n++] = i;
      }
    }
  }
  return band.slice(0, n);
}

/**
 * An opaque edge pixel's colour less its share of background: the part of (I − F̂) along the line from F̂ to B̂, at most
 * MAX_UNMIX of it, and nothing where foreground and background colours are too alike to tell apart or where the
 * pixel strays from that line more than it follows it.
 */
function unmix(out: Uint8Array, o: number, photo: Uint8Array, p: number, fg: ArrayLike<number>, f: number, bg: ArrayLike<number>, b: number) {
  const dr = bg[b] - fg[f], dg = bg[b + 1] - fg[f + 1], db = bg[b + 2] - fg[f + 2];
  const d2 = dr * dr + dg * dg + db * db;
  if (d2 < MIN_CONTRAST * MIN_CONTRAST) return;
  const er = photo[p] - fg[f], eg = photo[p + 1] - fg[f + 1], eb = photo[p + 2] - fg[f + 2];
  const t = (er * dr + eg * dg + eb * db) / d2;
  // A pixel that differs from F̂ mostly across the line is product detail (a rim, a seam), not background showing through.
  const along2 = t * t * d2;
  if (t <= 0 || er * er + eg * eg + eb * eb - along2 > along2) return;
  const beta = t <= 0 ? 0 : t > MAX_UNMIX ? MAX_UNMIX : t;
  out[o] = clamp255(photo[p] - beta * dr);
  out[o + 1] = clamp255(photo[p + 1] - beta * dg);
  out[o + 2] = clamp255(photo[p + 2] - beta * db);
}

/**
 * The wide pass's local means on the coarse grid: per cell the alpha-weighted mean colour (foreground, planes 0–2) and
 * the (1−α)-weighted one (background, planes 3–5) over the wide window. A cell with no weight in reach takes the whole
 * image's mean.
 */
function coarseMeans(rgba: Uint8Array, w: number, h: number, radius: number) {
  const gw = Math.ceil(w / GRID);
  const gh = Math.ceil(h / GRID);
  const g = gw * gh;
  // Eight planes in one block: Σα, Σα·RGB, Σ(1−α), Σ(1−α)·RGB.
  const block = new Float32Array(g * 8);
  const planes = Array.from({ length: 8 }, (_, k) => block.subarray(k * g, (k + 1) * g));
  const [sa, sfr, sfg, sfb, sb, sbr, sbg, sbb] = planes;
  // One pixel per cell, the one nearest its centre: a wide window holds hundreds of cells, plenty for a smooth mean.
  // The whole image's sums (whole numbers, exact in a double) are the fallback for a cell with no weight in reach.
  let ta = 0, tfr = 0, tfg = 0, tfb = 0, tb = 0, tbr = 0, tbg = 0, tbb = 0;
  for (let gy = 0, cell = 0; gy < gh; gy++) {
    const row = Math.min(h - 1, gy * GRID + (GRID >> 1)) * w;
    for (let gx = 0; gx < gw; gx++, cell++) {
      const q = (row + Math.min(w - 1, gx * GRID + (GRID >> 1))) * 4;
      const a = rgba[q + 3], b = 255 - a;
      const red = rgba[q], green = rgba[q + 1], blue = rgba[q + 2];
      (ta += sa[cell] = a), (tfr += sfr[cell] = a * red), (tfg += sfg[cell] = a * green), (tfb += sfb[cell] = a * blue);
      (tb += sb[cell] = b), (tbr += sbr[cell] = b * red), (tbg += sbg[cell] = b * green), (tbb += sbb[cell] = b * blue);
    }
  }
  const tmp = new Float32Array(g);
  const r = Math.max(1, Math.round(radius / GRID));
  const column = new Float64Array(gw);
  for (const plane of planes) boxSum(plane, gw, gh, r, tmp, column);
  // Six means per cell side by side (F̂ then B̂), so a bilinear sample reads four runs of six.
  const [fr, fg, fb] = ta > 0 ? [tfr / ta, tfg / ta, tfb / ta] : [0, 0, 0];
  const [br, bg, bb] = tb > 0 ? [tbr / tb, tbg / tb, tbb / tb] : [0, 0, 0];
  const means = new Float32Array(g * 6);
  for (let c = 0, o = 0; c < g; c++, o += 6) {
    const a = sa[c], b = sb[c];
    if (a > 0) (means[o] = sfr[c] / a), (means[o + 1] = sfg[c] / a), (means[o + 2] = sfb[c] / a);
    else (means[o] = fr), (means[o + 1] = fg), (means[o + 2] = fb);
    if (b > 0) (means[o + 3] = sbr[c] / b), (means[o + 4] = sbg[c] / b), (means[o + 5] = sbb[c] / b);
    else (means[o + 3] = br), (means[o + 4] = bg), (means[o + 5] = bb);
  }
  return { gw, gh, means };
}

/**
 * Where each pixel column and row falls on the coarse grid for bilinear sampling: the two cells on either side and the
 * weight of the second, the same numbers sampleCoarse would work out per pixel.
 */
function coarseTaps(n: number, cells: number) {
  const first = new Int32Array(n), second = new Int32Array(n), weight = new Float64Array(n);
  for (let x = 0; x < n; x++) {
    const u = Math.min(cells - 1, Math.max(0, (x + 0.5) / GRID - 0.5));
    first[x] = u | 0;
    second[x] = Math.min(cells - 1, first[x] + 1);
    weight[x] = u - first[x];
  }
  return { first, second, weight };
}

type Coarse = { gw: number; means: Float32Array; cols: ReturnType<typeof coarseTaps>; rows: ReturnType<typeof coarseTaps> };

/** The coarse background (means 3–5) sampled bilinearly at one pixel's centre, into out[5..7]. */
function sampleCoarse(coarse: Coarse, x: number, y: number, out: Float32Array) {
  const { gw, means, cols, rows } = coarse;
  const row0 = rows.first[y] * gw, row1 = rows.second[y] * gw;
  const i00 = (row0 + cols.first[x]) * 6, i01 = (row0 + cols.second[x]) * 6;
  const i10 = (row1 + cols.first[x]) * 6, i11 = (row1 + cols.second[x]) * 6;
  for (let c = 3; c < 6; c++) out[2 + c] = bilinear(means, i00 + c, i01 + c, i10 + c, i11 + c, cols.weight[x], rows.weight[y]);
}

/** One coarse mean sampled bilinearly from its four cells, rounded to float32 as the means are kept. */
function bilinear(means: Float32Array, i00: number, i01: number, i10: number, i11: number, fx: number, fy: number) {
  const top = means[i00] + (means[i01] - means[i00]) * fx;
  const bottom = means[i10] + (means[i11] - means[i10]) * fx;
  return Math.fround(top + (bottom - top) * fy);
}

/**
 * To a byte, as v < 0 ? 0 : v > 255 ? 255 : Math.round(v) would, without Math.round (several times slower here): adding ½
 * and truncating rounds every double from 0.5 up the same way, and below 0.5 both give 0.
 */
const clamp255 = (v: number) => (v < 0.5 ? 0 : v >= 254.5 ? 255 : (v + 0.5) | 0);

/** The alpha plane of RGBA pixels. */
function alphaOf(rgba: Uint8Array, w: number, h: number): Uint8Array {
  const alpha = new Uint8Array(w * h);
  for (let i = 0; i < alpha.length; i++) alpha[i] = rgba[i * 4 + 3];
  return alpha;
}

/**
 * Decontaminates the edges of a cut-out in place: `rgba` is the photo cropped to the cut-out with its matte as alpha.
 * Alpha is left as it is. The band depends on alpha alone, so a caller holding the alpha plane before the colours can
 * find it first (edgeBand) and pass it in.
 */
export function decontaminate(rgba: Uint8Array, w: number, h: number, band = edgeBand(alphaOf(rgba, w, h), w, h)): void {
  if (band.length === 0) return;
  const { wide, narrow } = edgeRadii(w, h);
  const { gw, gh, means } = coarseMeans(rgba, w, h, wide);
  const coarse: Coarse = { gw, means, cols: coarseTaps(w, gw), rows: coarseTaps(h, gh) };
  // The photo's colour at the band (the narrow pass needs it after F1 has taken its place), and at partly transparent
  // pixels the coarse background, the narrow pass's fallback where no fully transparent pixel is in reach.
  const photo = new Uint8Array(band.length * 3);
  const coarseB = new Float32Array(band.length * 3);
  widePass(rgba, w, band, coarse, photo, coarseB);
  // The narrow pass reads F1 around each pixel, so its results wait in photo (each pixel's own colour is its last use)
  // until the whole band is done.
  narrowSums(rgba, w, h, narrow, band, { photo, coarseB, coarse, sums: new Float32Array(8) });
  for (let k = 0; k < band.length; k++) {
    const q = band[k] * 4, p = k * 3;
    (rgba[q] = photo[p]), (rgba[q + 1] = photo[p + 1]), (rgba[q + 2] = photo[p + 2]);
  }
}

/** Keeps the band's colours in photo, and gives its partly transparent pixels F1, the wide pass's estimate. */
function widePass(rgba: Uint8Array, w: number, band: Int32Array, coarse: Coarse, photo: Uint8Array, coarseB: Float32Array) {
  const { gw, means } = coarse;
  const { first: colFirst, second: colSecond, weight: colWeight } = coarse.cols;
  const { first: rowFirst, second: rowSecond, weight: rowWeight } = coarse.rows;
  for (let k = 0, y = -1, row = -w, row0 = 0, row1 = 0, fy = 0; k < band.length; k++) {
    const i = band[k];
    if (i >= row + w) {
      while (i >= row + w) (row += w), y++;
      (row0 = rowFirst[y] * gw), (row1 = rowSecond[y] * gw), (fy = rowWeight[y]);
    }
    const q = i * 4, p = k * 3;
    const alpha = rgba[q + 3];
    (photo[p] = rgba[q]), (photo[p + 1] = rgba[q + 1]), (photo[p + 2] = rgba[q + 2]);
    if (alpha === 0 || alpha === 255) continue;
    const x = i - row, fx = colWeight[x];
    const i00 = (row0 + colFirst[x]) * 6, i01 = (row0 + colSecond[x]) * 6, i10 = (row1 + colFirst[x]) * 6, i11 = (row1 + colSecond[x]) * 6;
    const a = alpha / 255;
    for (let c = 0; c < 3; c++) {
      const f = bilinear(means, i00 + c, i01 + c, i10 + c, i11 + c, fx, fy);
      const b = (coarseB[p + c] = bilinear(means, i00 + c + 3, i01 + c + 3, i10 + c + 3, i11 + c + 3, fx, fy));
      rgba[q + c] = clamp255(f + a * (photo[p + c] - a * f - (1 - a) * b));
    }
  }
}

type Narrow = { photo: Uint8Array; coarseB: Float32Array; coarse: Coarse; sums: Float32Array };

/** The narrow pass's estimate for a partly transparent pixel of photo colour v, from the local means F̂ and B̂. */
const blend = (fg: number, bg: number, a: number, v: number) => clamp255(fg + a * (v - a * fg - (1 - a) * bg));

/**
 * The narrow pass at opaque or transparent band pixel k, from its window sums, into photo: an opaque pixel unmixed
 * (its background the coarse one where no fully transparent pixel is in reach), a transparent one given the product's
 * colour. Partly transparent pixels are done in narrowSums.
 */
function narrowPixel(rgba: Uint8Array, k: number, q: number, x: number, y: number, { photo, coarse, sums }: Narrow) {
  const alpha = rgba[q + 3], p = k * 3;
  const sa = sums[0], sn = sums[4];
  if (alpha === 255) {
    // F̂ into sums[1..3] and B̂ into sums[5..7], both as float32 as they always were.
    (sums[1] /= sa), (sums[2] /= sa), (sums[3] /= sa);
    if (sn > 0) (sums[5] /= sn), (sums[6] /= sn), (sums[7] /= sn);
    else sampleCoarse(coarse, x, y, sums);
    unmix(photo, p, photo, p, sums, 1, sums, 5);
    return;
  }
  // Invisible, but it is what a renderer that scales without premultiplying alpha blends into the edge.
  if (sa > 0) (photo[p] = clamp255(sums[1] / sa)), (photo[p + 1] = clamp255(sums[2] / sa)), (photo[p + 2] = clamp255(sums[3] / sa));
}

/**
 * The narrow pass's window sums at each band pixel, handed to narrowPixel in narrow.sums: Σα, Σα·F (3), the count of
 * fully transparent pixels and the sum of their colour (3). Each column keeps its sums over the 2r+1 rows around the
 * current row, slid down a row at a time (only in columns within r of a band pixel of that row); the window's sums slide
 * along the row from band pixel to band pixel. The sums are whole numbers added in integers, so their order does not
 * matter; up to r = 7 (cut-outs up to 1237 px; the plugin makes them at most 1024) no window's sum reaches 2^24, so they
 * are also what the float32 sums made before came to. Above, those lost precision and a byte may differ by 1.
 */
function narrowSums(rgba: Uint8Array, w: number, h: number, r: number, band: Int32Array, narrow: Narrow) {
  const sums = narrow.sums;
  const cols = new Int32Array(w * 8);
  const colRow = new Int32Array(w).fill(-h - 2 * r - 2); // the row each column's sums are for (long ago: none)
  for (let k = 0; k < band.length; ) {
    const y = (band[k] / w) | 0, row = y * w, rowEnd = row + w;
    let ready = -1; // columns up to this one are at row y
    let at = -w - 2 * r - 2; // the window the local sums are for (none yet)
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    for (; k < band.length && band[k] < rowEnd; k++) {
      const x = band[k] - row;
      const last = Math.min(w - 1, x + r);
      for (let c = Math.max(ready + 1, x - r); c <= last; c++) {
        if (colRow[c] !== y - 1 || y <= r || y + r >= h) {
          columnTo(rgba, w, h, r, c, y, cols, colRow);
          continue;
        }
        // The usual case, one row down with both rows inside the image: one pixel in, one out, without branches.
        colRow[c] = y;
        const qi = ((y + r) * w + c) * 4, qo = ((y - r - 1) * w + c) * 4, o = c * 8;
        const ai = rgba[qi + 3], ri = rgba[qi], gi = rgba[qi + 1], bi = rgba[qi + 2], ci = ai === 0 ? 1 : 0;
        const ao = rgba[qo + 3], ro = rgba[qo], go = rgba[qo + 1], bo = rgba[qo + 2], co = ao === 0 ? 1 : 0;
        (cols[o] += ai - ao), (cols[o + 1] += ai * ri - ao * ro), (cols[o + 2] += ai * gi - ao * go), (cols[o + 3] += ai * bi - ao * bo);
        (cols[o + 4] += ci - co), (cols[o + 5] += ci * ri - co * ro), (cols[o + 6] += ci * gi - co * go), (cols[o + 7] += ci * bi - co * bo);
      }
      if (last > ready) ready = last;
      if (x - at > 2 * r + 1) {
        s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0;
        for (let o = Math.max(0, x - r) * 8; o <= last * 8; o += 8) {
          (s0 += cols[o]), (s1 += cols[o + 1]), (s2 += cols[o + 2]), (s3 += cols[o + 3]);
          (s4 += cols[o + 4]), (s5 += cols[o + 5]), (s6 += cols[o + 6]), (s7 += cols[o + 7]);
        }
      } else {
        // Columns passed over between two windows go in and out again unchanged, stale or not.
        for (let c = at + 1; c <= x; c++) {
          if (c + r < w) {
            const o = (c + r) * 8;
            (s0 += cols[o]), (s1 += cols[o + 1]), (s2 += cols[o + 2]), (s3 += cols[o + 3]);
            (s4 += cols[o + 4]), (s5 += cols[o + 5]), (s6 += cols[o + 6]), (s7 += cols[o + 7]);
          }
          if (c > r) {
            const o = (c - r - 1) * 8;
            (s0 -= cols[o]), (s1 -= cols[o + 1]), (s2 -= cols[o + 2]), (s3 -= cols[o + 3]);
            (s4 -= cols[o + 4]), (s5 -= cols[o + 5]), (s6 -= cols[o + 6]), (s7 -= cols[o + 7]);
          }
        }
      }
      at = x;
      const q = band[k] * 4, alpha = rgba[q + 3];
      if (alpha === 255 || alpha === 0) {
        (sums[0] = s0), (sums[1] = s1), (sums[2] = s2), (sums[3] = s3), (sums[4] = s4), (sums[5] = s5), (sums[6] = s6), (sums[7] = s7);
        narrowPixel(rgba, k, q, x, y, narrow);
        continue;
      }
      // Partly transparent (most of the band in fur), done here from the sums as float32 values, as narrowPixel has them.
      const { photo, coarseB } = narrow, p = k * 3, a = alpha / 255;
      const sa = Math.fround(s0), sn = Math.fround(s4);
      photo[p] = blend(sa > 0 ? Math.fround(s1) / sa : rgba[q], sn > 0 ? Math.fround(s5) / sn : coarseB[p], a, photo[p]);
      photo[p + 1] = blend(sa > 0 ? Math.fround(s2) / sa : rgba[q + 1], sn > 0 ? Math.fround(s6) / sn : coarseB[p + 1], a, photo[p + 1]);
      photo[p + 2] = blend(sa > 0 ? Math.fround(s3) / sa : rgba[q + 2], sn > 0 ? Math.fround(s7) / sn : coarseB[p + 2], a, photo[p + 2]);
    }
  }
}

/** Brings column x's sums to row y: slid down from the row they are for if that is close, otherwise made afresh. */
function columnTo(rgba: Uint8Array, w: number, h: number, r: number, x: number, y: number, cols: Int32Array, colRow: Int32Array) {
  const o = x * 8;
  const from = colRow[x];
  colRow[x] = y;
  if (y - from <= r) {
    for (let yy = from + 1; yy <= y; yy++) {
      if (yy + r < h) addPixel(rgba, ((yy + r) * w + x) * 4, 1, cols, o);
      if (yy > r) addPixel(rgba, ((yy - r - 1) * w + x) * 4, -1, cols, o);
    }
    return;
  }
  cols.fill(0, o, o + 8);
  for (let yy = Math.max(0, y - r), end = Math.min(h - 1, y + r); yy <= end; yy++) addPixel(rgba, (yy * w + x) * 4, 1, cols, o);
}

/** Adds (sign 1) or takes out (sign −1) one pixel's values at cols[o..o+7]: α and α·RGB, and if it is fully transparent 1 and RGB. */
function addPixel(rgba: Uint8Array, q: number, sign: number, cols: Int32Array, o: number) {
  const a = sign * rgba[q + 3], clear = a === 0 ? sign : 0;
  (cols[o] += a), (cols[o + 1] += a * rgba[q]), (cols[o + 2] += a * rgba[q + 1]), (cols[o + 3] += a * rgba[q + 2]);
  (cols[o + 4] += clear), (cols[o + 5] += clear * rgba[q]), (cols[o + 6] += clear * rgba[q + 1]), (cols[o + 7] += clear * rgba[q + 2]);
}
