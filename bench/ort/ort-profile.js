// Per-node times of one model on ONNX Runtime's CPU provider, the
// per-layer reference beside `hx-run --trace` (docs/benchmarks.md):
//
//   node ort-profile.js ORT_DIR MODEL.onnx INPUT.npy THREADS REPEAT [TOP]
//
// Runs the model REPEAT times after a warm-up run with ONNX Runtime's
// profiler on (all graph optimizations, THREADS intra-op threads), then
// prints the best whole run, the sum of each node's best time, the time per
// op type, and the TOP (default 25) slowest nodes with their op type and
// input shapes. The profiler's own JSON file is written to the system's
// temporary directory and removed.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const {openSession, bestRun} = require('./ort-time.js');

(async () => {
  const [ortDir, model, input, threads, repeat, top] = process.argv.slice(2);
  if (!repeat) {
    console.error('usage: node ort-profile.js ORT_DIR MODEL.onnx INPUT.npy THREADS REPEAT [TOP]');
    process.exit(2);
  }
  const ort = require(path.resolve(ortDir, 'node_modules', 'onnxruntime-node'));
  const prefix = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ort-profile-')), 'profile');
  const {session, feeds} = await openSession(ort, model, input, threads,
                                             {enableProfiling: true, profileFilePrefix: prefix});
  const best = await bestRun(session, feeds, repeat);
  session.endProfiling();
  const dir = path.dirname(prefix);
  const file = fs.readdirSync(dir).find(f => f.endsWith('.json'));
  const events = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  fs.rmSync(dir, {recursive: true});
  // Each node's best time over the runs (the warm-up included).
  const nodes = new Map();
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time'))
      continue;
    const n = nodes.get(e.name);
    if (!n || e.dur < n.us)
      nodes.set(e.name, {us: e.dur, op: e.args.op_name, inputs: e.args.input_type_shape || []});
  }
  const rows = [...nodes.entries()].sort((a, b) => b[1].us - a[1].us);
  const byOp = new Map();
  let total = 0;
  for (const [, n] of rows) {
    byOp.set(n.op, (byOp.get(n.op) || 0) + n.us);
    total += n.us;
  }
  console.log(`best run ${best.toFixed(3)} ms; nodes' best times sum to ${(total / 1000).toFixed(3)} ms`);
  console.log([...byOp.entries()].sort((a, b) => b[1] - a[1])
                  .map(([op, us]) => `${op} ${(us / 1000).toFixed(3)} ms`).join(', '));
  for (const [name, n] of rows.slice(0, Number(top || 25))) {
    const shapes = n.inputs.map(s => JSON.stringify(Object.values(s)[0])).join(' ');
    console.log(`${String(n.us).padStart(7)} us  ${n.op.padEnd(20)} ${shapes}  ${name.replace(/_kernel_time$/, '')}`);
  }
})().catch(e => {
  console.error('ort-profile: ' + (e && e.message ? e.message : e));
  process.exit(1);
});
