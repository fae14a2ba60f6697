// The S3 storage's settings (VITRIN_S3_*), read at start through the plugin kit and listed in the configuration table.
import { boolean, integer, optionalText, optionalUrl, type PluginSettings } from "../../src/plugins";

export type S3Settings = {
  /** Base URL of the S3 API without the bucket; null means AWS S3 in `region`. */
  endpoint: string | null;
  region: string;
  bucket: string | null;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  /** Bucket in the path (`endpoint/bucket/key`) rather than in the host name (`bucket.endpoint/key`). */
  pathStyle: boolean;
  urls: "presigned" | "public";
  /** Lifetime of a presigned link. */
  urlTtlSeconds: number;
};

export const s3Settings: PluginSettings<S3Settings> = {
  endpoint: {
    env: "VITRIN_S3_ENDPOINT",
    unset: "",
    default: "(AWS S3 in VITRIN_S3_REGION)",
    doc: "With `VITRIN_STORAGE=s3`: base URL of the S3 API, without the bucket (e.g. `http://minio:9000`, `https://<account>.r2.cloudflarestorage.com`).",
    parse: optionalUrl,
  },
  region: {
    env: "VITRIN_S3_REGION",
    default: "us-east-1",
    doc: "Region requests to the bucket are signed for (`auto` for Cloudflare R2; any value for most self-hosted stores).",
    parse: (r) => {
      const v = r.trim();
      if (!/^[a-z0-9][a-z0-9-]*$/.test(v)) throw new Error("must be a region name such as us-east-1");
      return v;
    },
  },
  bucket: {
    env: "VITRIN_S3_BUCKET",
    unset: "",
    default: "(unset)",
    doc: "Bucket that holds stored images and videos; required with `VITRIN_STORAGE=s3`. Create it beforehand.",
    parse: (r) => {
      const v = r.trim();
      if (v !== "" && !/^[A-Za-z0-9][A-Za-z0-9._-]{1,254}$/.test(v)) throw new Error("must be a bucket name: 2 to 255 letters, digits, dots, dashes and underscores, starting with a letter or digit");
      return v || null;
    },
  },
  accessKeyId: {
    env: "VITRIN_S3_ACCESS_KEY_ID",
    unset: "",
    default: "(unset)",
    doc: "Access key ID for the bucket; required with `VITRIN_STORAGE=s3`. The key needs to list the bucket and to get, put and delete its objects.",
    parse: optionalText,
  },
  secretAccessKey: {
    env: "VITRIN_S3_SECRET_ACCESS_KEY",
    unset: "",
    default: "(unset)",
    doc: "Secret access key of VITRIN_S3_ACCESS_KEY_ID; required with `VITRIN_STORAGE=s3`.",
    parse: optionalText,
  },
  pathStyle: {
    env: "VITRIN_S3_PATH_STYLE",
    default: "true",
    doc: "Address the bucket in the path (`<endpoint>/<bucket>/<key>`, what MinIO, Garage and most self-hosted stores expect). `false` puts it in the host name (`<bucket>.<endpoint host>`), as some providers require.",
    parse: boolean,
  },
  urls: {
    env: "VITRIN_S3_URLS",
    unset: "",
    default: "(public if VITRIN_CDN_URL is set, else presigned)",
    doc: "How S3 storage links to files in API responses and webhooks: `presigned` (signed links that expire after VITRIN_S3_URL_TTL_SECONDS; the bucket stays private) or `public` (plain links under VITRIN_CDN_URL, which must then be the address of a publicly readable bucket or of a CDN in front of it).",
    parse: (r, { env }) => {
      const v = r.trim();
      const cdnSet = (env.VITRIN_CDN_URL ?? "").trim() !== "";
      if (v === "") return cdnSet ? "public" : "presigned";
      if (v !== "presigned" && v !== "public") throw new Error("must be presigned or public");
      if (v === "public" && !cdnSet) throw new Error("public links need VITRIN_CDN_URL set to the bucket's (or its CDN's) public address");
      return v;
    },
  },
  urlTtlSeconds: {
    env: "VITRIN_S3_URL_TTL_SECONDS",
    default: "86400",
    doc: "How long a presigned link stays valid (at most 604800, S3's limit). Every API read signs fresh links, so fetch the product or video again for a new one.",
    parse: integer(1, 604_800),
  },
};
