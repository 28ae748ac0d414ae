// Times one model on ONNX Runtime's CPU provider (all graph optimizations
// on), the reference bench/ compares hx's cpu times with:
//
//   node ort-time.js ORT_DIR MODEL.onnx INPUT.npy THREADS REPEAT
//
// ORT_DIR is where bench/ort/setup.sh installed onnxruntime-node. The model
// takes one float32 input, read from INPUT.npy. Prints `best MS ms` (the
// best of REPEAT runs after one warm-up run) on stdout.
'use strict';
const fs = require('fs');
const path = require('path');

function readNpy(file) {
  const b = fs.readFileSync(file);
  if (b.toString('latin1', 1, 6) !== 'NUMPY')
    throw new Error(file + ': not a .npy file');
  const major = b[6];
  const headerLen = major === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = b.toString('latin1', start, start + headerLen);
  if (!/'descr':\s*'<f4'/.test(header) || /'fortran_order':\s*True/.test(header))
    throw new Error(file + ': needs a C-ordered float32 array, got ' + header.trim());
  const m = /'shape':\s*\(([^)]*)\)/.exec(header);
  const dims = m[1].split(',').map(s => s.trim()).filter(s => s.length).map(Number);
  const bytes = b.subarray(start + headerLen);
  const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  return {dims, data};
}

// A session of `model` on `threads` intra-op threads, all graph
// optimizations on (`extra`: more session options), and its feeds: the
// model's one input from `input`.
async function openSession(ort, model, input, threads, extra = {}) {
  const session = await ort.InferenceSession.create(model, Object.assign({
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  }, extra));
  const x = readNpy(input);
  return {session, feeds: {[session.inputNames[0]]: new ort.Tensor('float32', x.data, x.dims)}};
}

// The best of `repeat` runs after a warm-up run, in ms.
async function bestRun(session, feeds, repeat) {
  await session.run(feeds);
  let best = Infinity;
  for (let i = 0; i < Number(repeat); ++i) {
    const t = process.hrtime.bigint();
    await session.run(feeds);
    best = Math.min(best, Number(process.hrtime.bigint() - t) / 1e6);
  }
  return best;
}

module.exports = {readNpy, openSession, bestRun};

if (require.main === module)
(async () => {
  const [ortDir, model, input, threads, repeat] = process.argv.slice(2);
  if (!repeat) {
    console.error('usage: node ort-time.js ORT_DIR MODEL.onnx INPUT.npy THREADS REPEAT');
    process.exit(2);
  }
  const ort = require(path.resolve(ortDir, 'node_modules', 'onnxruntime-node'));
  const {session, feeds} = await openSession(ort, model, input, threads);
  const best = await bestRun(session, feeds, repeat);
  console.log(`best ${best.toFixed(3)} ms`);
})().catch(e => {
  console.error('ort-time: ' + (e && e.message ? e.message : e));
  process.exit(1);
});
