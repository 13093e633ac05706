// A real SMTP server on loopback (smtp-server) that keeps every message it receives, parsed with
// mailparser, for the tests of what the platform sends.
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';

export interface TestSmtp {
  url: string;
  messages: ParsedMail[];
  /** The first message to `to` (waits for it to arrive). */
  waitFor(to: string, timeoutMs?: number): Promise<ParsedMail>;
  close(): Promise<void>;
}

export async function startTestSmtp(): Promise<TestSmtp> {
  const messages: ParsedMail[] = [];
  const waiters: (() => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          messages.push(mail);
          for (const w of waiters.splice(0)) w();
          callback();
        })
        .catch((err) => callback(err));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  const to = (m: ParsedMail) =>
    (Array.isArray(m.to) ? m.to : m.to ? [m.to] : []).flatMap((a) => a.value.map((v) => v.address?.toLowerCase()));
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async waitFor(address, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = messages.find((m) => to(m).includes(address.toLowerCase()));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no message to ${address} arrived`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
