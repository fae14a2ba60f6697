// Files the bundler takes as imports: the stylesheet (Bun.build emits it as its own hashed asset).
declare module "*.css";
