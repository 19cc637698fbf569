import { createRequire } from "node:module";
import type { Page } from "playwright-core";

// axe-core's own bundle, put into the page as a script (playwright-core's addScriptTag): the
// checks run in the page's real DOM and styles, as a browser extension's would.
const AXE_SOURCE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
  /** axe-core's explanation for the first element (for contrast: the colours and the ratio). */
  summary: string;
}

/**
 * The page's WCAG 2.x A and AA violations that axe-core rates serious or critical, each with the
 * elements it found them on (empty when the page passes).
 */
export async function seriousViolations(page: Page): Promise<AxeFinding[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ path: AXE_SOURCE });
  // Colours still easing (a button's transition-colors after a colour-scheme change or as it turns
  // enabled) would be measured half-way: contrast is checked on what stays on screen.
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((a) => a instanceof CSSTransition)
        .map((a) => a.finished.catch(() => undefined)),
    ),
  );
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<AxeResults> } })
      .axe;
    interface AxeResults {
      violations: {
        id: string;
        impact: string | null;
        help: string;
        nodes: { target: unknown[]; failureSummary?: string }[];
      }[];
    }
    const results = await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
      resultTypes: ["violations"],
    });
    return results.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        targets: v.nodes.slice(0, 5).map((n) => n.target.map(String).join(" ")),
        summary: v.nodes[0]?.failureSummary ?? "",
      }));
  });
}

/**
 * Per width, what is cut off: the page's own sideways scroll, tables wider than their frame (a
 * column that needs a sideways scroll to be seen), and buttons or links reaching past the
 * viewport or clipped by an ancestor that hides overflow. Empty lists when everything fits.
 */
export function clippedElements(page: Page): Promise<{ page: number; tables: string[]; controls: string[] }> {
  return page.evaluate(() => {
    const root = document.documentElement;
    const describe = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.getAttribute("aria-label") ? `[${el.getAttribute("aria-label")}]` : ""} "${(el.textContent ?? "").trim().slice(0, 40)}"`;
    const visible = (el: Element) => {
      const box = el.getBoundingClientRect();
      return box.width > 0 && box.height > 0 && getComputedStyle(el).visibility !== "hidden";
    };
    const tables = [...document.querySelectorAll("main table")]
      .filter(visible)
      .filter((table) => {
        const frame = table.parentElement;
        return frame !== null && frame.scrollWidth > frame.clientWidth + 1;
      })
      .map(describe);
    const clippedBy = (el: Element): boolean => {
      const box = el.getBoundingClientRect();
      if (box.right > root.clientWidth + 1 || box.left < -1) return true;
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        const style = getComputedStyle(a);
        if (style.overflowX === "visible") continue;
        const frame = a.getBoundingClientRect();
        if (box.right > frame.right + 1 || box.left < frame.left - 1) return true;
      }
      return false;
    };
    const controls = [
      ...document.querySelectorAll("main button, main a[href], header button, header a[href]"),
    ]
      .filter(visible)
      .filter((el) => !el.closest(".sr-only"))
      .filter(clippedBy)
      .map(describe);
    return { page: root.scrollWidth - root.clientWidth, tables, controls };
  });
}
