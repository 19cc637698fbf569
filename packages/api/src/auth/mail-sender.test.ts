import { once } from "node:events";
import { createServer, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { logMailSender, smtpMailSender } from "./mail-sender";

/** Just enough of RFC 5321 for one plain delivery; records the DATA section. */
async function smtpListener() {
  const received: string[] = [];
  const server = createServer((socket: Socket) => {
    let buffer = "";
    let inData = false;
    socket.write("220 test ESMTP\r\n");
    socket.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      for (;;) {
        if (inData) {
          const end = buffer.indexOf("\r\n.\r\n");
          if (end < 0) return;
          received.push(buffer.slice(0, end));
          buffer = buffer.slice(end + 5);
          inData = false;
          socket.write("250 queued\r\n");
          continue;
        }
        const eol = buffer.indexOf("\r\n");
        if (eol < 0) return;
        const line = buffer.slice(0, eol).toUpperCase();
        buffer = buffer.slice(eol + 2);
        if (line.startsWith("EHLO")) socket.write("250 test\r\n");
        else if (line.startsWith("DATA")) {
          inData = true;
          socket.write("354 go on\r\n");
        } else if (line.startsWith("QUIT")) socket.end("221 bye\r\n");
        else socket.write("250 ok\r\n");
      }
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  return { port, received, close: () => server.close() };
}

describe("mail senders", () => {
  it("smtpMailSender delivers through the configured SMTP server", async () => {
    const smtp = await smtpListener();
    try {
      const sender = smtpMailSender({
        url: `smtp://127.0.0.1:${smtp.port}`,
        from: "Lastword <no-reply@example.com>",
      });
      await sender.send({
        to: "ada@example.com",
        subject: "Verify",
        text: "Open https://x.example/verify?token=t",
      });
      expect(smtp.received).toHaveLength(1);
      expect(smtp.received[0]).toMatch(/^To: ada@example\.com$/m);
      expect(smtp.received[0]).toMatch(/^Subject: Verify$/m);
      expect(smtp.received[0]).toContain("https://x.example/verify?token=t");
    } finally {
      smtp.close();
    }
  });

  it("logMailSender writes the recipient, subject and body", async () => {
    const lines: string[] = [];
    await logMailSender((line) => lines.push(line)).send({ to: "a@b.c", subject: "S", text: "body" });
    expect(lines).toEqual(['[mail] to=a@b.c subject="S"\nbody']);
  });
});
