import type { Locator, Page } from "playwright-core";

/** A table's rows below its header row, each as its cells' text. */
export function bodyRows(table: Locator): Promise<string[][]> {
  return table
    .getByRole("row")
    .evaluateAll((trs) => trs.slice(1).map((tr) => [...tr.children].map((c) => c.textContent ?? "")));
}

/** Opens the console page at `path` and answers its form named `form` once the field `label` shows. */
export async function openForm(
  page: Page,
  path: string,
  form: string,
  label: string,
): Promise<{ form: Locator; field: Locator }> {
  await page.goto(path);
  const found = page.getByRole("form", { name: form });
  const field = found.getByLabel(label);
  await field.waitFor();
  return { form: found, field };
}
