// A worker thread of bench/limits.ts: `connections` loops each sending GET `url` one at a time over a
// kept-alive connection for `durationMs`, timing each with sub-millisecond resolution. It runs off
// the bench's main thread (where the API server under test runs), so a stall of the server's event
// loop shows as slow answers instead of stopping the probe. Posts every sample (ms) when done.
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const { url, connections, durationMs } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
const end = performance.now() + durationMs;
const samples = [];

function once() {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on('error', reject);
  });
}

async function loop() {
  while (performance.now() < end) samples.push(await once());
}

await Promise.all(Array.from({ length: connections }, loop));
agent.destroy();
parentPort.postMessage(samples);
