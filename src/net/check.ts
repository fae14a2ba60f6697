// Checking a URL a client registers (a webhook endpoint) against the outbound rules without fetching it, and the short
// reasons an API client is shown when an outbound URL is refused or fails.
import { errors } from "../kernel";
import { fetchFailure, OutboundError } from "./errors";
import { DEFAULT_TIMEOUT_MS, type OutboundOptions } from "./options";
import { parseTarget } from "./target";
import { vetTarget } from "./vet";

/** What an outbound URL is for: the setting that lets it reach a private address differs. */
export type OutboundPurpose = "webhook" | "image";

/** How the server's operator may let a URL of `purpose` reach private addresses. */
const PRIVATE_SETTINGS: Record<OutboundPurpose, string> = {
  webhook: "VITRIN_WEBHOOK_ALLOW_HOSTS for these hosts, or VITRIN_ALLOW_PRIVATE_NETWORKS",
  image: "VITRIN_ALLOW_PRIVATE_NETWORKS",
};

/** A short reason for a refused or failed fetch, fit to show the API client after a field name. */
export function describeOutboundError(e: OutboundError, timeoutMs = DEFAULT_TIMEOUT_MS, purpose: OutboundPurpose = "webhook"): string {
  switch (e.code) {
    case "invalid_url":
      return "is not a valid URL";
    case "scheme":
      return "must be an http or https URL";
    case "blocked_address":
      return `points to a private, local or reserved network address, which is not allowed (the server's operator can allow such addresses: ${PRIVATE_SETTINGS[purpose]})`;
    case "dns":
      return "has a host name that could not be resolved";
    case "timeout":
      return `could not be fetched within ${Math.round(timeoutMs / 100) / 10} s`;
    case "too_many_redirects":
      return "redirected too many times";
    case "tls":
      return "could not be fetched: the server's TLS certificate was not accepted";
    case "connect":
      return "could not be fetched: the connection to the server failed";
    case "too_large":
      return "is too large";
  }
}

export type UrlCheckOptions = Pick<OutboundOptions, "allowPrivateNetworks" | "allowAddresses" | "allowHosts" | "resolve" | "timeoutMs"> & {
  /** The request field named in the 422 (default "url"). */
  field?: string;
};

/**
 * Applies the outbound rules (scheme, host name, every resolved address) to a URL a client registers, without
 * fetching it, so a webhook endpoint that could never be delivered to is refused up front with a 422.
 * Each delivery vets again: DNS may change after this check.
 */
export async function checkOutboundUrl(url: string, opts: UrlCheckOptions): Promise<void> {
  const field = opts.field ?? "url";
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    await vetTarget(parseTarget(url), opts, controller.signal);
  } catch (e) {
    // Only DNS can be slow here, so running out of time reads as a name that did not resolve.
    const failure = controller.signal.aborted
      ? new OutboundError("dns", `Resolving the host took longer than ${timeoutMs} ms.`)
      : e instanceof OutboundError
        ? e
        : fetchFailure(e);
    throw errors.invalidField(field, describeOutboundError(failure, timeoutMs));
  } finally {
    clearTimeout(timer);
  }
}
