// The one table markup of the dashboard's lists: the scrolling wrapper, a header row of
// column names (a name in `{ hidden }` is read by screen readers only, for a column of
// buttons) and the rows the page renders. Pages keep their own rows and test ids.
import type { ReactNode } from 'react';

export type Column = string | { hidden: string };

export interface DataTableProps {
  columns: readonly Column[];
  /** The table's data-testid, which the dashboard tests find it by. */
  testId?: string;
  className?: string;
  caption?: ReactNode;
  captionClassName?: string;
  children: ReactNode;
}

export function DataTable({ columns, testId, className, caption, captionClassName, children }: DataTableProps) {
  return (
    <div className="table-wrap">
      <table className={className} data-testid={testId}>
        {caption !== undefined && <caption className={captionClassName}>{caption}</caption>}
        <thead>
          <tr>
            {columns.map((column) =>
              typeof column === 'string' ? (
                <th scope="col" key={column}>
                  {column}
                </th>
              ) : (
                <th scope="col" key={column.hidden}>
                  <span className="sr-only">{column.hidden}</span>
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
