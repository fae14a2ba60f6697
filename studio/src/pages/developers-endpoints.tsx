// The Developers page's webhook endpoints: the account's extra receivers (URL, events, enabled), a form that adds one
// and shows its secret once, and per endpoint Enable/Disable and Delete (behind a confirmation).
import { useState } from "preact/hooks";
import { api, fieldError } from "../api";
import { messageOf, must } from "../call";
import { Alert } from "../components/alert";
import { Button } from "../components/button";
import { ConfirmButton } from "../components/confirm-button";
import { CopyField } from "../components/copy-field";
import { Empty } from "../components/empty";
import { TextField } from "../components/field";
import { Loading } from "../components/spinner";
import { Table, type Column } from "../components/table";
import { useSubmit } from "../components/use-submit";
import { useLoad } from "../hooks";
import { useDevelopersMessages } from "../i18n/developers";
import { useFocusOnMessage } from "../focus";

type Endpoint = Awaited<ReturnType<typeof listEndpoints>>["data"][number];

/**
 * A URL that may wrap after its slashes, dots and query marks (each followed by a <wbr>), so a narrow column breaks
 * it between its parts rather than in the middle of a word.
 */
function breakableUrl(url: string) {
  return url.split(/(?<=[/.?&=])/).flatMap((part, i) => (i === 0 ? [part] : [<wbr key={i} />, part]));
}

function listEndpoints() {
  return must(api.GET("/v1/webhook_endpoints"));
}

function AddEndpoint({ onAdded }: { onAdded(endpoint: Endpoint): void }) {
  const m = useDevelopersMessages();
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState("*");
  const [description, setDescription] = useState("");
  const { busy, error, fields, submit } = useSubmit(async () => {
    const list = events.split(",").map((s) => s.trim()).filter(Boolean);
    const body = { url: url.trim(), events: list, ...(description.trim() ? { description: description.trim() } : {}) };
    onAdded(await must(api.POST("/v1/webhook_endpoints", { body })));
    setUrl("");
    setDescription("");
  }, m("network"), ["url", "events", "description"]);
  return (
    <form class="card form" onSubmit={submit} aria-labelledby="add-endpoint-heading">
      <h3 id="add-endpoint-heading">{m("addEndpoint")}</h3>
      <TextField label={m("endpointUrl")} type="url" placeholder="https://" maxLength={2048} required value={url} onValue={setUrl} error={fieldError(fields, "url")} />
      <TextField label={m("endpointEvents")} hint={m("endpointEventsHint")} required value={events} onValue={setEvents} error={fieldError(fields, "events")} />
      <TextField label={m("endpointDescription")} maxLength={500} value={description} onValue={setDescription} error={fieldError(fields, "description")} />
      {error && (
        <Alert tone="error" focusKey={error}>
          {error}
        </Alert>
      )}
      <div class="row">
        <Button type="submit" busy={busy}>
          {m("addEndpoint")}
        </Button>
      </div>
    </form>
  );
}

export function EndpointsSection() {
  const m = useDevelopersMessages();
  const endpoints = useLoad(listEndpoints);
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);
  const [notice, setNotice] = useState<{ tone: "success" | "error"; text: string } | null>(null);
  const noticeRef = useFocusOnMessage<HTMLDivElement>(notice?.tone === "success" ? notice : null);
  const toggle = async (e: Endpoint) => {
    setNotice(null);
    try {
      await must(api.PATCH("/v1/webhook_endpoints/{id}", { params: { path: { id: e.id } }, body: { enabled: !e.enabled } }));
      await endpoints.reload();
    } catch (err) {
      setNotice({ tone: "error", text: messageOf(err, m("network")) });
    }
  };
  const rotate = async (e: Endpoint) => {
    const out = await must(api.POST("/v1/webhook_endpoints/{id}/rotate_secret", { params: { path: { id: e.id } }, body: {} }));
    setNotice(null);
    setSecret(out.secret ? { label: m("endpointRotated", { url: e.url }), value: out.secret } : null);
  };
  const remove = async (e: Endpoint) => {
    await must(api.DELETE("/v1/webhook_endpoints/{id}", { params: { path: { id: e.id } } }));
    setNotice({ tone: "success", text: m("deleted") });
    await endpoints.reload();
  };
  const columns: Column<Endpoint>[] = [
    { key: "url", label: m("url"), render: (e) => <span class="mono endpoint-url">{breakableUrl(e.url)}</span> },
    { key: "events", label: m("endpointEvents"), render: (e) => <code>{e.events.join(", ")}</code> },
    { key: "description", label: m("endpointDescription"), render: (e) => e.description },
    { key: "status", label: m("status"), render: (e) => <span class={`badge ${e.enabled ? "badge-success" : "badge-neutral"}`}>{e.enabled ? m("enabled") : m("disabled")}</span> },
    {
      key: "actions",
      label: m("actions"),
      render: (e) => (
        <div class="row endpoint-actions">
          <Button onClick={() => toggle(e)} aria-label={m("toggleLabel", { action: e.enabled ? m("disable") : m("enable"), url: e.url })}>
            {e.enabled ? m("disable") : m("enable")}
          </Button>
          <ConfirmButton
            label={m("rotateEndpoint")}
            variant="secondary"
            ariaLabel={m("rotateEndpointLabel", { url: e.url })}
            title={m("rotateEndpoint")}
            onConfirm={() => rotate(e)}
            describe={(err) => messageOf(err, m("network"))}
          >
            <p>{m("rotateEndpointText", { url: e.url })}</p>
          </ConfirmButton>
          <ConfirmButton
            label={m("deleteEndpoint")}
            ariaLabel={m("deleteLabel", { url: e.url })}
            title={m("deleteTitle")}
            onConfirm={() => remove(e)}
            describe={(err) => messageOf(err, m("network"))}
          >
            <p>{m("deleteText", { url: e.url })}</p>
          </ConfirmButton>
        </div>
      ),
    },
  ];
  const added = (e: Endpoint) => {
    setSecret(e.secret ? { label: m("endpointSecret"), value: e.secret } : null);
    setNotice(null);
    void endpoints.reload();
  };
  return (
    <section class="section" aria-labelledby="endpoints-heading">
      <h2 id="endpoints-heading">{m("endpoints")}</h2>
      <p class="hint">{m("endpointsIntro")}</p>
      {secret && (
        // A new or rotated secret is what the action produced: the focus (and the view) goes to it.
        <Alert tone="warning" focusKey={secret}>
          <p>{m("endpointSecretWarning")}</p>
          <CopyField label={secret.label} value={secret.value} />
          <Button onClick={() => setSecret(null)}>{m("hideSecret")}</Button>
        </Alert>
      )}
      <div ref={noticeRef} tabIndex={-1}>
        {notice && <Alert tone={notice.tone}>{notice.text}</Alert>}
      </div>
      {endpoints.error ? (
        <Alert tone="error">{endpoints.error}</Alert>
      ) : !endpoints.data ? (
        <Loading />
      ) : endpoints.data.data.length === 0 ? (
        <Empty>{m("noEndpoints")}</Empty>
      ) : (
        <Table caption={m("endpoints")} columns={columns} rows={endpoints.data.data} rowKey={(e) => e.id} />
      )}
      <AddEndpoint onAdded={added} />
    </section>
  );
}
