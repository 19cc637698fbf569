/** Dirty bytes over cleanable bytes: how much of the log the cleaner could still reclaim. */
export function DirtyRatioMeter({ ratio, label }: { ratio: number; label: string }) {
  const clamped = Math.min(1, Math.max(0, ratio));
  const percent = Math.round(clamped * 100);
  return (
    <div className="flex items-center gap-2">
      <meter
        aria-label={label}
        min={0}
        max={1}
        low={0.5}
        high={0.8}
        optimum={0}
        value={clamped}
        className="h-3 w-24"
      >
        {percent}%
      </meter>
      <span className="tabular-nums text-xs text-muted">{percent}%</span>
    </div>
  );
}
