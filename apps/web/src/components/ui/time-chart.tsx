"use client";

import type { ReactNode } from "react";
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { shortDateTime } from "@/lib/date-time-formats";

export interface TimeSeries {
  /** The point's field holding this series' value. */
  key: string;
  name: string;
  color: string;
}

const CHART_HEIGHT_PX = 208;
const timeFormat = new Intl.DateTimeFormat("en", { timeStyle: "medium" });
/** Recharts draws SVG; our colours are CSS variables, which SVG paint reads as they are. */
const AXIS = { stroke: "currentColor", fontSize: 11 } as const;

/**
 * One time-series chart of the console (recharts): points keyed by `at` (ms), one line (or bar, for
 * per-interval counts) per series, our axes, grid and tooltip. The figure is named `label` and
 * carries its point count (`data-points`) for tests and assistive tech alike. `y` fixes the value
 * axis (a ratio's 0–1), `tooltip` names a point's value its own way, and `children` adds marks
 * such as a threshold's ReferenceLine.
 */
export function TimeChart<Point extends { at: number }>({
  label,
  points,
  series,
  format,
  kind = "line",
  y,
  tooltip,
  children,
}: {
  label: string;
  points: readonly Point[];
  series: readonly TimeSeries[];
  format: (value: number) => string;
  kind?: "line" | "bar";
  y?: { domain: [number, number]; ticks: number[] };
  tooltip?: (value: number, point: Point) => [string, string];
  children?: ReactNode;
}) {
  const Chart = kind === "bar" ? BarChart : LineChart;
  return (
    <figure
      aria-label={label}
      data-points={points.length}
      className="text-muted"
      style={{ height: CHART_HEIGHT_PX }}
    >
      <ResponsiveContainer width="100%" height="100%">
        <Chart data={[...points]} margin={{ top: 8, right: 16, bottom: 4, left: 8 }}>
          <CartesianGrid stroke="var(--color-line)" strokeDasharray="2 4" />
          <XAxis
            dataKey="at"
            type="number"
            scale="time"
            domain={["dataMin", "dataMax"]}
            padding={kind === "bar" ? { left: 12, right: 12 } : undefined}
            tickFormatter={(at: number) => timeFormat.format(at)}
            {...AXIS}
          />
          <YAxis tickFormatter={format} width={64} allowDecimals={false} {...y} {...AXIS} />
          <Tooltip
            labelFormatter={(at) => shortDateTime.format(Number(at))}
            formatter={(value, name, item) =>
              tooltip ? tooltip(Number(value), item.payload as Point) : [format(Number(value)), name]
            }
            contentStyle={{
              background: "var(--color-surface)",
              border: "1px solid var(--color-line)",
              fontSize: 12,
            }}
          />
          {series.length > 1 ? <Legend wrapperStyle={{ fontSize: 12 }} /> : null}
          {children}
          {series.map((s) =>
            kind === "bar" ? (
              <Bar key={s.key} dataKey={s.key} name={s.name} fill={s.color} isAnimationActive={false} />
            ) : (
              <Line
                key={s.key}
                dataKey={s.key}
                name={s.name}
                type="linear"
                stroke={s.color}
                strokeWidth={2}
                dot={{ r: 3 }}
                connectNulls
                isAnimationActive={false}
              />
            ),
          )}
        </Chart>
      </ResponsiveContainer>
    </figure>
  );
}
