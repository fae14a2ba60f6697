// A status word with a colour that matches it (queued, rendering, completed, failed, dead...): text, never colour alone.
import { useT, type MessageKey } from "../i18n";

const TONES: Record<string, string> = {
  queued: "neutral",
  pending: "neutral",
  processing: "progress",
  rendering: "progress",
  running: "progress",
  completed: "success",
  ready: "success",
  succeeded: "success",
  paid: "success",
  delivered: "success",
  retrying: "progress",
  expired: "danger",
  failed: "danger",
  dead: "danger",
};

export function StatusBadge({ status }: { status: string }) {
  const t = useT();
  const key = `status.${status}` as MessageKey;
  const text = t(key);
  return <span class={`badge badge-${TONES[status] ?? "neutral"}`}>{text === key ? status : text}</span>;
}
