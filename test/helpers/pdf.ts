// A PDF's text as a reader would copy it: poppler's pdftotext (reading stdin with `-`), whitespace
// collapsed to single spaces.
import { spawn } from 'node:child_process';

export function pdfText(pdf: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('pdftotext', ['-', '-']);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out.replace(/\s+/g, ' ')) : reject(new Error(`pdftotext exited with ${code}`))));
    child.stdin.end(pdf);
  });
}
