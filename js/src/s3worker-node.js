// 2026-12-02
// js/src/s3worker-node.js - the helper thread of S3File in Node (worker_threads); the work is in
// s3worker-core.js, the browser's entry is s3worker.js.
import { parentPort } from 'node:worker_threads';
import { onMessage } from './s3worker-core.js';

parentPort.on('message', (m) => onMessage(m, (x) => parentPort.postMessage(x)));
