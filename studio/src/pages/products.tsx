// Products: the account's products with their cut-outs on a checkerboard (refreshed while a cut-out is being made)
// and the form that creates one.
import { useEffect, useState } from "preact/hooks";
import { api, asProblem, type Schemas } from "../api";
import { Alert } from "../components/alert";
import { Empty } from "../components/empty";
import { Page } from "../components/page";
import { Loading } from "../components/spinner";
import { StatusBadge } from "../components/status-badge";
import { moveFocus } from "../focus";
import { useLoad, usePoll } from "../hooks";
import { useT } from "../i18n";
import { CreateProductForm } from "./products-create";

export type Product = NonNullable<Awaited<ReturnType<typeof loadProducts>>>[number];

let lastProducts: Product[] | null = null;

/** The account's products (at most five, so one page holds them all). */
export async function loadProducts() {
  const { data, error } = await api.GET("/v1/products", { params: { query: { limit: 100 } } });
  if (error || !data) throw new Error(asProblem(error)?.message ?? "GET /v1/products failed");
  lastProducts = data.data;
  return data.data;
}

/** The products as last loaded in this visit (another page can show them at once while it asks again), or null. */
export function productsSeen(): Product[] | null {
  return lastProducts;
}


function ProductCard({ product }: { product: Product }) {
  const t = useT();
  // image_url is the product's picture in use: the cut-out once it is ready, the photo before and after a revert.
  const ready = product.dekupe.status === "ready" && product.image_url !== product.original_image_url;
  return (
    <li>
      <a class="card product-card" href={`/products/${product.id}`}>
        <img
          class={product.image_url !== product.original_image_url ? "thumb checkerboard" : "thumb"}
          src={product.image_url}
          alt={ready ? t("products.cutout", { name: product.name }) : t("products.photo", { name: product.name })}
          loading="lazy"
        />
        <span class="name">{product.name}</span>
        <span class="meta">
          <StatusBadge status={product.dekupe.status} />
        </span>
      </a>
    </li>
  );
}

export function ProductsPage() {
  const t = useT();
  const products = useLoad(loadProducts);
  // The product just made: "its cut-out is being made" holds while that is true, and goes with the next upload.
  const [createdId, setCreatedId] = useState<string | null>(null);
  const list = products.data ?? [];
  usePoll(list.some((p) => p.dekupe.status === "processing"), products.reload);
  const created = createdId ? list.find((p) => p.id === createdId) : undefined;
  const announced = created?.dekupe.status === "processing";
  // After `Create product` the form is empty again and, on a phone, the list is a screen above: the focus (and the
  // view with it) goes to the success message, or to the new product's card when there is no message to show.
  const [toFocus, setToFocus] = useState<string | null>(null);
  useEffect(() => {
    if (!toFocus || !created || created.id !== toFocus) return;
    setToFocus(null);
    if (!announced) moveFocus(document.querySelector<HTMLElement>(`a[href="/products/${toFocus}"]`));
  }, [toFocus, created]);
  return (
    <Page title={t("products.title")}>
      {announced && (
        <Alert tone="success" focusKey={createdId}>
          {t("products.created")}
        </Alert>
      )}
      <div class="two-col">
        <section aria-labelledby="product-list-title">
          <h2 id="product-list-title" class="visually-hidden">
            {t("products.count", { n: list.length })}
          </h2>
          {products.error && <Alert tone="error">{products.error}</Alert>}
          {products.loading && !products.data ? (
            <Loading />
          ) : list.length === 0 ? (
            <Empty>{t("products.empty")}</Empty>
          ) : (
            <ul class="grid plain-list">
              {list.map((p) => (
                <ProductCard key={p.id} product={p} />
              ))}
            </ul>
          )}
        </section>
        <CreateProductForm
          full={list.length >= 5}
          onSubmit={() => setCreatedId(null)}
          onCreated={(id) => {
            setCreatedId(id);
            setToFocus(id);
            void products.reload();
          }}
        />
      </div>
    </Page>
  );
}
