import type { Producer, Transaction } from "kafkajs";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriousViolations } from "./accessibility";
import {
  addMember,
  callTrpc,
  compactedTopic,
  newAccount,
  saveScreenshotsAtWidths,
  useConsolePage,
  waitOrExplain,
} from "./console-session";
import { kafkaWithNewKey } from "./kafka-key";
import { showTab } from "./topic-actions";

const ORGANIZATION = "Checkout Team";
const TOPIC = "checkout-state";
const TXN_ID = "checkout-processor-0";
/** Longer than the spec: the transaction must stay open until the operator aborts it, not time out. */
const TXN_TIMEOUT_MS = 600_000;
/** The coordinator carries an operator's abort out at its next tick; the page refreshes every 3 s. */
const ABORT_TIMEOUT_MS = 60_000;

const transactionsTable = (page: Page) => page.getByRole("table", { name: "Transactions" });

/** The transactional id's row: its cells after the id, as shown. */
function transactionRow(page: Page): Locator {
  return transactionsTable(page)
    .getByRole("row")
    .filter({ has: page.getByRole("rowheader", { name: TXN_ID, exact: true }) });
}

async function rowState(page: Page): Promise<string> {
  return (await transactionRow(page).getByRole("cell").first().textContent()) ?? "";
}

/** The Segments tab's stability line for partition 0: [last stable offset, log end]. */
async function stableAndEnd(page: Page): Promise<[number, number]> {
  const line = page.getByText(/^Last stable offset \d+ · log end \d+/);
  await line.waitFor();
  const match = /^Last stable offset (\d+) · log end (\d+)/.exec((await line.textContent()) ?? "");
  if (!match) throw new Error("no stability line");
  return [Number(match[1]), Number(match[2])];
}

describe("the Transactions page and a partition's last stable offset, with an operator's abort", () => {
  const ui = useConsolePage({ account: ORGANIZATION, topics: [compactedTopic(TOPIC)] });
  let producer: Producer;
  let open: Transaction;

  beforeAll(async () => {
    const kafkaFor = await kafkaWithNewKey(ui.page, {
      name: "checkout-processor",
      scopes: ["topics:read", "records:read", "records:write"],
      topic: TOPIC,
    });
    producer = kafkaFor(TXN_ID).producer({
      transactionalId: TXN_ID,
      transactionTimeout: TXN_TIMEOUT_MS,
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
    // One committed transaction (a record and its COMMIT marker), then one left open.
    const committed = await producer.transaction();
    await committed.send({ topic: TOPIC, messages: [{ key: "cart-1", value: "paid" }] });
    await committed.commit();
    open = await producer.transaction();
    await open.send({
      topic: TOPIC,
      messages: [
        { key: "cart-2", value: "reserved" },
        { key: "cart-3", value: "reserved" },
      ],
    });
  });
  afterAll(async () => {
    await producer?.disconnect();
  });

  it("lists the transactional id as Ongoing with its producer, timeout, partition and start, fitting a phone and passing axe", async () => {
    await ui.page.goto("/transactions");
    await waitOrExplain(ui.page, transactionRow(ui.page), "transactions-row");
    const cells = await transactionRow(ui.page).getByRole("cell").allTextContents();
    const [state, timeout, updated, producerCell, partitions, started] = cells;
    expect(state).toBe("Ongoing");
    expect(timeout).toBe("10 min");
    expect(updated).not.toBe("");
    expect(producerCell).toMatch(/^\d+ · epoch \d+$/);
    expect(partitions).toBe(`${TOPIC}-0`);
    expect(started).not.toBe("—");
    expect(
      await transactionRow(ui.page)
        .getByRole("button", { name: `Abort ${TXN_ID}`, exact: true })
        .count(),
    ).toBe(1);
    expect(await ui.page.getByText("1 transactional id, 1 with an open transaction.").count()).toBe(1);

    const overflow = await saveScreenshotsAtWidths(ui.page, "transactions-open");
    expect(overflow).toEqual({ 1440: 0, 390: 0 });
    for (const width of [1440, 390]) {
      await ui.page.setViewportSize({ width, height: 900 });
      expect(await seriousViolations(ui.page)).toEqual([]);
    }
    await ui.page.setViewportSize({ width: 1440, height: 900 });
  });

  it("shows the partition's last stable offset held below its log end by the open transaction, named", async () => {
    // The transaction's partition links to the topic's Segments tab.
    await transactionRow(ui.page)
      .getByRole("link", { name: `${TOPIC}-0`, exact: true })
      .click();
    await ui.page.getByRole("tabpanel", { name: "Segments & cleaner", exact: true }).waitFor();
    const openList = ui.page.getByRole("list", { name: "Partition 0 open transactions" });
    await waitOrExplain(ui.page, openList, "partition-open-transactions");
    const entry = (await openList.textContent()) ?? "";
    expect(entry).toContain(`Open transaction ${TXN_ID}`);
    expect(entry).toMatch(/producer \d+ epoch \d+ · from offset 2 · started /);
    // cart-1 at 0, its COMMIT marker at 1, the open transaction's two records at 2 and 3.
    expect(await stableAndEnd(ui.page)).toEqual([2, 4]);
    const overflow = await saveScreenshotsAtWidths(ui.page, "transactions-partition-held");
    expect(overflow[390]).toBe(0);
  });

  it("offers a viewer, who may read records but not write them, no Abort; the API refuses it the same", async () => {
    const page = await addMember(ui.page, ui.browser, newAccount("Vera Viewer"), "viewer", ORGANIZATION);
    try {
      await page.goto("/transactions");
      await waitOrExplain(page, transactionRow(page), "transactions-row-viewer");
      expect(await rowState(page)).toBe("Ongoing");
      expect(await transactionRow(page).getByRole("button").count()).toBe(0);
      expect(await callTrpc(page, "transactions.abort", { transactionalId: TXN_ID })).toBe(403);
    } finally {
      await page.context().close();
    }
  });

  it("aborts the transaction after a confirmation: pending, then CompleteAbort, and the last stable offset catches up", async () => {
    await ui.page.goto("/transactions");
    const row = transactionRow(ui.page);
    await row.getByRole("button", { name: `Abort ${TXN_ID}`, exact: true }).click();
    // The first click only asks; nothing is aborted until the confirmation.
    expect(await rowState(ui.page)).toBe("Ongoing");
    await row.getByRole("button", { name: `Confirm aborting ${TXN_ID}`, exact: true }).click();
    // Recorded at once: the row offers no second abort, it says pending (or already aborted).
    await expect
      .poll(async () => (await row.textContent()) ?? "", { timeout: 15_000 })
      .toMatch(/Abort pending|CompleteAbort|PrepareAbort/);
    expect(await row.getByRole("button", { name: `Abort ${TXN_ID}`, exact: true }).count()).toBe(0);
    await expect.poll(() => rowState(ui.page), { timeout: ABORT_TIMEOUT_MS }).toBe("CompleteAbort");
    expect(await row.textContent()).not.toContain("Abort pending");
    expect(await ui.page.getByText("1 transactional id, 0 with an open transaction.").count()).toBe(1);
    await saveScreenshotsAtWidths(ui.page, "transactions-aborted");

    await ui.page.goto(`/topics/${TOPIC}`);
    await showTab(ui.page, "Segments & cleaner");
    // The ABORT marker at 4: the log ends at 5 and nothing holds it back.
    await expect.poll(() => stableAndEnd(ui.page), { timeout: 15_000 }).toEqual([5, 5]);
    expect(await ui.page.getByRole("list", { name: "Partition 0 open transactions" }).count()).toBe(0);
  });

  it("fenced the producer: its open transaction can no longer commit", async () => {
    await expect(open.commit()).rejects.toThrow();
  });
});
