// Data tables: a caption (visually hidden when the heading already names it) and a scroll box so 375 px stays usable.
import type { ComponentChildren } from "preact";

export type Column<Row> = { key: string; label: string; render(row: Row): ComponentChildren; numeric?: boolean };

type Props<Row> = { caption: string; showCaption?: boolean; columns: Column<Row>[]; rows: Row[]; rowKey(row: Row): string };

export function Table<Row>({ caption, showCaption = false, columns, rows, rowKey }: Props<Row>) {
  return (
    <div class="table-scroll" tabIndex={0} role="region" aria-label={caption}>
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
