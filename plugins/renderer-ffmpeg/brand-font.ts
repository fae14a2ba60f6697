// The account's brand font in a render: the template's headline families (display and serif: headlines, prices)
// take it; body text in the sans family stays as the template set it, so long copy keeps reading easily.
import { ROLE_FAMILIES, type FontRole } from "../../src/templates/api";

/** The role whose family is the brand's font, or null for none (or a name this renderer does not ship). */
export function brandRole(family: string | undefined): FontRole | null {
  const found = (Object.entries(ROLE_FAMILIES) as [FontRole, string][]).find(([, name]) => name === family);
  return found ? found[0] : null;
}

/** A text or button style with its headline family swapped for the brand's. */
export function withBrandFont<T extends { font?: FontRole }>(style: T, role: FontRole | null): T {
  if (!role || (style.font !== "display" && style.font !== "serif")) return style;
  return { ...style, font: role };
}
