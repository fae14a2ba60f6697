// Data tables: a caption (visually hidden when the heading already names it) and a scroll box so 375 px stays usable.
import type { ComponentChildren } from "preact";
import { useT } from "../i18n";

export type Column<Row> = { key: string; label: string; render(row: Row): ComponentChildren; numeric?: boolean };

type Props<Row> = {
  caption: string;
  showCaption?: boolean;
  columns: Column<Row>[];
  rows: Row[];
  rowKey(row: Row): string;
  /**
   * At phone width each row becomes a card of label–value lines instead of a row to scroll sideways: for tables whose
   * last columns matter (a product's attempts with `Accept`, the videos with their status).
   */
  stackOnPhone?: boolean;
};

export function Table<Row>({ caption, showCaption = false, columns, rows, rowKey, stackOnPhone = false }: Props<Row>) {
  const t = useT();
  // The scroll box is a region (so keyboards can scroll it); its name says "table", so it never repeats the name of
  // the section around it, which screen readers would list as two landmarks of one name.
  return (
    <div class={stackOnPhone ? "table-scroll table-stacks" : "table-scroll"} tabIndex={0} role="region" aria-label={t("common.tableRegion", { caption })}>
      <table class="table">
        <caption class={showCaption ? undefined : "visually-hidden"}>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.key} scope="col" class={c.numeric ? "numeric" : undefined}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c) => (
                <td key={c.key} class={c.numeric ? "numeric" : undefined} data-label={c.label}>
                  {c.render(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
