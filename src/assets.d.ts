// Type declarations for files imported as text or as embedded file paths (Bun's `with { type }` imports).
declare module "*.sql" {
  const text: string;
  export default text;
}
declare module "swagger-ui-dist/swagger-ui-bundle.js" {
  const path: string;
  export default path;
}
declare module "swagger-ui-dist/swagger-ui.css" {
  const path: string;
  export default path;
}
declare module "swagger-ui-dist/favicon-32x32.png" {
  const path: string;
  export default path;
}
declare module "*.opus" {
  const path: string;
  export default path;
}
