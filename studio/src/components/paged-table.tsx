// A cursor-paged table with its states, as the Balance and Developers pages list transactions and webhook messages:
// the error with `Try again`, a spinner on the first load, the empty message, then the rows and Previous/Next.
import { messageOf } from "../call";
import { useT } from "../i18n";
import type { CursorList } from "../paging";
import { Alert } from "./alert";
import { Button } from "./button";
import { Empty } from "./empty";
import { Pagination } from "./pagination";
import { Loading } from "./spinner";
import { Table, type Column } from "./table";

type Props<Row> = { list: CursorList<Row>; caption: string; columns: Column<Row>[]; empty: string; stackOnPhone?: boolean };

export function PagedTable<Row extends { id: string }>({ list, caption, columns, empty, stackOnPhone }: Props<Row>) {
  const t = useT();
  return (
    <>
      {list.error ? (
        <Alert tone="error">
          <p>{messageOf(list.error, t("common.network"))}</p>
          <Button onClick={list.reload}>{t("common.retry")}</Button>
        </Alert>
      ) : list.loading && list.rows.length === 0 ? (
        <Loading />
      ) : list.rows.length === 0 ? (
        <Empty>{empty}</Empty>
      ) : (
        <Table caption={caption} columns={columns} rows={list.rows} rowKey={(r) => r.id} stackOnPhone={stackOnPhone} />
      )}
      <Pagination page={list.page} hasPrevious={list.hasPrevious} hasNext={list.hasNext} onPrevious={list.previous} onNext={list.next} />
    </>
  );
}
