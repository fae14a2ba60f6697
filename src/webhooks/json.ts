// How a webhook message and its attempts read in the API (the delivery log).
import { iso } from "../kernel";
import type { AttemptRow, MessageRow } from "./types";

export function attemptJson(row: AttemptRow) {
  return {
    id: row.id,
    attempt: row.attempt,
    status_code: row.statusCode,
    latency_ms: row.latencyMs,
    response: row.responseSnippet,
    error: row.error,
    next_attempt_at: iso(row.nextAttemptAt),
    created_at: iso(row.createdAt),
  };
}

export function messageJson(row: MessageRow, attempts: AttemptRow[]) {
  return {
    id: row.id,
    object: "webhook_message",
    event: row.event,
    url: row.url,
    video_id: row.videoId,
    endpoint_id: row.endpointId,
    status: row.status,
    attempts: attempts.map(attemptJson),
    payload: JSON.parse(row.payload),
    created_at: iso(row.createdAt),
    delivered_at: iso(row.deliveredAt),
  };
}
