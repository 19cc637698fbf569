/** One message to one person: plain text only (verification links; no templates, no tracking). */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/**
 * Where mail leaves the service. better-auth's e-mail verification goes through this, so a
 * deployment picks a transport (SMTP) and tests read what was sent, without either reaching into
 * better-auth.
 */
export interface MailSender {
  send(message: MailMessage): Promise<void>;
}

/**
 * The default when no SMTP server is configured: the message is written to the process's log, so a
 * developer (or an operator without mail) can still follow a verification link.
 */
export function logMailSender(write: (line: string) => void = (line) => console.info(line)): MailSender {
  return {
    async send(message) {
      write(`[mail] to=${message.to} subject=${JSON.stringify(message.subject)}\n${message.text}`);
    },
  };
}

/** Keeps every message in memory, newest last: for tests and for a one-off local run. */
export function outboxMailSender(): MailSender & { sent: MailMessage[] } {
  const sent: MailMessage[] = [];
  return {
    sent,
    async send(message) {
      sent.push(message);
    },
  };
}

/**
 * SMTP through nodemailer. `url` is nodemailer's connection URL (`smtps://user:pass@host:465`);
 * loaded on first send, so a deployment that logs mail never loads the SMTP stack.
 */
export function smtpMailSender(options: { url: string; from: string }): MailSender {
  let transport: Promise<{ sendMail(mail: object): Promise<unknown> }> | undefined;
  return {
    async send(message) {
      transport ??= import("nodemailer").then((mailer) => mailer.createTransport(options.url));
      await (await transport).sendMail({ from: options.from, ...message });
    },
  };
}
