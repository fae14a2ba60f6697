import type { JavaScriptTypeBuilder } from "@sinclair/typebox";
import { sum, valueAt, wave } from "./anim";
import { contrastRatio, darken, defineTemplate, firstSentence, inkOn, legible, lighten, luminance, mix, phrasesFrom, readableOn } from "./define";
/**
 * TypeBox's builder as templates and folder plugins are given it. Elysia's `t` is one (with extras for request
 * bodies they do not need); naming it by TypeBox alone keeps Elysia out of the plugin kit's declarations.
 */
export type TypeBuilder = Omit<JavaScriptTypeBuilder, "Transform">;
declare const typeBuilder: TypeBuilder;
export { typeBuilder as t };
export { sum, valueAt, wave } from "./anim";
export { contrastRatio, darken, defineTemplate, fields, firstSentence, inkOn, legible, lighten, luminance, mix, phrasesFrom, readableOn } from "./define";
export { TEXT_FLOORS, shrinkFloor } from "./define";
export { ROLE_FAMILIES, SHIPPED_FONTS } from "./fonts";
export type { Anim, Ease, Expr, Keyframe } from "./anim";
export type { Asset, Background, Layer, Scene } from "./scene";
export type { Aspect, Box, BuildContext, ButtonOptions, FontRole, GroupItem, GroupOptions, ProductAsset, ProductImageOptions, SoftShadow, SvgOptions, TemplateDefinition, TemplateMeta, TemplateWords, TextOptions, TextStyle, } from "./define";
/** What a template module that exports a function receives: the same helpers, for templates that cannot import. */
export declare const templateApi: {
    defineTemplate: typeof defineTemplate;
    t: TypeBuilder;
    fields: {
        headline: (maxLength?: number) => import("@sinclair/typebox").TOptional<import("@sinclair/typebox").TString>;
        subheadline: (maxLength?: number) => import("@sinclair/typebox").TOptional<import("@sinclair/typebox").TString>;
        price: () => import("@sinclair/typebox").TOptional<import("@sinclair/typebox").TUnion<[import("@sinclair/typebox").TNumber, import("@sinclair/typebox").TString]>>;
        oldPrice: () => import("@sinclair/typebox").TOptional<import("@sinclair/typebox").TUnion<[import("@sinclair/typebox").TNumber, import("@sinclair/typebox").TString]>>;
        currency: () => import("@sinclair/typebox").TOptional<import("@sinclair/typebox").TString>;
        callToAction: (maxLength?: number, button?: import("./field-words").ButtonWords) => import("@sinclair/typebox").TOptional<import("@sinclair/typebox").TString>;
        features: (maxItems?: number) => import("@sinclair/typebox").TOptional<import("@sinclair/typebox").TArray<import("@sinclair/typebox").TString>>;
        color: () => import("@sinclair/typebox").TOptional<import("@sinclair/typebox").TString>;
        colors: () => import("@sinclair/typebox").TOptional<import("@sinclair/typebox").TObject<{
            primary: import("@sinclair/typebox").TOptional<import("@sinclair/typebox").TString>;
            accent: import("@sinclair/typebox").TOptional<import("@sinclair/typebox").TString>;
            background: import("@sinclair/typebox").TOptional<import("@sinclair/typebox").TString>;
            text: import("@sinclair/typebox").TOptional<import("@sinclair/typebox").TString>;
        }>>;
    };
    wave: typeof wave;
    sum: typeof sum;
    valueAt: typeof valueAt;
    mix: typeof mix;
    lighten: typeof lighten;
    darken: typeof darken;
    luminance: typeof luminance;
    readableOn: typeof readableOn;
    contrastRatio: typeof contrastRatio;
    inkOn: typeof inkOn;
    legible: typeof legible;
    firstSentence: typeof firstSentence;
    phrasesFrom: typeof phrasesFrom;
};
export type TemplateApi = typeof templateApi;
