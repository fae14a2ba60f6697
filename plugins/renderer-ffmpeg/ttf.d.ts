// Type declarations for the font files imported as embedded file paths (Bun's `with { type: "file" }`).
declare module "*.ttf" {
  const path: string;
  export default path;
}
