// 2026-12-02
// js/src/s3worker.js - the helper thread of S3File in browsers (a module Worker that bundlers
// bundle, aws4fetch included); the work is in s3worker-core.js, Node's entry is s3worker-node.js.
import { onMessage } from './s3worker-core.js';

self.onmessage = (e) => onMessage(e.data, (x) => self.postMessage(x));
