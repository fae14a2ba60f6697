import type { Anim, Keyframe } from "./anim";
/** A picture made for one render: `width`×`height` pixels at render scale, `w`×`h` in template pixels. */
export type Asset = {
    path: string;
    width: number;
    height: number;
    w: number;
    h: number;
    /** Text drawn in this picture, for the renderer's readable-colour pass (set by the renderer's text and buttons). */
    ink?: Ink[];
};
/** Text in a picture: its colour and size, and where its glyphs are (render pixels inside the picture). */
export type Ink = {
    color: string;
    /** Font size in template pixels and weight: large text needs 3:1 against what is behind it, other text 4.5:1. */
    size: number;
    weight: number;
    /** A PNG whose alpha is the glyphs, placed at left/top inside the picture. */
    mask: string;
    left: number;
    top: number;
    /** The fill the text sits on inside the picture (a button's face): judged against it, not against the scene. */
    on?: string[];
    /** The outline drawn around the glyphs when the fill alone was not readable. */
    outline?: string;
    /** A picture of what this picture itself draws beneath the text (a group's card), placed as this picture is. */
    under?: string;
};
export type Layer = {
    /** For error messages and layout reports. */
    name?: string;
    image: Asset;
    /** Where the anchor point sits, in template pixels (the full-size frame). */
    x: Anim;
    y: Anim;
    /** Which point of the image is placed at x/y, as fractions of its size (default the centre). */
    anchor?: [number, number];
    /** Size factor of the image; the image is made at its largest size, so keep this ≤ 1 for crisp pixels. */
    scale?: Anim;
    /** Clockwise rotation in degrees (costly per frame on big layers: keep spins short, via from/to). */
    rotate?: Anim;
    /** Fades: keyframes of 0 and 1 only, at most one fade in followed by one fade out. */
    opacity?: Keyframe[];
    /** Seconds during which the layer is shown (default: all of the video). */
    from?: number;
    to?: number;
    /** Right-to-left languages mirror x positions (default true); false keeps this layer where it is. */
    mirror?: boolean;
};
export type Background = Asset | {
    image: Asset;
    x?: Anim;
    y?: Anim;
    mirror?: boolean;
};
/** Layers are drawn in order (later on top); null/false entries are skipped, for optional parts. */
export type Scene = {
    background: Background;
    layers: (Layer | null | false | undefined)[];
};
/** Where a layer's box sits at a time, in template pixels after mirroring (for layout checks and tests). */
export type Placement = {
    name: string;
    x: number;
    y: number;
    width: number;
    height: number;
    visible: boolean;
};
